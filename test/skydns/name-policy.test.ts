// A name's own merge policy at a hub (src/skydns/name-policy.ts): the keys a spoke's object sets,
// checked; the entry fields they become; what the hub reads back from an entry. One test per row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entryNamePolicy, namePolicyFields, readNamePolicy, type NamePolicy } from '../../src/skydns/name-policy.ts';
import { decodeEntry, encodeEntry } from '../../src/skydns/skydns-entry.ts';

const P = 'etcdns.io/hub-policy';
const O = 'etcdns.io/hub-order';
const W = 'etcdns.io/hub-weight';

// case, keys, policy read (undefined: none) or the error's pattern
const readRows: [string, Record<string, string> | undefined, NamePolicy | undefined | RegExp][] = [
  ['no keys', undefined, undefined],
  ['other annotations only', { 'external-dns.kubernetes.io/ttl': '60' }, undefined],
  ['all', { [P]: 'all' }, { policy: 'all' }],
  ['failover, order by dots', { [P]: 'failover', [O]: 'dc2.dc1' }, { policy: 'failover', order: ['dc2', 'dc1'] }],
  ['failover, order by commas', { [P]: 'failover', [O]: 'dc2, dc1' }, { policy: 'failover', order: ['dc2', 'dc1'] }],
  ['failover without an order', { [P]: 'failover' }, /^etcdns\.io\/hub-order: is required by failover/],
  [
    'an order without failover',
    { [P]: 'all', [O]: 'dc1' },
    /^etcdns\.io\/hub-order: is only for etcdns\.io\/hub-policy: failover/,
  ],
  ['an order naming a cluster twice', { [P]: 'failover', [O]: 'dc1.dc1' }, /names a cluster twice/],
  ['an order with a bad name', { [P]: 'failover', [O]: 'dc1.DC_2' }, /"DC_2" is not a cluster name/],
  ['an order with an empty name', { [P]: 'failover', [O]: 'dc1..dc2' }, /"" is not a cluster name/],
  ['prefer', { [P]: 'prefer' }, { policy: 'prefer' }],
  ['prefer-alone, spaces around', { [P]: ' prefer-alone ' }, { policy: 'prefer-alone' }],
  ['weighted with a weight', { [P]: 'weighted', [W]: '3' }, { policy: 'weighted', weight: 3 }],
  ['a weight alone (for a weighted zone)', { [W]: '0' }, { weight: 0 }],
  ['a weight beside another policy', { [P]: 'prefer', [W]: '2' }, /^etcdns\.io\/hub-weight: is only for/],
  ['a weight above 1000', { [W]: '1001' }, /"1001" is not a whole number from 0 to 1000/],
  ['a weight that is not a whole number', { [P]: 'weighted', [W]: '1.5' }, /"1.5" is not a whole number/],
  ['endpoint health', { 'etcdns.io/hub-health': 'endpoints' }, { health: 'endpoints' }],
  [
    'endpoint health beside failover',
    { 'etcdns.io/hub-health': 'endpoints', [P]: 'failover', [O]: 'dc1' },
    { policy: 'failover', order: ['dc1'], health: 'endpoints' },
  ],
  ['an unknown health', { 'etcdns.io/hub-health': 'pods' }, /^etcdns\.io\/hub-health: "pods" is not "endpoints"$/],
  [
    'an unknown policy',
    { [P]: 'nearest' },
    /^etcdns\.io\/hub-policy: "nearest" is not one of all, failover, prefer, prefer-alone, weighted$/,
  ],
];
for (const [name, keys, want] of readRows)
  test(`name policy, read: ${name}`, () => {
    const got = readNamePolicy(keys);
    if (want instanceof RegExp) {
      assert.equal(got.ok, false);
      assert.match((got as { error: string }).error, want);
    } else assert.deepEqual(got, { ok: true, policy: want });
  });

// Through the entry as etcd stores it and the hub reads it back: the same policy.
const roundTrips: NamePolicy[] = [
  { policy: 'all' },
  { policy: 'failover', order: ['dc2', 'dc1', 'dc3'] },
  { policy: 'prefer-alone' },
  { policy: 'weighted', weight: 7 },
  { weight: 0 },
];
for (const p of roundTrips)
  test(`name policy, through an entry: ${JSON.stringify(p)}`, () => {
    const stored = encodeEntry({
      host: '10.0.0.1',
      owner: 'dc1',
      resource: 'service/default/web',
      ...namePolicyFields(p),
    });
    const decoded = decodeEntry(stored);
    assert.ok(decoded.ok);
    assert.deepEqual(entryNamePolicy(decoded.entry), p);
  });

// What the hub makes of values written by hand: unusable fields are ignored, as unknown ones.
const entryRows: [string, string, NamePolicy | undefined][] = [
  ['no fields', '{"host":"10.0.0.1"}', undefined],
  ['an unknown policy', '{"host":"10.0.0.1","hubpolicy":"nearest"}', undefined],
  ['failover without an order: the hub order', '{"host":"10.0.0.1","hubpolicy":"failover"}', { policy: 'failover' }],
  ['an order beside all: ignored', '{"host":"10.0.0.1","hubpolicy":"all","huborder":"dc1"}', { policy: 'all' }],
  [
    'a weight out of range: ignored',
    '{"host":"10.0.0.1","hubpolicy":"weighted","hubweight":5000}',
    { policy: 'weighted' },
  ],
  ['hubready false alone: no policy (the merge reads it)', '{"host":"10.0.0.1","hubready":false}', undefined],
  ['field names in any case', '{"Host":"10.0.0.1","HubPolicy":"prefer"}', { policy: 'prefer' }],
];
for (const [name, raw, want] of entryRows)
  test(`name policy, from a stored entry: ${name}`, () => {
    const decoded = decodeEntry(raw);
    assert.ok(decoded.ok);
    assert.deepEqual(entryNamePolicy(decoded.entry), want);
  });

test('name policy: a hub field of the wrong type makes the value an error naming it', () => {
  assert.deepEqual(decodeEntry('{"host":"10.0.0.1","hubweight":"3"}'), {
    ok: false,
    error: 'field "hubweight" must be an integer',
  });
});
