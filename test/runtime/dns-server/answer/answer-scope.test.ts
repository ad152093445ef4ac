// Which cached answers depend on their own name alone (and so survive changes elsewhere), which
// names a changed key reaches, and where the SOA serial sits in an encoded answer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { changedNames, wireNameOf } from '../../../../src/runtime/dns-server/answer/answer-scope.ts';
import { CLASS, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { LookupMode } from '../../../../src/runtime/dns-server/answer/name-lookup.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import { resolve } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { encodeAnswer } from '../../../../src/runtime/dns-server/wire/response-encoder.ts';
import { soaSerialOffset } from '../../../../src/runtime/dns-server/wire/soa-serial.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';

const CONTENT: Record<string, object> = {
  '/skydns/org/example/www': { host: '10.0.0.1' },
  '/skydns/org/example/svc/a1': { host: '10.0.0.2' },
  '/skydns/org/example/txt': { text: 'hello' },
  '/skydns/org/example/alias': { host: 'www.example.org' },
  '/skydns/org/example/dangling': { host: 'nothing.example.org' },
  '/skydns/org/example/wild/*': { host: '10.0.1.1' },
  '/skydns/org/example/srv': { host: 'www.example.org', port: 80 },
  '/skydns/org/example/sub/dns/ns/a': { host: '10.0.4.1' },
};

const zones = new ZoneTable([{ name: 'example.org' }]);
const index = RecordIndex.fromSnapshot(
  '/skydns',
  zones.names,
  Object.entries(CONTENT).map(([key, value], i) => ({ key, value: JSON.stringify(value), modRevision: i + 2 })),
  100,
);

const OWN_NAME_ROWS: { name: string; type: number; mode?: LookupMode; own: boolean }[] = [
  { name: 'www.example.org.', type: TYPE.A, own: true },
  { name: 'svc.example.org.', type: TYPE.A, own: true },
  { name: 'txt.example.org.', type: TYPE.TXT, own: true },
  { name: 'www.example.org.', type: TYPE.AAAA, own: true },
  { name: 'missing.example.org.', type: TYPE.A, own: true },
  { name: 'www.example.org.', type: TYPE.A, mode: 'subtree', own: false },
  { name: 'alias.example.org.', type: TYPE.A, own: false },
  { name: 'dangling.example.org.', type: TYPE.A, own: false },
  { name: 'x.wild.example.org.', type: TYPE.A, own: false },
  { name: '*.example.org.', type: TYPE.A, own: false },
  { name: 'srv.example.org.', type: TYPE.SRV, own: false },
  { name: 'host.sub.example.org.', type: TYPE.A, own: false },
  { name: 'example.org.', type: TYPE.SOA, own: false },
  { name: 'example.org.', type: TYPE.NS, own: false },
  { name: 'www.example.org.', type: TYPE.ANY, own: false },
  { name: 'www.example.net.', type: TYPE.A, own: false },
];

describe('answers that depend on their own name alone', () => {
  for (const row of OWN_NAME_ROWS) {
    test(`${row.name} type ${row.type}${row.mode ? ` (${row.mode})` : ''}: ${row.own ? 'own name' : 'shared'}`, () => {
      const mode = row.mode ?? 'own';
      const question = { name: row.name, type: row.type, class: CLASS.IN };
      const answer = resolve(question, { index, zones, lookup: mode });
      assert.equal(answer.ownName === true, row.own);
    });
  }
});

const CHANGE_ROWS: { what: string; paths: string[][]; names: string[] | 'all' }[] = [
  {
    what: 'a name and every name above it',
    paths: [['org', 'example', 'www']],
    names: ['www.example.org', 'example.org', 'org', ''],
  },
  {
    what: 'a record id below a name reaches the name',
    paths: [['org', 'example', 'svc', 'a1']],
    names: ['a1.svc.example.org', 'svc.example.org', 'example.org', 'org', ''],
  },
  { what: 'a wildcard reaches the names below it', paths: [['org', 'example', 'wild', '*']], names: 'all' },
  {
    what: 'a delegation reaches the names below it',
    paths: [['org', 'example', 'sub', 'dns', 'ns', 'a']],
    names: 'all',
  },
  {
    what: 'one wildcard in a batch is enough',
    paths: [
      ['org', 'example', 'www'],
      ['org', '*'],
    ],
    names: 'all',
  },
  { what: 'no change, no name', paths: [], names: [] },
];

describe('names a batch of changed keys reaches', () => {
  for (const row of CHANGE_ROWS) {
    test(row.what, () => {
      const got = changedNames(row.paths);
      const want = row.names === 'all' ? 'all' : new Set(row.names.map((n) => wireNameOf(n ? n.split('.') : [])));
      assert.deepEqual(got, want);
    });
  }
});

describe('the SOA serial in an encoded answer', () => {
  const header = { id: 1, opcode: 0, questionEnd: 0, edns: undefined };
  const rows = [
    { what: 'NXDOMAIN carries it in authority', name: 'missing.example.org.', type: TYPE.A, has: true },
    { what: 'NODATA carries it in authority', name: 'www.example.org.', type: TYPE.MX, has: true },
    { what: 'an SOA question carries it in the answer', name: 'example.org.', type: TYPE.SOA, has: true },
    { what: 'a positive answer has none', name: 'www.example.org.', type: TYPE.A, has: false },
  ];
  for (const row of rows) {
    test(row.what, () => {
      const question = { name: row.name, type: row.type, class: CLASS.IN };
      const answer = resolve(question, { index, zones, lookup: 'own' });
      const encoded = encodeAnswer({ ...header, ...question }, answer, 512);
      const offset = soaSerialOffset(encoded);
      if (!row.has) return assert.equal(offset, -1);
      assert.ok(offset > 0);
      assert.equal(encoded.readUInt32BE(offset), index.serial('example.org.') || 1);
    });
  }
  test('a truncated message gives no offset rather than a wrong one', () => {
    const question = { name: 'missing.example.org.', type: TYPE.A, class: CLASS.IN };
    const encoded = encodeAnswer({ ...header, ...question }, resolve(question, { index, zones, lookup: 'own' }), 512);
    assert.equal(soaSerialOffset(encoded.subarray(0, encoded.length - 25)), -1);
  });
});
