// Merges the desired records of all resources into one record set per name and type.
// Rules (deterministic, and giving the answers external-dns gives):
// - address and SRV records of one name and type are the union over the resources; a target
//   wanted by several resources is written once, for the "leading" resource: the one already
//   owning the record set in etcd, else the lowest resource id;
// - a record set has one TTL: the leading resource's; a resource asking for another is reported;
// - a CNAME cannot share its name: when the name also has other types, the CNAME loses; of
//   several CNAME targets only the leading resource's lowest target is kept.
import type { DesiredRecord } from '../desired-record.ts';

export interface Conflict {
  /** RecordConflict: resources disagree; NameOwnedByOthers: the name or key is not ours. */
  reason: 'RecordConflict' | 'NameOwnedByOthers';
  /** The resource whose wish was not (fully) followed. */
  resource: string;
  name: string;
  message: string;
}

export interface MergeResult {
  records: DesiredRecord[];
  conflicts: Conflict[];
}

/** `incumbent(name, type)` is the resource owning that record set in etcd now, if any. */
export function mergeRecords(
  desired: readonly DesiredRecord[],
  incumbent: (name: string, type: string) => string | undefined = () => undefined,
): MergeResult {
  const byName = new Map<string, Map<string, DesiredRecord[]>>();
  for (const r of desired) {
    let types = byName.get(r.name);
    if (!types) byName.set(r.name, (types = new Map()));
    const list = types.get(r.type);
    if (list) list.push(r);
    else types.set(r.type, [r]);
  }

  const records: DesiredRecord[] = [];
  const conflicts: Conflict[] = [];
  const conflict = (resource: string, name: string, message: string) =>
    conflicts.push({ reason: 'RecordConflict', resource, name, message });
  for (const name of [...byName.keys()].sort()) {
    const types = byName.get(name)!;
    for (const type of [...types.keys()].sort()) {
      const all = types.get(type)!;
      const resources = [...new Set(all.map((r) => r.resource))].sort();
      const current = incumbent(name, type);
      const leader = current !== undefined && resources.includes(current) ? current : resources[0]!;
      const leaderTtl = all.find((r) => r.resource === leader)!.ttl;
      if (type === 'CNAME') {
        const others = [...types.keys()].filter((t) => t !== 'CNAME');
        if (others.length > 0) {
          for (const resource of resources)
            conflict(
              resource,
              name,
              `CNAME ${name} cannot coexist with its other records (${others.join(', ')}); the CNAME is left out`,
            );
          continue;
        }
        const chosen = dedupe(
          all.filter((r) => r.resource === leader),
          leader,
        )[0]!;
        const dropped = all.filter((r) => r.target !== chosen.target);
        for (const resource of new Set(dropped.map((r) => r.resource))) {
          conflict(
            resource,
            name,
            `${name} can have only one CNAME; ${chosen.target} (${leader}) is kept, ${dropped
              .filter((r) => r.resource === resource)
              .map((r) => r.target)
              .join(', ')} left out`,
          );
        }
        records.push(chosen);
        continue;
      }
      for (const resource of resources) {
        const ttl = all.find((r) => r.resource === resource)!.ttl;
        if (ttl !== leaderTtl)
          conflict(
            resource,
            name,
            `${type} records of ${name} use the ttl of ${leader} (${leaderTtl ?? 'default'}), not ${ttl ?? 'default'}`,
          );
      }
      for (const r of dedupe(all, leader)) records.push(r.ttl === leaderTtl ? r : withTtl(r, leaderTtl));
    }
  }
  return { records, conflicts };
}

function withTtl(r: DesiredRecord, ttl: number | undefined): DesiredRecord {
  const { ttl: _dropped, ...rest } = r;
  return ttl === undefined ? rest : { ...rest, ttl };
}

function identity(r: DesiredRecord): string {
  return `${r.target} ${r.port ?? ''} ${r.priority ?? ''} ${r.weight ?? ''}`;
}

/** One record per target, sorted; a target wanted by several resources goes to the leader, else the lowest. */
function dedupe(records: DesiredRecord[], leader: string): DesiredRecord[] {
  const unique = new Map<string, DesiredRecord>();
  for (const r of records) {
    const seen = unique.get(identity(r));
    const better =
      !seen ||
      (r.resource === leader && seen.resource !== leader) ||
      (seen.resource !== leader && r.resource < seen.resource);
    if (better) unique.set(identity(r), r);
  }
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
