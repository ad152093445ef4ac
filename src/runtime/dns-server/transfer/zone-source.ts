// The narrow side of the record/transfer boundary: all zone transfer reads of the records. The
// process at the top hands it the answering side's (answer/zone-records.ts); transfer keeps access,
// TSIG and the splitting into messages, and imports nothing of the records itself.
import type { ResourceRecord, ZoneChanges } from '../wire/dns-message.ts';

/** A zone as transfer sees it: its apex, canonical. */
export interface TransferZone {
  readonly name: string;
}

export interface ZoneSource<Z extends TransferZone> {
  /** The zone whose apex is `name`, if it is one of ours (transfers start at the apex). */
  apex(name: string): Z | undefined;
  /** The zone's serial now. */
  serial(zone: Z): number;
  soa(zone: Z, serial: number): ResourceRecord;
  /** Every record of the zone but its SOA, and the serial they are of. */
  records(zone: Z): Promise<{ serial: number; records: ResourceRecord[] }>;
  /** The records of the names changed since the serial `from`. */
  changesSince(zone: Z, from: number): Promise<ZoneChanges>;
}
