// The planner: desired records for one prefix + the entries under that prefix -> the changes.
// Pure. This is the unit a view is planned with (its records already rewritten for the view).
import { encodeEntry } from '../../../skydns/skydns-entry.ts';
import type { Policy } from '../../../config/controller-config.ts';
import { resourceId, resourcePrefixOf, type DesiredRecord } from '../desired-record.ts';
import { classifyEntries, type CurrentEntry } from './current-entries.ts';
import { layOut } from './layout.ts';
import { mergeRecords, type Conflict } from './merge.ts';

export interface PlanInput {
  prefix: string;
  ownerId: string;
  policy: Policy;
  /** Take over what external-dns wrote for this owner id (see external-dns-adoption.ts). */
  adoptExternalDnsOwner?: string;
  /** Zone apexes (canonical): their records are laid out below dns/apex/, and no CNAME goes there. */
  apexes?: ReadonlySet<string>;
  /**
   * Resource id prefixes ("httproute") whose objects cannot be read now (a CRD not installed): our
   * entries of those resources are kept as they are, neither deleted nor counted as published.
   */
  unseen?: ReadonlySet<string>;
  desired: readonly DesiredRecord[];
  current: readonly CurrentEntry[];
}

export interface Change {
  name: string;
  key: string;
  /** What is there now (updates and deletes); its modRevision guards the write. */
  before?: { value: string; modRevision: string };
  /** The encoded value to write (creates and updates). */
  after?: string;
}

export interface Plan {
  creates: Change[];
  updates: Change[];
  deletes: Change[];
  conflicts: Conflict[];
  /** The merged records the plan publishes (for metrics). */
  records: DesiredRecord[];
  /** Values under the prefix that are not SkyDNS entries: skipped, never touched. */
  undecodable: { key: string; error: string }[];
}

export function isEmptyPlan(plan: Plan): boolean {
  return plan.creates.length + plan.updates.length + plan.deletes.length === 0;
}

export function planPrefix(input: PlanInput): Plan {
  const current = classifyEntries(
    input.current,
    input.ownerId,
    input.prefix,
    input.adoptExternalDnsOwner,
    input.apexes,
  );
  const merged = mergeRecords(input.desired, current.incumbent);
  const conflicts = [...merged.conflicts];
  const plan: Plan = {
    creates: [],
    updates: [],
    deletes: [],
    conflicts,
    records: [],
    undecodable: current.undecodable,
  };

  const ptrNames = new Set<string>();
  const firstPtr = (name: string) => !ptrNames.has(name) && Boolean(ptrNames.add(name));
  const wanted = new Map<string, { name: string; value: string }>();
  const refused = new Set<string>();
  for (const record of merged.records) {
    // Never move into a name that answers with someone else's data.
    if (current.foreignNames.has(record.name) && !current.ownedNames.has(record.name)) {
      const id = `${record.name} ${resourceId(record.object)}`;
      if (!refused.has(id)) {
        refused.add(id);
        conflicts.push({
          reason: 'NameOwnedByOthers',
          object: record.object,
          name: record.name,
          message: `${record.name} already has entries we do not own (another owner or hand-written); it is left alone`,
        });
      }
      continue;
    }
    const apex = input.apexes?.has(record.name) ?? false;
    if (apex && record.type === 'CNAME') {
      conflicts.push({
        reason: 'RecordConflict',
        object: record.object,
        name: record.name,
        message: `${record.name} is a zone apex: a CNAME cannot stand beside its SOA and NS (RFC 1034); it is left out`,
      });
      continue;
    }
    const laid = layOut(record, input.prefix, input.ownerId, {
      atExactKey: record.type === 'PTR' && firstPtr(record.name),
      apex,
    });
    if (current.foreignKeys.has(laid.key)) {
      conflicts.push({
        reason: 'NameOwnedByOthers',
        object: record.object,
        name: record.name,
        message: `key ${laid.key} holds an entry we do not own; it is left alone`,
      });
      continue;
    }
    wanted.set(laid.key, { name: laid.name, value: encodeEntry(laid.entry) });
    plan.records.push(record);
  }

  for (const [key, { name, value }] of wanted) {
    const existing = current.owned.get(key);
    if (!existing) plan.creates.push({ name, key, after: value });
    else if (existing.canonical !== value && input.policy !== 'create-only') {
      plan.updates.push({
        name,
        key,
        before: { value: existing.value, modRevision: existing.modRevision },
        after: value,
      });
    }
  }
  // Adopted entries of a name we now publish are replaced whatever the policy: the name moves to
  // our layout in one transaction (a name's creates and deletes are applied together).
  const published = new Set([...wanted.values()].map((w) => w.name));
  const unseen = (resource: string | undefined) =>
    resource !== undefined && input.unseen?.has(resourcePrefixOf(resource));
  for (const [key, existing] of current.owned) {
    if (wanted.has(key) || (!existing.adopted && unseen(existing.entry.resource))) continue;
    if (input.policy === 'sync' || (existing.adopted && published.has(existing.name))) {
      plan.deletes.push({
        name: existing.name,
        key,
        before: { value: existing.value, modRevision: existing.modRevision },
      });
    }
  }
  const byKey = (a: Change, b: Change) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  plan.creates.sort(byKey);
  plan.updates.sort(byKey);
  plan.deletes.sort(byKey);
  return plan;
}
