// The construct library's domain-name rule agrees with the DNS server's (dnsNameProblem), name
// by name: synth must accept exactly the zones the server will load.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainNameProblem, zoneKey } from '../../src/constructs/domain-name.ts';
import { dnsNameProblem } from '../../src/runtime/shared/dns-name.ts';

const NAMES = [
  'example.org',
  'Example.ORG.',
  'a.b.c.d.example.org',
  '_dmarc.example.org',
  '*.apps.example.org',
  'apps.*.example.org',
  '10.in-addr.arpa',
  'xn--bcher-kva.example',
  'a-b.example',
  '-a.example',
  'a-.example',
  'bad..org',
  '.example.org',
  'my zone.org',
  'ex@mple.org',
  'é.example',
  '',
  '.',
  `${'a'.repeat(63)}.org`,
  `${'a'.repeat(64)}.org`,
  `${'abcdefghi.'.repeat(25)}org`,
  `${'abcdefghi.'.repeat(25)}co`,
  `${'abcdefghi.'.repeat(24)}abcdefg.org`,
];

test('domainNameProblem accepts exactly what the server accepts', () => {
  for (const name of NAMES)
    assert.equal(domainNameProblem(name) === undefined, dnsNameProblem(name) === undefined, JSON.stringify(name));
});

test('the table has both valid and invalid names', () => {
  const valid = NAMES.filter((n) => dnsNameProblem(n) === undefined).length;
  assert.ok(valid >= 5 && NAMES.length - valid >= 5);
});

test('zoneKey: one spelling per zone', () => {
  const rows: [string, string][] = [
    ['Example.ORG.', 'example.org'],
    ['example.org', 'example.org'],
    ['.', ''],
  ];
  for (const [name, key] of rows) assert.equal(zoneKey(name), key);
});
