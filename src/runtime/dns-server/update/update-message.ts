// An UPDATE message (RFC 2136 2) read from its bytes: the zone section, the prerequisite and update
// sections as records (rdata kept as bytes with their offset, for names compressed against the
// message), and where a TSIG record ending the additional section starts. What does not parse is a
// FORMERR; the reply echoes the zone section (as BIND and Knot do).
import { RCODE, TYPE } from '../wire/dns-constants.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, idOf, NSCOUNT, QDCOUNT } from '../wire/header.ts';
import type { QueryHeader } from '../wire/query-parser.ts';
import { readName } from '../wire/wire-name.ts';

export interface UpdateRecord {
  name: string;
  type: number;
  class: number;
  ttl: number;
  rdata: Buffer;
  /** Where the rdata starts in the message: names in it may point before it. */
  rdataStart: number;
}

export interface UpdateMessage {
  /** What the reply is made from: ID, OPCODE, the zone section's end. */
  header: QueryHeader;
  zone: { name: string; type: number; class: number };
  prerequisites: UpdateRecord[];
  updates: UpdateRecord[];
  /** Where the TSIG record starts, or -1 when unsigned. */
  tsigStart: number;
}

export type UpdateParse =
  { kind: 'update'; message: UpdateMessage } | { kind: 'error'; header: QueryHeader; rcode: number; reason: string };

/** The name at `off` as a dotted name, or an error when a label holds a "." (no key could name it). */
function name(msg: Buffer, off: number): { name: string; end: number } {
  const read = readName(msg, off);
  if (read.name !== '.' && read.name.split('.').length - 1 !== read.labels) throw new Error('a label holds "."');
  return read;
}

function record(msg: Buffer, off: number): { record: UpdateRecord; end: number } {
  const owner = name(msg, off);
  off = owner.end;
  if (off + 10 > msg.length) throw new Error('record runs past the message');
  const length = msg.readUInt16BE(off + 8);
  const rdataStart = off + 10;
  if (rdataStart + length > msg.length) throw new Error('rdata runs past the message');
  return {
    record: {
      name: owner.name,
      type: msg.readUInt16BE(off),
      class: msg.readUInt16BE(off + 2),
      ttl: msg.readUInt32BE(off + 4),
      rdata: msg.subarray(rdataStart, rdataStart + length),
      rdataStart,
    },
    end: rdataStart + length,
  };
}

export function parseUpdate(msg: Buffer): UpdateParse {
  const header: QueryHeader = { id: idOf(msg), opcode: 5, questionEnd: 0, edns: undefined };
  const fail = (reason: string): UpdateParse => ({ kind: 'error', header, rcode: RCODE.FORMERR, reason });
  // RFC 2136 3.1.1: exactly one zone, of type SOA.
  if (msg.readUInt16BE(QDCOUNT) !== 1) return fail('zone count is not 1');
  try {
    const zoneName = name(msg, HEADER_SIZE);
    if (zoneName.end + 4 > msg.length) return fail('zone section runs past the message');
    const zone = {
      name: zoneName.name,
      type: msg.readUInt16BE(zoneName.end),
      class: msg.readUInt16BE(zoneName.end + 2),
    };
    header.questionEnd = zoneName.end + 4;
    if (zone.type !== TYPE.SOA) return fail('zone type is not SOA');
    let off = header.questionEnd;
    const section = (count: number): UpdateRecord[] => {
      const out: UpdateRecord[] = [];
      for (let i = 0; i < count; i++) {
        const read = record(msg, off);
        out.push(read.record);
        off = read.end;
      }
      return out;
    };
    const prerequisites = section(msg.readUInt16BE(ANCOUNT));
    const updates = section(msg.readUInt16BE(NSCOUNT));
    let tsigStart = -1;
    const additional = msg.readUInt16BE(ARCOUNT);
    for (let i = 0; i < additional; i++) {
      const start = off;
      const read = record(msg, off);
      off = read.end;
      if (read.record.type === TYPE.TSIG) {
        // RFC 8945 5.1: the TSIG record is the last one.
        if (i !== additional - 1) return fail('TSIG is not the last record');
        tsigStart = start;
      }
    }
    return { kind: 'update', message: { header, zone, prerequisites, updates, tsigStart } };
  } catch (e) {
    return fail((e as Error).message);
  }
}
