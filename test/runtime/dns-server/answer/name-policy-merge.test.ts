// A hub's merge of names whose entries carry their spoke's say (src/skydns/name-policy.ts): a
// name's own policy and a Service without a ready endpoint (hubready false), through the real
// record index, resolver and zone reading; the same rule for a query and for the zone a secondary
// gets. One test per row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubResolverData } from './hub-resolver-data.ts';
import { resolve } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { zoneRecords } from '../../../../src/runtime/dns-server/answer/zone-records.ts';
import { RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';

const KEYS: Record<string, object> = {
  // dc2's Service has no ready endpoint.
  '/skydns-clusters/dc1/org/example/web/a1': { host: '10.1.0.1' },
  '/skydns-clusters/dc2/org/example/web/b1': { host: '10.2.0.1', hubready: false },
  // Neither has one.
  '/skydns-clusters/dc1/org/example/down/a2': { host: '10.1.0.2', hubready: false },
  '/skydns-clusters/dc2/org/example/down/b2': { host: '10.2.0.2', hubready: false },
  // dc2 has two objects there: one ready, one not.
  '/skydns-clusters/dc1/org/example/mixed/a3': { host: '10.1.0.3' },
  '/skydns-clusters/dc2/org/example/mixed/b3': { host: '10.2.0.3', hubready: false },
  '/skydns-clusters/dc2/org/example/mixed/b4': { host: '10.2.0.4' },
  // failover dc2 first, set by dc2's entries: dc2's Service not ready, so dc1's.
  '/skydns-clusters/dc1/org/example/fail/a5': { host: '10.1.0.5' },
  '/skydns-clusters/dc2/org/example/fail/b5': {
    host: '10.2.0.5',
    hubpolicy: 'failover',
    huborder: 'dc2,dc1',
    hubready: false,
  },
  // failover dc2 first, ready.
  '/skydns-clusters/dc1/org/example/first/a6': { host: '10.1.0.6' },
  '/skydns-clusters/dc2/org/example/first/b6': { host: '10.2.0.6', hubpolicy: 'failover', huborder: 'dc2,dc1' },
  // weighted by the name: one cluster per query.
  '/skydns-clusters/dc1/org/example/drawn/a7': { host: '10.1.0.7', hubpolicy: 'weighted', hubweight: 1 },
  '/skydns-clusters/dc2/org/example/drawn/b7': { host: '10.2.0.7', hubweight: 1 },
};

const hubData = () => hubResolverData({ clusterKeys: KEYS, clusters: ['dc1', 'dc2'] });

const address = (r: ResourceRecord) => ('address' in r ? r.address : '');

// case, name, addresses answered (A), answered by a draw (never cached)
const rows: [string, string, string[], boolean][] = [
  ['a Service without a ready endpoint: the other cluster answers', 'web', ['10.1.0.1'], false],
  ['no ready endpoint anywhere: every cluster (serve-stale)', 'down', ['10.1.0.2', '10.2.0.2'], false],
  ["one of a cluster's objects not ready: its ready one answers", 'mixed', ['10.1.0.3', '10.2.0.4'], false],
  ["the failover's first not ready: the next one", 'fail', ['10.1.0.5'], false],
  ["a name's own failover, set by dc2's entries", 'first', ['10.2.0.6'], false],
];
for (const [name, label, want, drawn] of rows)
  test(`a hub merges by its spokes' say: ${name}`, () => {
    const answer = resolve({ name: `${label}.example.org.`, type: TYPE.A, class: 1 }, hubData(), 'zone', {
      draw: 0.3,
    });
    assert.equal(answer.rcode, RCODE.NOERROR);
    assert.deepEqual(answer.answer.map(address).sort(), want);
    assert.equal(answer.perQuery ?? false, drawn);
  });

test("a hub merges by its spokes' say: a name's own weighted draws one cluster per query, never cached", () => {
  const drawnBy = (draw: number) =>
    resolve({ name: 'drawn.example.org.', type: TYPE.A, class: 1 }, hubData(), 'zone', { draw });
  assert.deepEqual(drawnBy(0.2).answer.map(address), ['10.1.0.7']);
  assert.deepEqual(drawnBy(0.7).answer.map(address), ['10.2.0.7']);
  assert.equal(drawnBy(0.2).perQuery, true);
});

test("a hub merges by its spokes' say: the zone transferred holds what a client outside every site is answered", () => {
  const data = hubData();
  const records = zoneRecords(data, data.zones.zones[0]!).filter(
    (r) => r.type === TYPE.A && r.name.split('.').length === 4,
  );
  assert.deepEqual(records.map((r) => `${r.name} ${address(r)}`).sort(), [
    'down.example.org. 10.1.0.2',
    'down.example.org. 10.2.0.2',
    'drawn.example.org. 10.1.0.7',
    'drawn.example.org. 10.2.0.7',
    'fail.example.org. 10.1.0.5',
    'first.example.org. 10.2.0.6',
    'mixed.example.org. 10.1.0.3',
    'mixed.example.org. 10.2.0.4',
    'web.example.org. 10.1.0.1',
  ]);
});
