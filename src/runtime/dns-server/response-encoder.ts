// Turns a resolver Answer into wire bytes with dns2 (the codec, with name compression), fits it
// into the client's size limit (drop optional additional records, else set TC), and patches a
// stored encoding for another client: its ID, RD/CD bits and question bytes (letter case kept).
import { Packet, type Question, type Resource } from 'dns2';
import { TYPE } from './dns-constants.ts';
import type { Answer, ResourceRecord } from './dns-message.ts';
import type { Edns, QueryHeader } from './query-parser.ts';

/** The UDP payload size we advertise in our OPT record (the DNS flag day 2020 value). */
export const ADVERTISED_PAYLOAD = 1232;

interface Dns2Record {
  name: string;
  type: number;
  class: number;
  ttl: number;
  [field: string]: unknown;
}

function toDns2(r: ResourceRecord): Dns2Record {
  const base = { name: r.name, type: r.type, class: 1, ttl: r.ttl };
  switch (r.type) {
    case TYPE.A:
    case TYPE.AAAA:
      return { ...base, address: r.address };
    case TYPE.CNAME:
    case TYPE.PTR:
      return { ...base, domain: r.target };
    case TYPE.NS:
      return { ...base, ns: r.target };
    case TYPE.TXT:
      return { ...base, data: r.text };
    case TYPE.MX:
      return { ...base, priority: r.preference, exchange: r.exchange };
    case TYPE.SRV:
      return { ...base, priority: r.priority, weight: r.weight, port: r.port, target: r.target };
    case TYPE.SOA:
      return {
        ...base,
        primary: r.mname,
        admin: r.rname,
        serial: r.serial,
        refresh: r.refresh,
        retry: r.retry,
        expiration: r.expire,
        minimum: r.minimum,
      };
  }
}

/** Our OPT record: echoes the client's DO bit; an rcode above 15 puts its high bits here. */
function optRecord(edns: Edns, rcode: number): Dns2Record {
  const ttl = (((rcode >> 4) & 0xff) << 24) | (edns.dnssecOk ? 0x8000 : 0);
  return { name: '', type: TYPE.OPT, class: ADVERTISED_PAYLOAD, ttl: ttl >>> 0, rdata: [] };
}

interface Sections {
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
}

function encode(
  query: QueryHeader & { name?: string | undefined; type?: number; class?: number },
  rcode: number,
  authoritative: boolean,
  truncated: boolean,
  sections: Sections,
): Buffer {
  const packet = new Packet();
  packet.header = new Packet.Header({
    id: query.id,
    qr: 1,
    opcode: query.opcode,
    aa: authoritative ? 1 : 0,
    tc: truncated ? 1 : 0,
    rcode: rcode & 0x0f,
  });
  if (query.name !== undefined) {
    packet.questions = [{ name: query.name, type: query.type, class: query.class } as Question];
  }
  // dns2 encodes plain objects by their type's fields; its typings describe parsed records.
  const records = (rs: ResourceRecord[]) => rs.map(toDns2) as unknown as Resource[];
  packet.answers = records(sections.answer);
  packet.authorities = records(sections.authority);
  packet.additionals = records(sections.additional);
  if (query.edns) packet.additionals.push(optRecord(query.edns, rcode) as unknown as Resource);
  return packet.toBuffer();
}

const EMPTY: Sections = { answer: [], authority: [], additional: [] };

/**
 * The response to a query, at most `limit` bytes. The question is written lower-case: callers
 * send it through `patchFor`, which copies the client's own question bytes in.
 */
export function encodeAnswer(
  query: QueryHeader & { name: string; type: number; class: number },
  answer: Answer,
  limit: number,
): Buffer {
  const full = encode(query, answer.rcode, answer.authoritative, false, answer);
  if (full.length <= limit) return full;
  // Minimal responses: extra addresses are optional, glue of a referral is not.
  if (!answer.referral && answer.additional.length > 0) {
    const lean = encode(query, answer.rcode, answer.authoritative, false, { ...answer, additional: [] });
    if (lean.length <= limit) return lean;
  }
  return encode(query, answer.rcode, answer.authoritative, true, EMPTY);
}

/**
 * An answer with no records (FORMERR, NOTIMP, REFUSED, SERVFAIL, BADVERS). The question, when it
 * parsed, is spliced in from the query as is: no name in such a response points into it.
 */
export function encodeError(query: QueryHeader, rcode: number, msg: Buffer): Buffer {
  const bare = encode({ ...query, name: undefined }, rcode, false, false, EMPTY);
  if (query.questionEnd <= 12) return bare;
  const out = Buffer.concat([bare.subarray(0, 12), msg.subarray(12, query.questionEnd), bare.subarray(12)]);
  out.writeUInt16BE(1, 4);
  return out;
}

/** A stored encoding made fit for this query: its ID, RD and CD bits, and its question bytes. */
export function patchFor(template: Buffer, msg: Buffer, questionEnd: number): Buffer {
  const out = Buffer.allocUnsafe(template.length);
  template.copy(out);
  out[0] = msg[0]!;
  out[1] = msg[1]!;
  out[2] = (out[2]! & 0xfe) | (msg[2]! & 0x01);
  out[3] = (out[3]! & 0xef) | (msg[3]! & 0x10);
  msg.copy(out, 12, 12, questionEnd);
  return out;
}
