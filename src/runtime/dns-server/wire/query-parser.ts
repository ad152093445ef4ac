// Reads a query straight from its bytes, in one pass: header, the one question, and the OPT and
// TSIG records. This is the per-packet hot path, so it builds no dns2 Packet and no string: it
// validates what we use, hashes the question as it reads it (the answer cache's key), and tells
// which error (FORMERR, NOTIMP) a malformed or unsupported message gets.
import { EDNS_DO, RCODE, TYPE } from './dns-constants.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, idOf, isResponse, NSCOUNT, opcodeOf, QDCOUNT } from './header.ts';

export interface Edns {
  payloadSize: number;
  version: number;
  dnssecOk: boolean;
  /**
   * The client sent edns-tcp-keepalive (RFC 7828): "asked" as a query must (no TIMEOUT), else
   * "malformed" (FORMERR over TCP; ignored over UDP, as every keepalive option there). Absent: none.
   */
  keepalive?: 'asked' | 'malformed';
  /** The client sent the NSID option (RFC 5001): the answer carries the server's identifier. Absent: not asked. */
  nsid?: true;
}

/** EDNS option code of edns-tcp-keepalive (RFC 7828). */
export const KEEPALIVE_OPTION = 11;
/** EDNS option code of NSID (RFC 5001). */
export const NSID_OPTION = 3;

/** The options of an OPT record's rdata [start, end) the server acts on, set on `edns`. */
function readOptions(msg: Buffer, start: number, end: number, edns: Edns): void {
  for (let off = start; off + 4 <= end;) {
    const code = msg.readUInt16BE(off);
    const length = msg.readUInt16BE(off + 2);
    if (code === KEEPALIVE_OPTION) edns.keepalive ??= length === 0 ? 'asked' : 'malformed';
    // RFC 5001 2.1: a query's NSID option is empty; like BIND, any payload is ignored.
    else if (code === NSID_OPTION) edns.nsid = true;
    off += 4 + length;
  }
}

export interface QueryHeader {
  id: number;
  opcode: number;
  /** End of the question section, when it parsed (0 otherwise): its bytes are echoed back. */
  questionEnd: number;
  edns: Edns | undefined;
}

/** A query that parsed: what the rest of the server reads of it. */
export class ParsedQuery implements QueryHeader {
  readonly kind = 'query';
  readonly id: number;
  readonly opcode: number;
  readonly questionEnd: number;
  readonly edns: Edns | undefined;
  readonly type: number;
  readonly class: number;
  /**
   * A hash of the question (name lower-cased, type, class): with the size bucket, the answer
   * cache's key. Equal questions hash alike; `sameQuestion` tells apart the rare two that collide.
   */
  readonly questionHash: number;
  /** Where the TSIG record ending the message starts (RFC 8945), or -1: the answer must be signed, or refused. */
  readonly tsigStart: number;
  private readonly msg: Buffer;
  private wire: string | undefined;

  constructor(
    msg: Buffer,
    questionEnd: number,
    edns: Edns | undefined,
    type: number,
    qclass: number,
    hash: number,
    tsigStart: number,
  ) {
    this.msg = msg;
    this.id = idOf(msg);
    this.opcode = 0;
    this.questionEnd = questionEnd;
    this.edns = edns;
    this.type = type;
    this.class = qclass;
    this.questionHash = hash;
    this.tsigStart = tsigStart;
  }

  get signed(): boolean {
    return this.tsigStart >= 0;
  }

  /**
   * The question name as it is on the wire (length bytes and labels, latin1), lower-cased. Made
   * on first use (an answer not in the cache): `nameFromWire` makes the dotted name of it.
   */
  get wireName(): string {
    return (this.wire ??= this.msg.toString('latin1', HEADER_SIZE, this.questionEnd - 4).toLowerCase());
  }
}

export type ParseResult = ParsedQuery | { kind: 'drop' } | Failure;

const MAX_NAME = 255;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Hashes are kept to 30 bits: small integers, which V8 neither boxes nor hashes as doubles. */
export const HASH_BITS = 0x3fffffff;

type Failure = QueryHeader & { kind: 'error'; rcode: number; reason: string };

/** The answer to a query that did not parse (made only then: a query that parses allocates no header). */
function failure(msg: Buffer, questionEnd: number, edns: Edns | undefined, rcode: number, reason: string): Failure {
  return { kind: 'error', id: idOf(msg), opcode: opcodeOf(msg), questionEnd, edns, rcode, reason };
}

/** Offset after a (possibly compressed) name starting at `off`, or -1 when it runs off the end. */
export function skipName(msg: Buffer, off: number): number {
  while (off < msg.length) {
    const len = msg[off]!;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2 <= msg.length ? off + 2 : -1;
    if (len & 0xc0) return -1;
    off += 1 + len;
  }
  return -1;
}

/** An ASCII letter's lower case; every other byte as it is (names compare case-insensitively, RFC 4343). */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

const DROP = { kind: 'drop' } as const;

export function parseQuery(msg: Buffer): ParseResult {
  // Too short to carry an ID, or a response (QR set): nothing sensible to answer.
  if (msg.length < HEADER_SIZE || isResponse(msg)) return DROP;
  const opcode = opcodeOf(msg);
  if (opcode !== 0) return failure(msg, 0, undefined, RCODE.NOTIMP, `opcode ${opcode} is not QUERY`);
  if (msg.readUInt16BE(QDCOUNT) !== 1) return failure(msg, 0, undefined, RCODE.FORMERR, 'question count is not 1');

  let off = HEADER_SIZE;
  let hash = FNV_OFFSET;
  for (;;) {
    if (off >= msg.length) return failure(msg, 0, undefined, RCODE.FORMERR, 'question name runs past the message');
    const len = msg[off]!;
    hash = Math.imul(hash ^ len, FNV_PRIME);
    if (len === 0) {
      off += 1;
      break;
    }
    if (len & 0xc0) return failure(msg, 0, undefined, RCODE.FORMERR, 'compressed or invalid label in the question');
    if (off + 1 + len - HEADER_SIZE + 1 > MAX_NAME)
      return failure(msg, 0, undefined, RCODE.FORMERR, 'question name longer than 255 octets');
    if (off + 1 + len > msg.length)
      return failure(msg, 0, undefined, RCODE.FORMERR, 'question label runs past the message');
    const end = off + 1 + len;
    for (off += 1; off < end; off++) hash = Math.imul(hash ^ lower(msg[off]!), FNV_PRIME);
  }
  if (off + 4 > msg.length) return failure(msg, 0, undefined, RCODE.FORMERR, 'question type and class missing');
  const type = msg.readUInt16BE(off);
  const qclass = msg.readUInt16BE(off + 2);
  hash = Math.imul(hash ^ type, FNV_PRIME);
  hash = Math.imul(hash ^ qclass, FNV_PRIME);
  off += 4;
  const questionEnd = off;
  let edns: Edns | undefined;

  // RFC 1995: an IXFR request carries the secondary's SOA in the authority section.
  const authority = type === TYPE.IXFR ? msg.readUInt16BE(NSCOUNT) : 0;
  if (msg.readUInt16BE(ANCOUNT) !== 0 || msg.readUInt16BE(NSCOUNT) !== authority) {
    return failure(msg, questionEnd, edns, RCODE.FORMERR, 'a query carries no answer or authority records');
  }
  const additional = authority + msg.readUInt16BE(ARCOUNT);
  let tsigStart = -1;
  for (let i = 0; i < additional; i++) {
    const start = off;
    off = skipName(msg, off);
    if (off < 0 || off + 10 > msg.length)
      return failure(msg, questionEnd, edns, RCODE.FORMERR, 'additional record runs past the message');
    const rrType = msg.readUInt16BE(off);
    const rdLength = msg.readUInt16BE(off + 8);
    // RFC 8945 5.1: the TSIG record is the last one.
    if (rrType === TYPE.TSIG) {
      if (i !== additional - 1)
        return failure(msg, questionEnd, edns, RCODE.FORMERR, 'a TSIG record that is not the last one');
      tsigStart = start;
    }
    if (off + 10 + rdLength > msg.length)
      return failure(msg, questionEnd, edns, RCODE.FORMERR, 'additional record data runs past the message');
    if (rrType === TYPE.OPT) {
      // RFC 6891: one OPT, owned by the root name.
      if (edns || msg[start] !== 0)
        return failure(msg, questionEnd, edns, RCODE.FORMERR, 'more than one OPT record, or not at the root');
      const ttl = msg.readUInt32BE(off + 4);
      edns = { payloadSize: msg.readUInt16BE(off + 2), version: (ttl >>> 16) & 0xff, dnssecOk: (ttl & EDNS_DO) !== 0 };
      if (rdLength > 0) readOptions(msg, off + 10, off + 10 + rdLength, edns);
    }
    off += 10 + rdLength;
  }
  return new ParsedQuery(msg, questionEnd, edns, type, qclass, hash & HASH_BITS, tsigStart);
}

/** The question bytes (name lower-cased, type, class) of a query, for `sameQuestion`. */
export function questionBytes(msg: Buffer, q: ParsedQuery): Buffer {
  const out = Buffer.from(msg.subarray(HEADER_SIZE, q.questionEnd));
  for (let i = 0; i < out.length - 4; i++) out[i] = lower(out[i]!);
  return out;
}

/** Whether `msg` asks the question `question` (from `questionBytes`), whatever its letter case. */
export function sameQuestion(question: Buffer, msg: Buffer, questionEnd: number): boolean {
  const length = question.length;
  if (questionEnd - HEADER_SIZE !== length) return false;
  const name = length - 4;
  for (let i = 0; i < name; i++) if (question[i] !== lower(msg[HEADER_SIZE + i]!)) return false;
  for (let i = name; i < length; i++) if (question[i] !== msg[HEADER_SIZE + i]) return false;
  return true;
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
