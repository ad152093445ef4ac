// Merges the desired records of all resources into one record set per name and type.
// Conflict rule (deterministic, as external-dns resolves it): for each name and type one resource
// wins — the one that already owns it in etcd, else the lowest resource id — and the others are
// reported. A CNAME cannot share its name: when a name also has other types, the CNAME loses;
// of several CNAME targets the lowest wins.
import type { DesiredRecord } from '../desired-record.ts';

export interface Conflict {
  /** RecordConflict: resources disagree; NameOwnedByOthers: the name or key is not ours. */
  reason: 'RecordConflict' | 'NameOwnedByOthers';
  /** The resource whose records were left out. */
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
  const byName = new Map<string, Map<string, Map<string, DesiredRecord[]>>>();
  for (const r of desired) {
    let types = byName.get(r.name);
    if (!types) byName.set(r.name, (types = new Map()));
    let resources = types.get(r.type);
    if (!resources) types.set(r.type, (resources = new Map()));
    const list = resources.get(r.resource);
    if (list) list.push(r);
    else resources.set(r.resource, [r]);
  }

  const records: DesiredRecord[] = [];
  const conflicts: Conflict[] = [];
  for (const name of [...byName.keys()].sort()) {
    const types = byName.get(name)!;
    for (const type of [...types.keys()].sort()) {
      const resources = types.get(type)!;
      const candidates = [...resources.keys()].sort();
      const current = incumbent(name, type);
      const winner = current !== undefined && resources.has(current) ? current : candidates[0]!;
      for (const loser of candidates) {
        if (loser === winner) continue;
        conflicts.push({
          reason: 'RecordConflict',
          resource: loser,
          name,
          message: `${type} records of ${name} are also wanted by ${winner}, which keeps them`,
        });
      }
      let chosen = dedupe(resources.get(winner)!);
      if (type === 'CNAME') {
        if (types.size > 1) {
          conflicts.push({
            reason: 'RecordConflict',
            resource: winner,
            name,
            message: `CNAME ${name} cannot coexist with its other records (${[...types.keys()].filter((t) => t !== 'CNAME').join(', ')}); the CNAME is left out`,
          });
          continue;
        }
        if (chosen.length > 1) {
          conflicts.push({
            reason: 'RecordConflict',
            resource: winner,
            name,
            message: `${name} can have only one CNAME; ${chosen[0]!.target} is kept, ${chosen
              .slice(1)
              .map((r) => r.target)
              .join(', ')} left out`,
          });
          chosen = chosen.slice(0, 1);
        }
      }
      records.push(...chosen);
    }
  }
  return { records, conflicts };
}

function identity(r: DesiredRecord): string {
  return `${r.target} ${r.port ?? ''} ${r.priority ?? ''} ${r.weight ?? ''}`;
}

function dedupe(records: DesiredRecord[]): DesiredRecord[] {
  const unique = new Map<string, DesiredRecord>();
  for (const r of records) if (!unique.has(identity(r))) unique.set(identity(r), r);
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
