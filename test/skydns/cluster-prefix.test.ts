// The hub-and-spokes layout: a cluster's prefix, the SkyDNS keys below it (the same scheme as
// /skydns, so CoreDNS pointed at the prefix reads them), the names a prefix refuses, and which
// prefixes reach each other's keys (an etcd role on one would grant the other's records).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterPrefix, prefixesOverlap } from '../../src/skydns/cluster-prefix.ts';
import { keyToName, nameToKey } from '../../src/skydns/skydns-key.ts';

// cluster, name, key
const keys: [string, string, string][] = [
  ['dc1', 'www.example.org.', '/skydns-clusters/dc1/org/example/www'],
  ['site-berlin-2', 'WWW.Example.org', '/skydns-clusters/site-berlin-2/org/example/www'],
  ['0', '10.2.0.192.in-addr.arpa.', '/skydns-clusters/0/arpa/in-addr/192/0/2/10'],
];
for (const [cluster, name, key] of keys)
  test(`clusterPrefix(${JSON.stringify(cluster)}): ${name} <-> ${key}`, () => {
    assert.equal(nameToKey(name, clusterPrefix(cluster)), key);
    assert.equal(keyToName(key, clusterPrefix(cluster)), name.toLowerCase().replace(/\.?$/, '.'));
  });

const badNames = ['', 'DC1', 'dc/1', 'dc.1', '-dc1', 'dc1-', 'dc_1', 'a'.repeat(57), ' dc1'];
for (const name of badNames)
  test(`clusterPrefix refuses ${JSON.stringify(name)}`, () => {
    assert.throws(() => clusterPrefix(name), /not a cluster name/);
  });

test('clusterPrefix takes a name of 56 characters', () => {
  assert.equal(clusterPrefix('a'.repeat(56)), `/skydns-clusters/${'a'.repeat(56)}`);
});

// a, b, overlap
const overlaps: [string, string, boolean][] = [
  ['/skydns-clusters/dc1', '/skydns-clusters/dc1', true],
  ['/skydns-clusters/dc1', '/skydns-clusters/dc1/', true],
  ['/skydns-clusters', '/skydns-clusters/dc1', true],
  ['/skydns-clusters/dc1/org', '/skydns-clusters', true],
  ['/skydns-clusters/dc1', '/skydns-clusters/dc10', false],
  ['/skydns-clusters/dc1', '/skydns-clusters/dc2', false],
  ['/skydns', '/skydns-clusters', false],
  ['/skydns', '/skydns-clusters/dc1', false],
  ['/skydns-external', '/skydns-clusters', false],
];
for (const [a, b, overlap] of overlaps)
  test(`prefixesOverlap(${a}, ${b}) = ${overlap}`, () => {
    assert.equal(prefixesOverlap(a, b), overlap);
    assert.equal(prefixesOverlap(b, a), overlap);
  });
