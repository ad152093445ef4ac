// The few DNS code points the server speaks, as plain constants (no enums: type stripping).

export const TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  /** Delegation Signer: parent-side data at a zone cut (RFC 4035 3.1.4.1). */
  DS: 43,
  TSIG: 250,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
} as const;

/** The header's OPCODE of a dynamic update (RFC 2136). */
export const OPCODE_UPDATE = 5;

/** CH: CHAOS, where servers answer who they are (id.server., version.bind.). */
export const CLASS = { IN: 1, CH: 3, NONE: 254, ANY: 255 } as const;

/** The DNSSEC OK bit of the OPT record's TTL field (RFC 3225). */
export const EDNS_DO = 0x8000;

export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  /** UPDATE (RFC 2136 2.2): a name that should not exist does, an RRset that should not exist does, one that should does not. */
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  /** The TSIG check failed (RFC 8945); UPDATE: a zone we are not authoritative for (RFC 2136). */
  NOTAUTH: 9,
  /** UPDATE: a name outside the zone of the zone section (RFC 2136 2.2). */
  NOTZONE: 10,
  /** Extended (EDNS) rcode: its high bits travel in the OPT record. */
  BADVERS: 16,
} as const;

const TYPE_NAMES = new Map<number, string>(Object.entries(TYPE).map(([name, code]) => [code, name]));
const RCODE_NAMES = new Map<number, string>(Object.entries(RCODE).map(([name, code]) => [code, name]));

/** "A", "AAAA", ... or "other": bounded label values for metrics. */
export function typeName(code: number): string {
  return TYPE_NAMES.get(code) ?? 'other';
}

export function rcodeName(code: number): string {
  return RCODE_NAMES.get(code) ?? `RCODE${code}`;
}
