// Reads a query straight from its bytes: header, the one question, and the OPT record. This is
// the per-packet hot path, so it does not build a dns2 Packet; it only validates what we use and
// tells which error (FORMERR, NOTIMP) a malformed or unsupported message gets.
import { RCODE, TYPE } from './dns-constants.ts';

export interface Edns {
  payloadSize: number;
  version: number;
  dnssecOk: boolean;
}

export interface QueryHeader {
  id: number;
  opcode: number;
  /** End of the question section, when it parsed (0 otherwise): its bytes are echoed back. */
  questionEnd: number;
  edns: Edns | undefined;
}

export interface ParsedQuery extends QueryHeader {
  kind: 'query';
  /**
   * The question name as it is on the wire (length bytes and labels, latin1), lower-cased: a cheap
   * cache key. `nameFromWire` makes the dotted name of it when the resolver needs one.
   */
  wireName: string;
  type: number;
  class: number;
  /** A TSIG record ends the message (RFC 8945): the answer must be signed, or refused. */
  signed: boolean;
}

export type ParseResult =
  ParsedQuery | { kind: 'drop' } | (QueryHeader & { kind: 'error'; rcode: number; reason: string });

const HEADER = 12;
const MAX_NAME = 255;

/** Offset after a (possibly compressed) name starting at `off`, or -1 when it runs off the end. */
function skipName(msg: Buffer, off: number): number {
  while (off < msg.length) {
    const len = msg[off]!;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2 <= msg.length ? off + 2 : -1;
    if (len & 0xc0) return -1;
    off += 1 + len;
  }
  return -1;
}

export function parseQuery(msg: Buffer): ParseResult {
  // Too short to carry an ID, or a response (QR set): nothing sensible to answer.
  if (msg.length < HEADER || msg[2]! & 0x80) return { kind: 'drop' };
  const id = msg.readUInt16BE(0);
  const opcode = (msg[2]! >> 3) & 0x0f;
  const header: QueryHeader = { id, opcode, questionEnd: 0, edns: undefined };
  const fail = (rcode: number, reason: string): ParseResult => ({ kind: 'error', ...header, rcode, reason });

  if (opcode !== 0) return fail(RCODE.NOTIMP, `opcode ${opcode} is not QUERY`);
  if (msg.readUInt16BE(4) !== 1) return fail(RCODE.FORMERR, 'question count is not 1');

  let off = HEADER;
  let wireLength = 1;
  for (;;) {
    if (off >= msg.length) return fail(RCODE.FORMERR, 'question name runs past the message');
    const len = msg[off]!;
    if (len === 0) {
      off += 1;
      break;
    }
    if (len & 0xc0) return fail(RCODE.FORMERR, 'compressed or invalid label in the question');
    wireLength += len + 1;
    if (wireLength > MAX_NAME) return fail(RCODE.FORMERR, 'question name longer than 255 octets');
    if (off + 1 + len > msg.length) return fail(RCODE.FORMERR, 'question label runs past the message');
    off += 1 + len;
  }
  const wireName = msg.toString('latin1', HEADER, off).toLowerCase();
  if (off + 4 > msg.length) return fail(RCODE.FORMERR, 'question type and class missing');
  const type = msg.readUInt16BE(off);
  const qclass = msg.readUInt16BE(off + 2);
  off += 4;
  header.questionEnd = off;

  // RFC 1995: an IXFR request carries the secondary's SOA in the authority section.
  const authority = type === TYPE.IXFR ? msg.readUInt16BE(8) : 0;
  if (msg.readUInt16BE(6) !== 0 || msg.readUInt16BE(8) !== authority) {
    return fail(RCODE.FORMERR, 'a query carries no answer or authority records');
  }
  const additional = authority + msg.readUInt16BE(10);
  let signed = false;
  for (let i = 0; i < additional; i++) {
    const start = off;
    off = skipName(msg, off);
    if (off < 0 || off + 10 > msg.length) return fail(RCODE.FORMERR, 'additional record runs past the message');
    const rrType = msg.readUInt16BE(off);
    const rdLength = msg.readUInt16BE(off + 8);
    // RFC 8945 5.1: the TSIG record is the last one.
    if (rrType === TYPE.TSIG) {
      if (i !== additional - 1) return fail(RCODE.FORMERR, 'a TSIG record that is not the last one');
      signed = true;
    }
    if (off + 10 + rdLength > msg.length) return fail(RCODE.FORMERR, 'additional record data runs past the message');
    if (rrType === TYPE.OPT) {
      // RFC 6891: one OPT, owned by the root name.
      if (header.edns || msg[start] !== 0) return fail(RCODE.FORMERR, 'more than one OPT record, or not at the root');
      const ttl = msg.readUInt32BE(off + 4);
      header.edns = {
        payloadSize: msg.readUInt16BE(off + 2),
        version: (ttl >>> 16) & 0xff,
        dnssecOk: (ttl & 0x8000) !== 0,
      };
    }
    off += 10 + rdLength;
  }
  return {
    kind: 'query',
    ...header,
    wireName,
    type,
    class: qclass,
    signed,
  };
}

/** "\x03www\x07example\x03org\x00" -> "www.example.org."; undefined when a label holds a ".". */
export function nameFromWire(wireName: string): string | undefined {
  let name = '';
  for (let off = 0; off < wireName.length - 1;) {
    const len = wireName.charCodeAt(off);
    const label = wireName.slice(off + 1, off + 1 + len);
    if (label.includes('.')) return undefined;
    name += `${label}.`;
    off += 1 + len;
  }
  return name === '' ? '.' : name;
}
