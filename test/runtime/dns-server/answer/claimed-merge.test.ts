// A hub's merge with claims (answer/merged-lookup.ts, src/skydns/cluster-claims.ts): a member
// cluster's entries for a name outside its claims neither answer nor transfer, as if absent; the
// same rule for a query and for the zone a secondary gets. Real record indexes, the real resolver
// and zone reading; one row per case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubResolverData } from './hub-resolver-data.ts';
import { resolve } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { zoneRecords } from '../../../../src/runtime/dns-server/answer/zone-records.ts';
import { RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';
import { claimRefusal } from '../../../../src/skydns/cluster-claims.ts';

const CLUSTERS: Record<string, string[] | undefined> = {
  dc1: ['dc1.example.org'],
  dc2: ['dc2.example.org', 'shop.example.org'],
  // Claims not checked (no suffixes in the hub's config).
  dc3: undefined,
};

/** dc1 publishes its own name, dc2's, the apex's and a wildcard above its claim; dc2 and dc3 their own. */
const KEYS: Record<string, object> = {
  '/skydns-clusters/dc1/org/example/dc1/web/a0000001': { host: '10.1.0.1' },
  '/skydns-clusters/dc1/org/example/dc2/web/a0000002': { host: '10.1.0.2' },
  '/skydns-clusters/dc1/org/example/only-dc1/a0000003': { host: '10.1.0.3' },
  '/skydns-clusters/dc1/org/example/dns/apex/a0000004': { host: '10.1.0.4' },
  '/skydns-clusters/dc1/org/example/wild/*/a0000005': { host: '10.1.0.5' },
  '/skydns-clusters/dc2/org/example/dc2/web/b0000001': { host: '10.2.0.1' },
  '/skydns-clusters/dc2/org/example/shop/b0000002': { host: '10.2.0.2' },
  '/skydns-clusters/dc3/org/example/any/c0000001': { host: '10.3.0.1' },
};

const hubData = () =>
  hubResolverData({
    clusterKeys: KEYS,
    clusters: Object.keys(CLUSTERS),
    claims: (cluster, name) => {
      const suffixes = CLUSTERS[cluster];
      return (
        !suffixes ||
        claimRefusal(
          cluster,
          suffixes.map((suffix) => ({ suffix })),
          name,
        ) === undefined
      );
    },
  });

const address = (r: ResourceRecord) => ('address' in r ? r.address : '');

// case, name, rcode, addresses answered (A)
const rows: [string, string, number, string[]][] = [
  ['a name in its cluster claims: answered', 'web.dc1.example.org', RCODE.NOERROR, ['10.1.0.1']],
  ["a name in another cluster's claims: only that cluster's", 'web.dc2.example.org', RCODE.NOERROR, ['10.2.0.1']],
  ['a name only an unclaiming cluster has: as if absent (NXDOMAIN)', 'only-dc1.example.org', RCODE.NXDOMAIN, []],
  ["the apex's entries from a cluster claiming below it: left out", 'example.org', RCODE.NOERROR, []],
  ['a wildcard outside the claims: does not answer', 'x.wild.example.org', RCODE.NXDOMAIN, []],
  ['a second suffix of a cluster: answered', 'shop.example.org', RCODE.NOERROR, ['10.2.0.2']],
  ['a cluster whose claims are not checked: answered', 'any.example.org', RCODE.NOERROR, ['10.3.0.1']],
];

for (const [name, question, rcode, want] of rows)
  test(`a hub with claims answers: ${name}`, () => {
    const answer = resolve({ name: `${question}.`, type: TYPE.A, class: 1 }, hubData(), 'zone');
    assert.equal(answer.rcode, rcode);
    assert.deepEqual(answer.answer.map(address).sort(), want);
  });

test('a hub with claims transfers exactly what it answers: no refused name, no refused record', () => {
  const data = hubData();
  const records = zoneRecords(data, data.zones.zones[0]!).filter((r) => r.type === TYPE.A);
  // A child entry is also a name of its own (the entry at its key), in answers as in transfers.
  assert.deepEqual(records.map((r) => `${r.name} ${address(r)}`).sort(), [
    'a0000001.web.dc1.example.org. 10.1.0.1',
    'any.example.org. 10.3.0.1',
    'b0000001.web.dc2.example.org. 10.2.0.1',
    'b0000002.shop.example.org. 10.2.0.2',
    'c0000001.any.example.org. 10.3.0.1',
    'shop.example.org. 10.2.0.2',
    'web.dc1.example.org. 10.1.0.1',
    'web.dc2.example.org. 10.2.0.1',
  ]);
});
