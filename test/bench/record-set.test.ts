// The benchmark's records: the same names in etcd (external-dns layout), in Knot's zone file,
// and in the query file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { etcdEntries, generateRecordSet, queryLines, zoneFile } from '../../bench/dns/record-set.ts';
import { decodeEntry } from '../../src/skydns/skydns-entry.ts';
import { keyToName } from '../../src/skydns/skydns-key.ts';

const set = generateRecordSet(100);

test('names are distinct, inside the zone, and every tenth has two addresses', () => {
  assert.equal(new Set(set.names.map((n) => n.name)).size, 100);
  assert.ok(set.names.every((n) => n.name.endsWith('.bench.example.org.')));
  assert.equal(set.names.filter((n) => n.addresses.length === 2).length, 10);
  const all = set.names.flatMap((n) => n.addresses);
  assert.equal(new Set(all).size, all.length, 'addresses are distinct');
  assert.ok(set.missing.every((m) => !set.names.some((n) => n.name === m)));
});

test('etcd entries are one child per address, as external-dns writes them', () => {
  const entries = etcdEntries(set, '/skydns');
  assert.equal(entries.length, 110);
  const byName = new Map<string, string[]>();
  for (const [key, value] of entries) {
    assert.match(key, /^\/skydns\/org\/example\/bench\/svc-\d{5}\/[0-9a-f]{8}$/);
    const decoded = decodeEntry(value);
    assert.ok(decoded.ok);
    assert.equal(decoded.entry.targetstrip, 1);
    const owner = keyToName(key.slice(0, key.lastIndexOf('/')), '/skydns')!;
    byName.set(owner, [...(byName.get(owner) ?? []), decoded.entry.host!]);
  }
  for (const n of set.names) assert.deepEqual(byName.get(n.name)?.sort(), [...n.addresses].sort());
  assert.deepEqual(etcdEntries(set, '/skydns'), entries, 'same keys every run');
});

test('the zone file holds the same addresses', () => {
  const text = zoneFile(set);
  assert.match(text, /IN SOA ns\.dns\.bench\.example\.org\. hostmaster\.bench\.example\.org\. 1 7200 1800 86400 30/);
  const records = text.split('\n').filter((l) => l.includes(' IN A ') && l.startsWith('svc-'));
  assert.equal(records.length, 110);
  assert.ok(records.includes('svc-00010.bench.example.org. IN A 10.0.0.110'));
});

test('the query file is ~90% existing names, ~10% missing ones, shuffled the same way every run', () => {
  const lines = queryLines(set, 1000);
  assert.equal(lines.length, 1000);
  const missing = lines.filter((l) => l.startsWith('gone-')).length;
  assert.equal(missing, 100);
  assert.ok(lines.every((l) => / A$/.test(l)));
  assert.equal(new Set(lines.filter((l) => l.startsWith('svc-'))).size, 100, 'every existing name is asked');
  assert.deepEqual(queryLines(set, 1000), lines);
  assert.notDeepEqual(lines.slice(0, 20), [...lines].sort().slice(0, 20), 'shuffled');
});
