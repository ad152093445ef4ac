// Turns a resolver Answer into wire bytes with dns2 (the codec, with name compression), fits it
// into the client's size limit (drop optional additional records, else set TC), and patches a
// stored encoding for another client: its ID, RD/CD bits and question bytes (letter case kept).
import { Packet, type Question, type Resource } from 'dns2';
import { CLASS, EDNS_DO, TYPE } from './dns-constants.ts';
import type { Answer, ResourceRecord } from './dns-message.ts';
import { copyIdAndFlags, HEADER_SIZE, headerRcode, QDCOUNT } from './header.ts';
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

function characterString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** The type-specific fields dns2's encoders read. */
function dataOf(r: ResourceRecord): Record<string, unknown> {
  switch (r.type) {
    case TYPE.A:
    case TYPE.AAAA:
      return { address: r.address };
    case TYPE.CNAME:
    case TYPE.PTR:
      return { domain: r.target };
    case TYPE.NS:
      return { ns: r.target };
    case TYPE.TXT:
      return { data: r.text };
    case TYPE.HINFO:
      // dns2 has no HINFO encoder and writes `data` as the raw RDATA: two character-strings.
      return { data: Buffer.concat([r.cpu, r.os].map(characterString)) };
    case TYPE.MX:
      return { priority: r.preference, exchange: r.exchange };
    case TYPE.SRV:
      return { priority: r.priority, weight: r.weight, port: r.port, target: r.target };
    case TYPE.SOA:
      return {
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

function toDns2(r: ResourceRecord, names: CompressionTable, inAnswer: boolean): Dns2Record {
  const record = dataOf(r);
  record.type = r.type;
  record.class = r.class ?? CLASS.IN;
  // dns2 reads a record's name just before writing it and its ttl right after: so the table
  // knows whether the name it is asked about is an answer's owner name.
  Object.defineProperties(record, {
    name: {
      enumerable: true,
      get: () => {
        names.questionAllowed = inAnswer;
        return r.name;
      },
    },
    ttl: {
      enumerable: true,
      get: () => {
        names.questionAllowed = false;
        return r.ttl;
      },
    },
  });
  return record as Dns2Record;
}

/** Our OPT record: echoes the client's DO bit; an rcode above 15 puts its high bits here. */
function optRecord(edns: Edns, rcode: number): Dns2Record {
  const ttl = (((rcode >> 4) & 0xff) << 24) | (edns.dnssecOk ? EDNS_DO : 0);
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
    rcode: headerRcode(rcode),
  });
  if (query.name !== undefined) {
    packet.questions = [{ name: query.name, type: query.type, class: query.class } as Question];
  }
  // dns2 encodes plain objects by their type's fields; its typings describe parsed records.
  const names = new CompressionTable(query.name);
  const records = (rs: ResourceRecord[], inAnswer = false) =>
    rs.map((r) => toDns2(r, names, inAnswer)) as unknown as Resource[];
  packet.answers = records(sections.answer, true);
  packet.authorities = records(sections.authority);
  packet.additionals = records(sections.additional);
  if (query.edns) packet.additionals.push(optRecord(query.edns, rcode) as unknown as Resource);
  const writer = new Packet.Writer() as WriterWithNames;
  writer.names = names;
  // dns2's toBuffer takes the writer (and its name table); its typings leave the parameter out.
  const toBuffer = packet.toBuffer as unknown as (this: Packet, writer: WriterWithNames) => Buffer;
  return toBuffer.call(packet, writer);
}

type WriterWithNames = InstanceType<typeof Packet.Writer> & { names: Map<string, number> };

/**
 * dns2's table of names already written, for compression pointers. Answer records owned by the
 * question name point to the question, and so show the client's letter case (`patchFor` copies
 * it in), as CoreDNS answers. Every other name is lower-case, as CoreDNS writes it: the question's
 * suffixes are not offered at all, and the question name itself is offered elsewhere only as a
 * lower-case copy, once one has been written.
 */
class CompressionTable extends Map<string, number> {
  /** True while dns2 writes the owner name of an answer record. */
  questionAllowed = false;
  /** The question name as dns2 keys it: labels joined by ".", lower-case, no trailing dot. */
  private readonly question: string;
  private questionSuffixes: number;
  private lowerCopy: number | undefined;

  constructor(questionName: string | undefined) {
    super();
    const labels = questionName ? questionName.split('.').filter((l) => l.length > 0) : [];
    this.question = labels.join('.').toLowerCase();
    this.questionSuffixes = Math.max(0, labels.length - 1);
  }

  override has(key: string): boolean {
    if (key !== this.question || this.questionAllowed) return super.has(key);
    return this.lowerCopy !== undefined;
  }

  override get(key: string): number | undefined {
    return key === this.question && !this.questionAllowed ? this.lowerCopy : super.get(key);
  }

  override set(key: string, offset: number): this {
    if (key === this.question && super.has(key)) {
      this.lowerCopy ??= offset;
      return this;
    }
    // The question's own name is registered first, then each of its suffixes.
    if (this.size === 1 && this.questionSuffixes > 0) {
      this.questionSuffixes -= 1;
      return this;
    }
    return super.set(key, offset);
  }
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
  if (query.questionEnd <= HEADER_SIZE) return bare;
  const out = Buffer.concat([
    bare.subarray(0, HEADER_SIZE),
    msg.subarray(HEADER_SIZE, query.questionEnd),
    bare.subarray(HEADER_SIZE),
  ]);
  out.writeUInt16BE(1, QDCOUNT);
  return out;
}

/** A stored encoding made fit for this query: its ID, RD and CD bits, and its question bytes. */
export function patchFor(template: Buffer, msg: Buffer, questionEnd: number): Buffer {
  const out = Buffer.allocUnsafe(template.length);
  out.set(template);
  copyIdAndFlags(out, msg);
  // The question is a few dozen bytes: a loop costs less than a copy call.
  for (let i = HEADER_SIZE; i < questionEnd; i++) out[i] = msg[i]!;
  return out;
}
