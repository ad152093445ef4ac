// A hub's refused names (refused-names.ts): the owner names of a member cluster's entries outside
// its claims, found in a real record index of /skydns-clusters; one row per case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusedNames } from '../../../src/runtime/dns-server/refused-names.ts';
import { RecordIndex } from '../../../src/runtime/dns-server/store/record-index.ts';

function clusterNode(keys: string[]) {
  const kvs = keys.map((key, i) => ({ key, value: '{"host":"10.0.0.1"}', modRevision: i + 2 }));
  return RecordIndex.fromSnapshot('/skydns-clusters', [], kvs, 100).find(['dc1']);
}

const P = '/skydns-clusters/dc1';
// case, keys of dc1, suffixes, refused names
const rows: [string, string[], string[], string[]][] = [
  [
    'only claimed names: none',
    [`${P}/org/example/dc1/web/a0000001`, `${P}/org/example/dc1/a0000002`],
    ['dc1.example.org'],
    [],
  ],
  ['the lease key is not a record', [`${P}/etcdns.lease`], ['dc1.example.org'], []],
  [
    "a child entry: its parent's name",
    [`${P}/org/example/dc2/web/a0000001`],
    ['dc1.example.org'],
    ['web.dc2.example.org.'],
  ],
  [
    'several entries of one name: listed once',
    [`${P}/org/example/dc2/web/a0000001`, `${P}/org/example/dc2/web/a0000002`],
    ['dc1.example.org'],
    ['web.dc2.example.org.'],
  ],
  [
    "an entry at the name's own key (a CNAME)",
    [`${P}/org/example/dc2/www`],
    ['dc1.example.org'],
    ['www.dc2.example.org.'],
  ],
  ["a zone's apex entries (dns/apex)", [`${P}/org/example/dns/apex/a0000001`], ['dc1.example.org'], ['example.org.']],
  ['a delegation (dns/ns)', [`${P}/org/example/sub/dns/ns/a0000001`], ['dc1.example.org'], ['sub.example.org.']],
  [
    'a name ending like a suffix is not below it',
    [`${P}/org/example/xdc1/a0000001`],
    ['dc1.example.org'],
    ['xdc1.example.org.'],
  ],
  [
    'several, beside claimed ones',
    [
      `${P}/org/example/b/a0000001`,
      `${P}/org/example/dc1/a0000002`,
      `${P}/org/example/a/a0000003`,
      `${P}/net/x/a0000004`,
    ],
    ['dc1.example.org'],
    ['a.example.org.', 'b.example.org.', 'x.net.'],
  ],
  ['no claims at all: every name', [`${P}/org/example/dc1/a0000001`], [], ['dc1.example.org.']],
];

for (const [name, keys, suffixes, want] of rows)
  test(`refusedNames: ${name}`, () => {
    const found = refusedNames(clusterNode(keys), suffixes, 1000);
    assert.deepEqual([...found.names].sort(), want);
    assert.equal(found.count, want.length);
  });

test('refusedNames: the list stops at max, the count does not', () => {
  const keys = Array.from({ length: 5 }, (_, i) => `${P}/org/example/n${i}/a0000001`);
  const found = refusedNames(clusterNode(keys), ['dc1.example.org'], 2);
  assert.deepEqual(found.names, ['n0.example.org.', 'n1.example.org.']);
  assert.equal(found.count, 5);
});

test('refusedNames: a cluster with nothing at the hub refuses nothing', () => {
  assert.deepEqual(refusedNames(undefined, ['dc1.example.org'], 10), { names: [], count: 0 });
});
