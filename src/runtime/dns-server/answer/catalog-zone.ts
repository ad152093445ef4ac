// The catalog zone (RFC 9432, version 2): the zones a server transfers, as a zone of their own
// that BIND (catalog-zones) and Knot (catalog-role: interpret) read to add and remove member
// zones. It is made from the config, not from etcd: its records are fixed for the life of the
// process, and its serial is the second the process started (the Unix time, as Knot's
// `serial-policy: unixtime`), so a restart with other members always has a newer one.
import { createHash } from 'node:crypto';
import { canonicalName, isInZone } from '../../../dns/dns-name.ts';
import { CLASS, RCODE, TYPE } from '../wire/dns-constants.ts';
import type { Answer, ResourceRecord } from '../wire/dns-message.ts';
import { below, soaRecord } from './resolver.ts';
import type { Zone } from './zones.ts';

/** The one schema version written (RFC 9432 4.2.1): "2". */
export const CATALOG_VERSION = '2';
/** RFC 9432 4.1: the NS set is required, and is never used; "invalid." is the recommended one. */
const INVALID = 'invalid.';

/**
 * A member's unique id (RFC 9432 4.3.1): one label, the same for a zone in every process and
 * every release (the first 16 hex digits of the SHA-256 of its canonical name), so a member
 * keeps its id and a secondary never sees it removed and added again.
 */
export function memberId(zone: string): string {
  return createHash('sha256').update(canonicalName(zone)).digest('hex').slice(0, 16);
}

/**
 * The catalog's apex as a zone: SOA "invalid. invalid.", an expire so long the catalog does not
 * expire on a secondary cut off from us, TTL 0 everywhere (nobody resolves a catalog).
 */
export function catalogApex(name: string): Zone {
  return {
    name: canonicalName(name),
    defaultTtl: 0,
    mname: INVALID,
    rname: INVALID,
    refresh: 3600,
    retry: 600,
    expire: 2147483646,
    minimum: 0,
    nameServers: [{ name: INVALID, addresses: [] }],
  };
}

/** Every record of the catalog but its SOA: NS, version and one PTR per member (sorted by id). */
export function catalogRecords(apex: Zone, members: readonly string[]): ResourceRecord[] {
  const zones = below('zones', apex.name);
  const ptrs = [...new Set(members.map(canonicalName))]
    .map((member) => ({ id: memberId(member), member }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [
    { name: apex.name, ttl: 0, type: TYPE.NS, target: INVALID },
    { name: below('version', apex.name), ttl: 0, type: TYPE.TXT, text: [Buffer.from(CATALOG_VERSION)] },
    ...ptrs.map(({ id, member }): ResourceRecord => ({
      name: below(id, zones),
      ttl: 0,
      type: TYPE.PTR,
      target: member,
    })),
  ];
}

/** The catalog one process serves: its apex, serial and records, and the answers to questions in it. */
export class CatalogZone {
  readonly zone: Zone;
  readonly serial: number;
  readonly members: readonly string[];
  readonly records: readonly ResourceRecord[];

  constructor(name: string, members: readonly string[], serial: number) {
    this.zone = catalogApex(name);
    this.serial = serial;
    this.members = members;
    this.records = catalogRecords(this.zone, members);
  }

  soa(): ResourceRecord {
    return soaRecord(this.zone, this.serial);
  }

  /**
   * The answer to a question in the catalog (as the resolver's for a zone), or undefined for a name
   * outside it. No `zone`: the cache then keeps the serial written here, which is the catalog's for
   * the life of the process (the cache's own serial patch reads the etcd copy's zones).
   */
  answer(name: string, type: number, qclass: number): Answer | undefined {
    const zone = this.zone.name;
    if (!isInZone(name, zone)) return undefined;
    const negative = (rcode: number): Answer => ({
      rcode,
      authoritative: true,
      answer: [],
      authority: [this.soa()],
      additional: [],
    });
    if ((qclass !== CLASS.IN && qclass !== CLASS.ANY) || type === TYPE.AXFR || type === TYPE.IXFR)
      return { rcode: RCODE.REFUSED, authoritative: false, answer: [], authority: [], additional: [] };
    const atName =
      name === zone
        ? [this.soa(), ...this.records.filter((r) => r.name === name)]
        : this.records.filter((r) => r.name === name);
    const answer = atName.filter((r) => type === TYPE.ANY || r.type === type);
    if (answer.length > 0) return { rcode: RCODE.NOERROR, authoritative: true, answer, authority: [], additional: [] };
    // A name with records, or with names below it ("zones.<catalog>"), exists: NODATA.
    const exists = atName.length > 0 || this.records.some((r) => isInZone(r.name, name));
    return negative(exists ? RCODE.NOERROR : RCODE.NXDOMAIN);
  }
}
