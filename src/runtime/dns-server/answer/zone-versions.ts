// The versions of a zone this process transferred, as differences: what IXFR of a hub's merged
// zone answers from. etcd's history holds the member clusters' records but not which clusters
// counted, so it cannot give the merged zone at an earlier serial; the process keeps it instead.
// A secondary holds a serial only from a transfer, so recording each version transferred (AXFR
// or IXFR) is enough; one served by another process, or before a restart, is not known here and
// gets the whole zone (RFC 1995 4). Pure.
import { recordKey, type ResourceRecord } from '../wire/dns-message.ts';
import { wireSerial } from '../wire/soa-serial.ts';

/** The records a secondary deletes and adds to go from one version to another. */
export interface VersionDifference {
  deleted: ResourceRecord[];
  added: ResourceRecord[];
}

/** One step: from the version at `from` to the next one recorded. */
interface Step extends VersionDifference {
  from: number;
}

interface History {
  serial: number;
  /** The latest version's records, by recordKey. */
  records: Map<string, ResourceRecord>;
  /** Oldest first; the last one leads to `serial`. */
  steps: Step[];
  /** Records held in `steps`. */
  held: number;
}

/** Versions kept per zone; fewer when their differences hold more records than the zone. */
export const VERSIONS_KEPT = 100;

const byKey = (records: readonly ResourceRecord[]) => new Map(records.map((r) => [recordKey(r), r]));

/** What `after` has that `before` has not, and the reverse. */
export function versionDifference(
  before: ReadonlyMap<string, ResourceRecord>,
  after: ReadonlyMap<string, ResourceRecord>,
): VersionDifference {
  return {
    deleted: [...before].filter(([key]) => !after.has(key)).map(([, r]) => r),
    added: [...after].filter(([key]) => !before.has(key)).map(([, r]) => r),
  };
}

/** Steps in order, condensed into one difference: a record added then deleted (or the reverse) is in neither. */
export function condense(steps: readonly VersionDifference[]): VersionDifference {
  const net = new Map<string, { record: ResourceRecord; added: boolean }>();
  for (const step of steps)
    for (const [records, added] of [
      [step.deleted, false],
      [step.added, true],
    ] as const)
      for (const record of records) {
        const key = recordKey(record);
        if (net.get(key)?.added === !added) net.delete(key);
        else net.set(key, { record, added });
      }
  const of = (added: boolean) => [...net.values()].filter((n) => n.added === added).map((n) => n.record);
  return { deleted: of(false), added: of(true) };
}

export class ZoneVersions {
  private readonly zones = new Map<string, History>();
  private readonly kept: number;

  constructor(kept = VERSIONS_KEPT) {
    this.kept = kept;
  }

  /** The zone's records at `serial` (a version transferred; an older one than the latest is not kept). */
  record(zone: string, serial: number, records: readonly ResourceRecord[]): void {
    const history = this.zones.get(zone);
    if (!history) {
      this.zones.set(zone, { serial, records: byKey(records), steps: [], held: 0 });
      return;
    }
    // Two transfers walking at once may end out of order.
    if (serial <= history.serial) return;
    const now = byKey(records);
    const step = { from: history.serial, ...versionDifference(history.records, now) };
    history.steps.push(step);
    history.held += step.deleted.length + step.added.length;
    history.serial = serial;
    history.records = now;
    // An IXFR larger than the zone goes as the whole zone anyway (incremental-transfer.ts).
    while (history.steps.length > this.kept || (history.steps.length > 1 && history.held > now.size)) {
      const oldest = history.steps.shift()!;
      history.held -= oldest.deleted.length + oldest.added.length;
    }
  }

  /**
   * The difference from the version at `from` (a serial as on the wire) to the latest recorded
   * (and its serial), or undefined when no version at `from` is kept.
   */
  since(zone: string, from: number): (VersionDifference & { serial: number }) | undefined {
    const history = this.zones.get(zone);
    if (!history) return undefined;
    if (from === wireSerial(history.serial)) return { serial: history.serial, deleted: [], added: [] };
    const first = history.steps.findIndex((s) => wireSerial(s.from) === from);
    if (first < 0) return undefined;
    return { serial: history.serial, ...condense(history.steps.slice(first)) };
  }
}
