// Merges the desired records of all resources into one record set per name and type, giving the
// answers external-dns gives (v0.22: each source merges its resources' endpoints, then the plan's
// conflict resolver keeps one endpoint per name and type):
// - within one source (Services, or Ingresses), address and SRV records of one name and type are
//   the union over the resources; a target wanted by several resources is written once, for the
//   "leading" resource: the one already owning the record set in etcd, else the lowest resource id;
// - when both sources want one name and type, one source's record set is kept whole: the one of
//   the resource already owning it in etcd, else the one whose targets come first in
//   external-dns's order (target-order.ts); the other source's resources are reported;
// - a record set has one TTL: the leading resource's; a resource asking for another is reported;
// - a CNAME cannot share its name: when the name also has other types, the CNAME loses; of
//   several CNAME targets only the leading resource's lowest target is kept.
import { resourceId, type DesiredRecord, type ObjectRef } from '../desired-record.ts';
import { compareTargetSets } from './target-order.ts';

export interface Conflict {
  /** RecordConflict: resources disagree; NameOwnedByOthers: the name or key is not ours. */
  reason: 'RecordConflict' | 'NameOwnedByOthers';
  /** The resource whose wish was not (fully) followed. */
  object: ObjectRef;
  name: string;
  message: string;
}

export interface MergeResult {
  records: DesiredRecord[];
  conflicts: Conflict[];
}

/** `incumbent(name, type)` is the resource id owning that record set in etcd now, if any. */
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
  const conflict = (object: ObjectRef, name: string, message: string) =>
    conflicts.push({ reason: 'RecordConflict', object, name, message });
  for (const name of [...byName.keys()].sort()) {
    const types = byName.get(name)!;
    for (const type of [...types.keys()].sort()) {
      const current = incumbent(name, type);
      // A CNAME beside other types is left out below whichever source wants it.
      const cnameLoses = type === 'CNAME' && types.size > 1;
      const all = cnameLoses ? types.get(type)! : oneSource(types.get(type)!, current, name, type, conflict);
      const resources = byId(all);
      const ids = resources.map(([id]) => id);
      const leader = current !== undefined && ids.includes(current) ? current : ids[0]!;
      const leaderTtl = all.find((r) => resourceId(r.object) === leader)!.ttl;
      if (type === 'CNAME') {
        if (cnameLoses) {
          // Sorted: the message must not depend on the order the objects' records came in.
          const others = [...types.keys()].filter((t) => t !== 'CNAME').sort();
          for (const [, object] of resources)
            conflict(
              object,
              name,
              `CNAME ${name} cannot coexist with its other records (${others.join(', ')}); the CNAME is left out`,
            );
          continue;
        }
        const chosen = dedupe(
          all.filter((r) => resourceId(r.object) === leader),
          leader,
        )[0]!;
        const dropped = all.filter((r) => r.target !== chosen.target);
        for (const [id, object] of resources) {
          const left = dropped.filter((r) => resourceId(r.object) === id);
          if (left.length === 0) continue;
          conflict(
            object,
            name,
            `${name} can have only one CNAME; ${chosen.target} (${leader}) is kept, ${left.map((r) => r.target).join(', ')} left out`,
          );
        }
        records.push(chosen);
        continue;
      }
      for (const [id, object] of resources) {
        const ttl = all.find((r) => resourceId(r.object) === id)!.ttl;
        if (ttl !== leaderTtl)
          conflict(
            object,
            name,
            `${type} records of ${name} use the ttl of ${leader} (${leaderTtl ?? 'default'}), not ${ttl ?? 'default'}`,
          );
      }
      for (const r of dedupe(all, leader)) records.push(r.ttl === leaderTtl ? r : withTtl(r, leaderTtl));
    }
  }
  return { records, conflicts };
}

/**
 * The records of the one source (kind) that keeps a name and type: the incumbent's source, else
 * the source whose targets come first. The others' resources are reported.
 */
function oneSource(
  all: DesiredRecord[],
  current: string | undefined,
  name: string,
  type: string,
  conflict: (object: ObjectRef, name: string, message: string) => void,
): DesiredRecord[] {
  const bySource = new Map<ObjectRef['kind'], DesiredRecord[]>();
  for (const r of all) bySource.set(r.object.kind, [...(bySource.get(r.object.kind) ?? []), r]);
  if (bySource.size === 1) return all;
  // Sorted, so a message does not depend on the order the records came in (full or incremental plan).
  const targets = (rs: DesiredRecord[]) => [...new Set(rs.map((r) => r.target))].sort();
  const [kept, ...others] = [...bySource.values()].sort((a, b) => {
    const owns = (rs: DesiredRecord[]) => rs.some((r) => resourceId(r.object) === current);
    if (owns(a) !== owns(b)) return owns(a) ? -1 : 1;
    return compareTargetSets(targets(a), targets(b)) || (a[0]!.object.kind < b[0]!.object.kind ? -1 : 1);
  });
  const winner = kept![0]!.object.kind;
  for (const rs of others) {
    for (const [id, object] of byId(rs)) {
      const left = targets(rs.filter((r) => resourceId(r.object) === id));
      conflict(
        object,
        name,
        `${type} ${name}: the ${winner} record set (${targets(kept!).join(', ')}) is kept, this ${object.kind}'s ${left.join(', ')} left out (as external-dns, one source's records per name)`,
      );
    }
  }
  return kept!;
}

/** The resources of `records`, each once, ordered by resource id. */
function byId(records: DesiredRecord[]): [string, ObjectRef][] {
  const ids = new Map(records.map((r) => [resourceId(r.object), r.object]));
  return [...ids].sort(([a], [b]) => (a < b ? -1 : 1));
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
    const [id, seenId] = [resourceId(r.object), seen && resourceId(seen.object)];
    const better = !seen || (id === leader && seenId !== leader) || (seenId !== leader && id < seenId!);
    if (better) unique.set(identity(r), r);
  }
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
