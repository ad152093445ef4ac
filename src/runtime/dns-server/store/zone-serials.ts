// A zone's SOA serial is the etcd revision of its last change, so that a serial names a state of
// the zone etcd can give back (IXFR reads the zone at the secondary's serial). After a full load
// the newest key's mod revision is all the copy knows, and deletions after it left no key behind:
// then that revision names an older state. Every change after it was a deletion (no key is
// newer), so the zone is unchanged since then exactly when etcd counted as many keys in it then
// as now; otherwise (or when that history is compacted) the load's own revision names the state.
import type { RecordIndex } from './record-index.ts';
import { COMPACTED, type ZoneHistory } from './zone-history.ts';

export async function settleSerials(index: RecordIndex, zones: readonly string[], history: ZoneHistory): Promise<void> {
  await Promise.all(
    zones.map(async (zone) => {
      const serial = index.serial(zone);
      if (serial >= index.revision) return;
      // No key at all: whatever it held before is gone, and when is not known.
      if (serial === 0) return index.raiseSerial(zone, index.revision);
      const [then, now] = await Promise.all([history.countAt(zone, serial), history.countAt(zone, index.revision)]);
      if (then === COMPACTED || now === COMPACTED || then !== now) index.raiseSerial(zone, index.revision);
    }),
  );
}
