// What an entry's host is, as CoreDNS reads it (Go's net.ParseIP): IPv4, IPv4-mapped IPv6 in any
// spelling as IPv4, IPv6 written out in full (the text the encoder writes), anything else a name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyHost, type HostKind } from '../../src/skydns/host-address.ts';

const rows: [string, HostKind][] = [
  ['10.0.0.1', { kind: 'A', address: '10.0.0.1' }],
  ['::ffff:10.0.0.1', { kind: 'A', address: '10.0.0.1' }],
  ['::FFFF:10.0.0.1', { kind: 'A', address: '10.0.0.1' }],
  ['::ffff:a00:1', { kind: 'A', address: '10.0.0.1' }],
  ['0:0:0:0:0:ffff:10.0.0.1', { kind: 'A', address: '10.0.0.1' }],
  ['2001:db8::1', { kind: 'AAAA', address: '2001:db8:0:0:0:0:0:1' }],
  ['2001:DB8::A', { kind: 'AAAA', address: '2001:db8:0:0:0:0:0:a' }],
  ['::1', { kind: 'AAAA', address: '0:0:0:0:0:0:0:1' }],
  ['64:ff9b::10.0.0.1', { kind: 'AAAA', address: '64:ff9b:0:0:0:0:a00:1' }],
  ['fe80::1%eth0', { kind: 'name' }],
  ['www.example.org', { kind: 'name' }],
  ['10.0.0.256', { kind: 'name' }],
  ['', { kind: 'name' }],
];

for (const [host, kind] of rows) {
  test(`classifyHost: ${JSON.stringify(host)}`, () => assert.deepEqual(classifyHost(host), kind));
}
