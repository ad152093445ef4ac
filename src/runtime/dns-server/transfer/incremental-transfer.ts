// IXFR's answer (RFC 1995 4) from two states of a zone: the secondary's (at its serial) and ours.
// Pure. One difference sequence: the new SOA, then the old SOA and the records to delete, then the
// new SOA and the records to add, and the new SOA to close.
import { recordKey, type ResourceRecord } from '../wire/dns-message.ts';

/** Records of `a` not in `b`, each once, in `a`'s order. */
function minus(a: readonly ResourceRecord[], b: ReadonlySet<string>): ResourceRecord[] {
  const seen = new Set<string>();
  return a.filter((r) => {
    const key = recordKey(r);
    if (b.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface IncrementalTransfer {
  records: ResourceRecord[];
  deleted: number;
  added: number;
}

/**
 * The IXFR records taking a secondary from `before` (under `oldSoa`) to `after` (under `newSoa`):
 * the records of the names that changed, or of the whole zone; undefined when that would be more
 * records than the whole zone (`zoneSize` records and two SOAs), which then goes instead
 * (RFC 1995 4 lets a server answer with the full zone).
 */
export function incrementalTransfer(
  oldSoa: ResourceRecord,
  newSoa: ResourceRecord,
  before: readonly ResourceRecord[],
  after: readonly ResourceRecord[],
  zoneSize: number = after.length,
): IncrementalTransfer | undefined {
  const deleted = minus(before, new Set(after.map(recordKey)));
  const added = minus(after, new Set(before.map(recordKey)));
  if (deleted.length + added.length + 4 > zoneSize + 2) return undefined;
  return {
    records: [newSoa, oldSoa, ...deleted, newSoa, ...added, newSoa],
    deleted: deleted.length,
    added: added.length,
  };
}
