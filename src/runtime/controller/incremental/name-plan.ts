// The plan of a few names: the full planner (plan/plan.ts) given only the desired records at
// these names and the entries at and below their keys, its changes and conflicts kept for these
// names only. Equal to the full plan restricted to these names, because everything the planner
// decides about a name comes from those two: merging is per name; ownership, foreign entries and
// the incumbent of a name are read from its key and the keys below it. Adoption of external-dns
// entries is not (a registry entry at one name owns another), so it is always planned in full.
import { nameToKey } from '../../../skydns/skydns-key.ts';
import type { CurrentEntry } from '../plan/current-entries.ts';
import { planPrefix, type Plan, type PlanInput } from '../plan/plan.ts';

export interface NamePlanInput extends Omit<PlanInput, 'current' | 'adoptExternalDnsOwner'> {
  names: ReadonlySet<string>;
  /** The entries at these keys and below them. */
  entriesUnder: (keys: string[]) => CurrentEntry[];
}

export function planNames(input: NamePlanInput): Plan {
  const { names, entriesUnder, ...rest } = input;
  const plan = planPrefix({ ...rest, current: entriesUnder([...names].map((n) => nameToKey(n, input.prefix))) });
  const ours = <T extends { name: string }>(items: T[]) => items.filter((i) => names.has(i.name));
  return {
    creates: ours(plan.creates),
    updates: ours(plan.updates),
    deletes: ours(plan.deletes),
    conflicts: ours(plan.conflicts),
    records: ours(plan.records),
    undecodable: plan.undecodable,
  };
}
