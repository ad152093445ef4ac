// Table tests of the order of A and AAAA records (answer/answer-order.ts over
// wire/address-rrsets.ts): the pure order of a record set, then whole encoded answers reordered
// in their bytes for a client (rotation, prefer, both), read back with dns2's parser. Only A and
// AAAA RRsets move; every other record, and every byte outside the moved records, stays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Packet } from 'dns2';
import { AnswerOrder, recordOrder, type Rotation } from '../../../../src/runtime/dns-server/answer/answer-order.ts';
import { CLASS, RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';
import { encodeAnswer } from '../../../../src/runtime/dns-server/wire/response-encoder.ts';

const U = 30; // UNPREFERRED: a record in none of the client's networks

// [case, count, turn, ranks, the order (indices of the stored order)]
const orders: [string, number, number, number[], number[]][] = [
  ['no rotation, no preference: as stored', 3, 0, [U, U, U], [0, 1, 2]],
  ['turn 1: the second record first', 3, 1, [U, U, U], [1, 2, 0]],
  ['turn 2', 3, 2, [U, U, U], [2, 0, 1]],
  ['a turn beyond the count wraps', 3, 7, [U, U, U], [1, 2, 0]],
  ['two records, turn 1: swapped', 2, 1, [U, U], [1, 0]],
  ['the preferred record first, the rest as stored', 3, 0, [U, U, 0], [2, 0, 1]],
  ['preferred records keep their rotated order among themselves', 4, 1, [0, U, 0, U], [2, 0, 1, 3]],
  ['the first listed network before the second', 3, 0, [1, 0, U], [1, 0, 2]],
  ['all preferred alike: rotation only', 3, 2, [0, 0, 0], [2, 0, 1]],
  ['rotation then preference: the others rotate behind it', 4, 2, [U, 0, U, U], [1, 2, 3, 0]],
];

for (const [name, count, turn, ranks, want] of orders) {
  test(`recordOrder: ${name}`, () => {
    assert.deepEqual(recordOrder(count, turn, ranks), want);
  });
}

const a = (name: string, address: string): ResourceRecord => ({ name, ttl: 60, type: TYPE.A, address });
const aaaa = (name: string, address: string): ResourceRecord => ({ name, ttl: 60, type: TYPE.AAAA, address });
const cname = (name: string, target: string): ResourceRecord => ({ name, ttl: 60, type: TYPE.CNAME, target });
const mx = (name: string, preference: number, exchange: string): ResourceRecord => ({
  name,
  ttl: 60,
  type: TYPE.MX,
  preference,
  exchange,
});

const WWW = 'www.example.org.';
const THREE = [a(WWW, '10.1.0.1'), a(WWW, '10.2.0.1'), a(WWW, '10.3.0.1')];

interface Row {
  what: string;
  type: number;
  records: ResourceRecord[];
  rotation: Rotation;
  prefer: string[];
  client: string;
  /** The records' data in each of the first sends (turn starting at 0). */
  sends: string[][];
}

const data = (r: { type: number; address?: string; domain?: string; exchange?: string }) =>
  r.address ?? r.domain ?? r.exchange ?? '';

const rows: Row[] = [
  {
    what: 'round-robin: each send starts one record further, all three orders in turn',
    type: TYPE.A,
    records: THREE,
    rotation: 'round-robin',
    prefer: [],
    client: '127.0.0.1',
    sends: [
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
      ['10.2.0.1', '10.3.0.1', '10.1.0.1'],
      ['10.3.0.1', '10.1.0.1', '10.2.0.1'],
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
    ],
  },
  {
    what: 'off: every send as stored',
    type: TYPE.A,
    records: THREE,
    rotation: 'off',
    prefer: ['10.2.0.0/16'],
    client: '192.0.2.1',
    sends: [
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
    ],
  },
  {
    what: "prefer: a client in 10.3.0.0/16 gets that network's record first, every time",
    type: TYPE.A,
    records: THREE,
    rotation: 'off',
    prefer: ['10.2.0.0/16', '10.3.0.0/16'],
    client: '10.3.7.7',
    sends: [
      ['10.3.0.1', '10.1.0.1', '10.2.0.1'],
      ['10.3.0.1', '10.1.0.1', '10.2.0.1'],
    ],
  },
  {
    what: 'prefer: an IPv4-mapped client address counts as IPv4',
    type: TYPE.A,
    records: THREE,
    rotation: 'off',
    prefer: ['10.2.0.0/16'],
    client: '::ffff:10.2.9.9',
    sends: [['10.2.0.1', '10.1.0.1', '10.3.0.1']],
  },
  {
    what: 'prefer with rotation: the preferred record stays first, the others rotate behind it',
    type: TYPE.A,
    records: THREE,
    rotation: 'round-robin',
    prefer: ['10.1.0.0/16'],
    client: '10.1.200.1',
    sends: [
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
      ['10.1.0.1', '10.2.0.1', '10.3.0.1'],
      ['10.1.0.1', '10.3.0.1', '10.2.0.1'],
    ],
  },
  {
    what: 'prefer: the first listed of the client networks first (site before region)',
    type: TYPE.A,
    records: [a(WWW, '10.9.0.1'), a(WWW, '10.1.0.1'), a(WWW, '10.1.5.1')],
    rotation: 'off',
    prefer: ['10.1.5.0/24', '10.1.0.0/16'],
    client: '10.1.5.20',
    sends: [['10.1.5.1', '10.1.0.1', '10.9.0.1']],
  },
  {
    what: 'AAAA rotates as A does',
    type: TYPE.AAAA,
    records: [aaaa(WWW, '2001:db8::1'), aaaa(WWW, '2001:db8::2')],
    rotation: 'round-robin',
    prefer: [],
    client: '::1',
    sends: [
      ['2001:db8::1', '2001:db8::2'],
      ['2001:db8::2', '2001:db8::1'],
    ],
  },
  {
    what: 'AAAA prefer by an IPv6 client network',
    type: TYPE.AAAA,
    records: [aaaa(WWW, '2001:db8:1::1'), aaaa(WWW, '2001:db8:2::1')],
    rotation: 'off',
    prefer: ['2001:db8:2::/48'],
    client: '2001:db8:2::99',
    sends: [['2001:db8:2::1', '2001:db8:1::1']],
  },
  {
    what: 'a CNAME stays first, the target A RRset (name compressed against the CNAME) rotates',
    type: TYPE.A,
    records: [cname(WWW, 'lb.example.org.'), a('lb.example.org.', '10.1.0.1'), a('lb.example.org.', '10.2.0.1')],
    rotation: 'round-robin',
    prefer: [],
    client: '127.0.0.1',
    sends: [
      ['lb.example.org', '10.1.0.1', '10.2.0.1'],
      ['lb.example.org', '10.2.0.1', '10.1.0.1'],
    ],
  },
  {
    what: 'ANY: the A and the AAAA RRsets rotate each within itself, the MX stays',
    type: TYPE.ANY,
    records: [
      a(WWW, '10.1.0.1'),
      a(WWW, '10.2.0.1'),
      aaaa(WWW, '2001:db8::1'),
      aaaa(WWW, '2001:db8::2'),
      mx(WWW, 10, 'mail.example.org.'),
    ],
    rotation: 'round-robin',
    prefer: [],
    client: '127.0.0.1',
    sends: [
      ['10.1.0.1', '10.2.0.1', '2001:db8::1', '2001:db8::2', 'mail.example.org'],
      ['10.2.0.1', '10.1.0.1', '2001:db8::2', '2001:db8::1', 'mail.example.org'],
    ],
  },
  {
    what: 'A records of two owner names are two RRsets, each rotating alone',
    type: TYPE.A,
    records: [a(WWW, '10.1.0.1'), a(WWW, '10.2.0.1'), a('x.example.org.', '10.3.0.1'), a('x.example.org.', '10.4.0.1')],
    rotation: 'round-robin',
    prefer: [],
    client: '127.0.0.1',
    sends: [
      ['10.1.0.1', '10.2.0.1', '10.3.0.1', '10.4.0.1'],
      ['10.2.0.1', '10.1.0.1', '10.4.0.1', '10.3.0.1'],
    ],
  },
];

const header = { id: 1, opcode: 0, questionEnd: 0, edns: undefined };

for (const row of rows) {
  test(`answer order: ${row.what}`, () => {
    const question = { name: WWW, type: row.type, class: CLASS.IN };
    const answer = { rcode: RCODE.NOERROR, authoritative: true, answer: row.records, authority: [], additional: [] };
    const template = encodeAnswer({ ...header, ...question }, answer, 4096);
    const order = new AnswerOrder(row.rotation, row.prefer);
    const layout = order.layoutOf(template);
    assert.ok(layout, 'an answer with records to order has a layout');
    layout.turn = 0;
    for (const [i, want] of row.sends.entries()) {
      const out = Buffer.from(template);
      order.apply(out, template, layout, row.client);
      const parsed = Packet.parse(out);
      assert.deepEqual(parsed.answers.map(data), want, `send ${i + 1}`);
      assert.deepEqual(
        parsed.answers.map((r) => [r.name, r.type, r.ttl]),
        row.records.map((r) => [r.name.slice(0, -1), r.type, r.ttl]),
        'owner names, types and TTLs stay in place',
      );
      assert.equal(out.length, template.length);
    }
  });
}

// Answers in which nothing ever moves get no layout: the server sends them as stored at no cost.
const still: [string, ResourceRecord[], Rotation, string[]][] = [
  ['one A record', [a(WWW, '10.1.0.1')], 'round-robin', []],
  ['MX records only', [mx(WWW, 10, 'a.example.org.'), mx(WWW, 20, 'b.example.org.')], 'round-robin', []],
  ['A records of distinct names, one each', [a(WWW, '10.1.0.1'), a('x.example.org.', '10.2.0.1')], 'round-robin', []],
  ['no rotation and no record in a prefer network', THREE, 'off', ['192.168.0.0/16']],
];

for (const [what, records, rotation, prefer] of still) {
  test(`answer order: no layout for ${what}`, () => {
    const question = { name: WWW, type: TYPE.ANY, class: CLASS.IN };
    const answer = { rcode: RCODE.NOERROR, authoritative: true, answer: records, authority: [], additional: [] };
    const template = encodeAnswer({ ...header, ...question }, answer, 4096);
    assert.equal(new AnswerOrder(rotation, prefer).layoutOf(template), undefined);
  });
}

test('answer order: off with no prefer list is inactive (the server leaves it out)', () => {
  assert.equal(new AnswerOrder('off', []).active, false);
  assert.equal(new AnswerOrder('round-robin', []).active, true);
  assert.equal(new AnswerOrder('off', ['10.0.0.0/8']).active, true);
});

test('answer order: a new layout starts at a random turn, so a fresh cache entry favours no order', () => {
  const answer = { rcode: RCODE.NOERROR, authoritative: true, answer: THREE, authority: [], additional: [] };
  const template = encodeAnswer({ ...header, name: WWW, type: TYPE.A, class: CLASS.IN }, answer, 4096);
  const order = new AnswerOrder('round-robin', []);
  const firsts = new Set<number>();
  for (let i = 0; i < 200; i++) firsts.add(order.layoutOf(template)!.turn % 3);
  assert.equal(firsts.size, 3);
});
