// Table tests of the query reader: what is a query, what gets FORMERR or NOTIMP, what is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packet } from 'dns2';
import { nameFromWire, parseQuery } from '../../../../src/runtime/dns-server/wire/query-parser.ts';

function query(name: string, type = 1, tweak?: (p: Packet) => void): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 0xbeef, rd: 1 });
  p.questions = [{ name, type, class: 1 } as Packet['questions'][number]];
  tweak?.(p);
  return p.toBuffer();
}

const withEdns =
  (size: number, version = 0, doFlag = false) =>
  (p: Packet) => {
    p.additionals = [Packet.Resource.EDNS([], { udpPayloadSize: size, version, doFlag })];
  };

function patched(msg: Buffer, at: number, value: number, bytes: 1 | 2 = 2): Buffer {
  const copy = Buffer.from(msg);
  if (bytes === 2) copy.writeUInt16BE(value, at);
  else copy[at] = value;
  return copy;
}

const valid = query('WwW.Example.ORG', 28);
/** `msg` with raw records appended to its additional section. */
function withRecords(msg: Buffer, records: Buffer[]): Buffer {
  const out = Buffer.concat([msg, ...records]);
  out.writeUInt16BE(msg.readUInt16BE(10) + records.length, 10);
  return out;
}
/** A TSIG record (owner "k.", type 250, class ANY) with an empty MAC: its shape is all that counts here. */
const TSIG_RR = Buffer.from(
  '016b0000fa00ff00000000001d0b686d61632d73686132353600000000000000012c0000beef00000000',
  'hex',
);
/** An OPT record (root owner, type 41, 1232 bytes, no options). */
const OPT_RR = Buffer.from('00002904d0000000000000', 'hex');
/** An OPT record with these options (code, data as hex). */
function optWith(...options: [code: number, data: string][]): Buffer {
  const rdata = Buffer.concat(
    options.map(([code, data]) => {
      const head = Buffer.alloc(4);
      head.writeUInt16BE(code, 0);
      head.writeUInt16BE(data.length / 2, 2);
      return Buffer.concat([head, Buffer.from(data, 'hex')]);
    }),
  );
  const head = Buffer.from('00002904d000000000', 'hex');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(rdata.length, 0);
  return Buffer.concat([head, length, rdata]);
}
const NO_EDNS = query('example.org', 1);

const cases: { name: string; msg: Buffer; want: Record<string, unknown> }[] = [
  {
    name: 'a plain query: name lower-cased in wire form, type, class, end of question',
    msg: valid,
    want: { kind: 'query', id: 0xbeef, wireName: '\x03www\x07example\x03org\x00', type: 28, class: 1, edns: undefined },
  },
  {
    name: 'EDNS0: payload size, version and DO bit from the OPT record',
    msg: query('example.org', 1, withEdns(1232, 0, true)),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: true } },
  },
  {
    name: 'an EDNS version above 0 is read (the handler answers BADVERS)',
    msg: query('example.org', 1, withEdns(4096, 1)),
    want: { kind: 'query', edns: { payloadSize: 4096, version: 1, dnssecOk: false } },
  },
  {
    name: 'edns-tcp-keepalive without a TIMEOUT, after a cookie: asked (RFC 7828)',
    msg: withRecords(NO_EDNS, [optWith([10, '0102030405060708'], [11, ''])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false, keepalive: 'asked' } },
  },
  {
    name: 'edns-tcp-keepalive with a TIMEOUT in a query: malformed (FORMERR over TCP, ignored over UDP)',
    msg: withRecords(NO_EDNS, [optWith([11, '0064'])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false, keepalive: 'malformed' } },
  },
  {
    name: 'NSID, empty (RFC 5001): asked',
    msg: withRecords(NO_EDNS, [optWith([3, ''])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false, nsid: true } },
  },
  {
    name: 'NSID with keepalive and a cookie: both asked',
    msg: withRecords(NO_EDNS, [optWith([10, '0102030405060708'], [3, ''], [11, ''])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false, keepalive: 'asked', nsid: true } },
  },
  {
    name: 'NSID with a payload: asked all the same (BIND ignores it too)',
    msg: withRecords(NO_EDNS, [optWith([3, 'abcd'])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false, nsid: true } },
  },
  {
    name: 'other options only: no keepalive',
    msg: withRecords(NO_EDNS, [optWith([10, '0102030405060708'])]),
    want: { kind: 'query', edns: { payloadSize: 1232, version: 0, dnssecOk: false } },
  },
  {
    name: 'the root name',
    msg: query('', 2),
    want: { kind: 'query', wireName: '\x00', type: 2 },
  },
  { name: 'shorter than a header: dropped', msg: Buffer.alloc(11), want: { kind: 'drop' } },
  { name: 'a response (QR set): dropped', msg: patched(valid, 2, valid[2]! | 0x80, 1), want: { kind: 'drop' } },
  {
    name: 'opcode NOTIFY: NOTIMP',
    msg: patched(valid, 2, (4 << 3) | 1, 1),
    want: { kind: 'error', rcode: 4, opcode: 4 },
  },
  { name: 'no question: FORMERR', msg: patched(valid, 4, 0), want: { kind: 'error', rcode: 1 } },
  { name: 'two questions: FORMERR', msg: patched(valid, 4, 2), want: { kind: 'error', rcode: 1 } },
  { name: 'an answer record in a query: FORMERR', msg: patched(valid, 6, 1), want: { kind: 'error', rcode: 1 } },
  { name: 'cut inside the name: FORMERR', msg: valid.subarray(0, 16), want: { kind: 'error', rcode: 1 } },
  {
    name: 'cut before type and class: FORMERR',
    msg: valid.subarray(0, valid.length - 2),
    want: { kind: 'error', rcode: 1 },
  },
  {
    name: 'a compression pointer in the question: FORMERR',
    msg: patched(valid, 12, 0xc0, 1),
    want: { kind: 'error', rcode: 1 },
  },
  {
    name: 'a reserved label type (0x40): FORMERR',
    msg: patched(valid, 12, 0x41, 1),
    want: { kind: 'error', rcode: 1 },
  },
  {
    name: 'an additional record count past the end: FORMERR, with the question end known',
    msg: patched(valid, 10, 3),
    want: { kind: 'error', rcode: 1, questionEnd: valid.length },
  },
  {
    name: 'two OPT records: FORMERR',
    msg: query('example.org', 1, (p) => {
      p.additionals = [Packet.Resource.EDNS([]), Packet.Resource.EDNS([])];
    }),
    want: { kind: 'error', rcode: 1 },
  },
  {
    name: 'a TSIG record last: signed',
    msg: withRecords(valid, [TSIG_RR]),
    want: { kind: 'query', signed: true },
  },
  { name: 'no TSIG record: not signed', msg: valid, want: { kind: 'query', signed: false } },
  {
    name: 'a TSIG record before another record: FORMERR (RFC 8945 5.1: it must be last)',
    msg: withRecords(valid, [TSIG_RR, OPT_RR]),
    want: { kind: 'error', rcode: 1 },
  },
  {
    name: 'a name of more than 255 octets: FORMERR',
    msg: (() => {
      const labels = Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([63]), Buffer.alloc(63, 0x61)]));
      const header = Buffer.from([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
      return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
    })(),
    want: { kind: 'error', rcode: 1 },
  },
];

for (const c of cases) {
  test(c.name, () => {
    const got = parseQuery(c.msg) as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(c.want)) assert.deepEqual(got[field], value, field);
  });
}

test('nameFromWire: dotted name; undefined for a label holding a "."', () => {
  assert.equal(nameFromWire('\x03www\x07example\x03org\x00'), 'www.example.org.');
  assert.equal(nameFromWire('\x00'), '.');
  assert.equal(nameFromWire('\x03a.b\x03org\x00'), undefined);
});
