// Which policy merges a name at a hub (issue 34): the name's own when its contributors' entries
// set one (a spoke's annotation or DNSEndpoint label, src/skydns/name-policy.ts), else its zone's
// (hub.zones). Answers, zone transfers and the name's explanation all choose through here. Pure.
//
// The first counting contributor, in the hub's cluster order, whose entries name a policy sets it
// (with none counting: the first contributor), so a cluster that is gone cannot steer the name;
// contributors that ask another are listed, not obeyed. A cluster's weight for the name
// (hubweight) replaces the zone's weight for it; by a name's own `weighted`, a contributor that
// gives none weighs 1.
import { entryNamePolicy, type NamePolicy } from '../../../skydns/name-policy.ts';
import type { StoredEntry } from '../store/record-index.ts';
import type { Contribution, MergePolicy } from './cluster-merge.ts';

export interface ChosenPolicy {
  policy: MergePolicy;
  /** The cluster whose entries set it; undefined: the zone's. */
  setBy: string | undefined;
  /** Contributors whose entries ask for another policy (not obeyed). */
  overruled: string[];
}

/** What a cluster's entries say of the name: the first that names a policy, and any weight. */
function said(entries: readonly StoredEntry[]): NamePolicy | undefined {
  let found: NamePolicy | undefined;
  for (const { entry } of entries) {
    if (entry.hubpolicy === undefined && entry.hubweight === undefined) continue;
    const p = entryNamePolicy(entry);
    if (!p) continue;
    found = { ...p, ...found };
    if (found.policy !== undefined && found.weight !== undefined) break;
  }
  return found;
}

export function chooseNamePolicy(zone: MergePolicy, contributions: readonly Contribution<StoredEntry>[]): ChosenPolicy {
  const present = contributions.filter((c) => c.entries.length > 0);
  const counting = present.filter((c) => c.counts);
  const candidates = counting.length > 0 ? counting : present;
  const says = new Map<string, NamePolicy>();
  for (const c of candidates) {
    const p = said(c.entries);
    if (p) says.set(c.cluster, p);
  }
  if (says.size === 0) return { policy: zone, setBy: undefined, overruled: [] };
  const setBy = candidates.find((c) => says.get(c.cluster)?.policy !== undefined)?.cluster;
  const own = setBy === undefined ? undefined : says.get(setBy)!;
  const overruled = [...says].filter(([, p]) => p.policy !== undefined && own && !samePolicy(p, own)).map(([c]) => c);
  let policy: MergePolicy;
  switch (own?.policy) {
    case undefined:
      policy = zone;
      break;
    case 'all':
      policy = { kind: 'all' };
      break;
    case 'failover':
      policy = { kind: 'failover', order: own.order ?? [] };
      break;
    case 'prefer':
    case 'prefer-alone':
      policy = { kind: 'prefer', alone: own.policy === 'prefer-alone' };
      break;
    case 'weighted':
      policy = { kind: 'weighted', weights: {} };
      break;
  }
  if (policy.kind === 'weighted') {
    // By the zone's weighted, its weights; by the name's own, none (1 each) but what entries say.
    const weights: Record<string, number> = { ...(own ? {} : policy.weights) };
    for (const c of present) {
      const w = says.get(c.cluster)?.weight ?? (own ? 1 : undefined);
      if (w !== undefined) weights[c.cluster] = w;
    }
    policy = { kind: 'weighted', weights };
  }
  return { policy, setBy, overruled };
}

function samePolicy(a: NamePolicy, b: NamePolicy): boolean {
  return a.policy === b.policy && (a.order ?? []).join(',') === (b.order ?? []).join(',');
}
