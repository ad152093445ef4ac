// The record snapshot's file format: a copy round-trips, and each failed check refuses the file
// naming what failed (one test per row).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import {
  decodeSnapshot,
  encodeSnapshot,
  SnapshotError,
} from '../../../../src/runtime/dns-server/store/record-snapshot.ts';

function copy(): RecordIndex {
  const index = new RecordIndex('/skydns', ['example.org']);
  index.put('/skydns/org/example/www/x1', '{"host":"192.0.2.1","owner":"a","resource":"service/default/www"}', 7);
  index.put('/skydns/org/example/mail', '{"host":"mx.example.org","mail":true,"priority":10,"ttl":60}', 9);
  index.put('/skydns/org/example/bad', 'not json', 10);
  index.revision = 12;
  return index;
}

test('a copy round-trips: entries, mod revisions and revision; undecodable values and ownership are not kept', () => {
  const text = encodeSnapshot(copy(), '42', new Date('2026-01-01T00:00:00Z'));
  const { header, kvs } = decodeSnapshot(text, '/skydns');
  assert.equal(header.revision, 12);
  assert.equal(header.clusterId, '42');
  assert.deepEqual(kvs, [
    {
      key: '/skydns/org/example/mail',
      value: '{"host":"mx.example.org","priority":10,"mail":true,"ttl":60}',
      modRevision: 9,
    },
    { key: '/skydns/org/example/www/x1', value: '{"host":"192.0.2.1"}', modRevision: 7 },
  ]);
  const back = RecordIndex.fromSnapshot('/skydns', ['example.org'], kvs, header.revision);
  assert.equal(back.entryCount, 2);
});

test('an empty copy round-trips', () => {
  const text = encodeSnapshot(new RecordIndex('/skydns', []), '', new Date());
  assert.deepEqual(decodeSnapshot(text, '/skydns').kvs, []);
});

const good = encodeSnapshot(copy(), '42', new Date('2026-01-01T00:00:00Z'));
const [headerLine, ...body] = good.split('\n');
const header = JSON.parse(headerLine!) as Record<string, unknown>;
const withHeader = (change: Record<string, unknown>) => [JSON.stringify({ ...header, ...change }), ...body].join('\n');

const refusals: { name: string; text: string; prefix?: string; error: RegExp }[] = [
  { name: 'empty file', text: '', error: /no header line/ },
  { name: 'header not JSON', text: `{not json\n`, error: /header is not JSON/ },
  {
    name: 'another file format',
    text: withHeader({ format: 'something-else' }),
    error: /not an etcdns-record-snapshot/,
  },
  { name: 'a newer format version', text: withHeader({ version: 2 }), error: /format version 2/ },
  { name: 'another prefix', text: good, prefix: '/skydns-external', error: /prefix \/skydns, this server serves/ },
  { name: 'a truncated body', text: good.slice(0, -10), error: /checksum mismatch/ },
  { name: 'an altered value', text: good.replace('192.0.2.1', '192.0.2.9'), error: /checksum mismatch/ },
  { name: 'an entry count that disagrees', text: withHeader({ entries: 3 }), error: /2 entries, the header says 3/ },
];

for (const row of refusals) {
  test(`refused: ${row.name}`, () => {
    assert.throws(
      () => decodeSnapshot(row.text, row.prefix ?? '/skydns'),
      (e: Error) => e instanceof SnapshotError && row.error.test(e.message),
    );
  });
}
