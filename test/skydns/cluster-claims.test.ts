// A member cluster's claims (src/skydns/cluster-claims.ts): which names, and from which
// namespaces, a cluster may publish; the one rule the hub and the spoke's controller apply.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimRefusal, type Claim } from '../../src/skydns/cluster-claims.ts';

const DC1: Claim[] = [{ suffix: 'dc1.example.org' }, { suffix: 'shop.example.org', namespaces: ['shop', 'web'] }];

// case, name, namespace, refusal (undefined: may publish)
const rows: [string, string, string | undefined, string | undefined][] = [
  ['the suffix itself', 'dc1.example.org', undefined, undefined],
  ['a name below a suffix', 'web.dc1.example.org.', undefined, undefined],
  ['any case, no trailing dot', 'WEB.DC1.Example.org', 'default', undefined],
  [
    'a sibling of a suffix',
    'web.dc2.example.org',
    undefined,
    `"web.dc2.example.org." is outside cluster dc1's claims (dc1.example.org., shop.example.org.)`,
  ],
  [
    'a name ending in a suffix is not below it',
    'xdc1.example.org',
    undefined,
    `"xdc1.example.org." is outside cluster dc1's claims (dc1.example.org., shop.example.org.)`,
  ],
  [
    'the parent of a suffix',
    'example.org',
    undefined,
    `"example.org." is outside cluster dc1's claims (dc1.example.org., shop.example.org.)`,
  ],
  ['a claim for namespaces: one of them', 'www.shop.example.org', 'web', undefined],
  [
    'a claim for namespaces: another namespace',
    'www.shop.example.org',
    'default',
    `"www.shop.example.org." is claimed by cluster dc1 for namespaces shop, web, not "default"`,
  ],
  [
    'a claim for namespaces: no namespace known (the hub): the suffix is enough',
    'www.shop.example.org',
    undefined,
    undefined,
  ],
  ['a claim without namespaces: any namespace', 'api.dc1.example.org', 'kube-system', undefined],
];

for (const [name, dnsName, namespace, want] of rows)
  test(`claimRefusal: ${name}`, () => {
    assert.equal(claimRefusal('dc1', DC1, dnsName, namespace), want);
  });

test('claimRefusal: two claims holding a name add up (either namespace list admits it)', () => {
  const claims: Claim[] = [
    { suffix: 'example.org', namespaces: ['a'] },
    { suffix: 'web.example.org', namespaces: ['b'] },
  ];
  assert.equal(claimRefusal('dc1', claims, 'x.web.example.org', 'a'), undefined);
  assert.equal(claimRefusal('dc1', claims, 'x.web.example.org', 'b'), undefined);
  assert.match(claimRefusal('dc1', claims, 'x.web.example.org', 'c') ?? '', /namespaces a, b, not "c"/);
  assert.match(claimRefusal('dc1', claims, 'other.example.org', 'b') ?? '', /namespaces a, not "b"/);
});

test('claimRefusal: a cluster with no claims publishes nothing', () => {
  assert.equal(claimRefusal('dc1', [], 'a.example.org'), `"a.example.org." is outside cluster dc1's claims (none)`);
});
