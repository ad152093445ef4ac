// Which policy merges a name at a hub (src/runtime/dns-server/answer/name-merge-policy.ts): the
// name's own, set in its contributors' entries, else its zone's. One test per row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Contribution, MergePolicy } from '../../../../src/runtime/dns-server/answer/cluster-merge.ts';
import { chooseNamePolicy, type ChosenPolicy } from '../../../../src/runtime/dns-server/answer/name-merge-policy.ts';
import type { StoredEntry } from '../../../../src/runtime/dns-server/store/record-index.ts';
import type { SkyDnsEntry } from '../../../../src/skydns/skydns-entry.ts';

type Fields = Pick<SkyDnsEntry, 'hubpolicy' | 'huborder' | 'hubweight'>;
/** A cluster's share: its name, whether it counts, and the hub fields of each of its entries. */
type Share = [cluster: string, counts: boolean, entries: Fields[]];

function contributions(shares: Share[]): Contribution<StoredEntry>[] {
  return shares.map(([cluster, counts, entries]) => ({
    cluster,
    counts,
    entries: entries.map((fields, i) => ({
      key: `/skydns-clusters/${cluster}/org/example/www/${i}`,
      entry: { host: `10.0.0.${i + 1}`, ...fields },
      modRevision: 1,
      depth: 4,
    })),
  }));
}

const ALL: MergePolicy = { kind: 'all' };
const ZONE_WEIGHTED: MergePolicy = { kind: 'weighted', weights: { dc1: 3, dc2: 1 } };

// case, zone policy, shares, chosen
const rows: [string, MergePolicy, Share[], ChosenPolicy][] = [
  [
    'no entry says anything: the zone policy',
    ZONE_WEIGHTED,
    [
      ['dc1', true, [{}]],
      ['dc2', true, [{}, {}]],
    ],
    { policy: ZONE_WEIGHTED, setBy: undefined, overruled: [] },
  ],
  [
    "one cluster's entries set failover: it wins over the zone's all",
    ALL,
    [
      ['dc1', true, [{}]],
      ['dc2', true, [{ hubpolicy: 'failover', huborder: 'dc2,dc1' }]],
    ],
    { policy: { kind: 'failover', order: ['dc2', 'dc1'] }, setBy: 'dc2', overruled: [] },
  ],
  [
    'two clusters disagree: the first counting one in the hub order sets it, the other is listed',
    ALL,
    [
      ['dc1', true, [{ hubpolicy: 'prefer-alone' }]],
      ['dc2', true, [{ hubpolicy: 'failover', huborder: 'dc2,dc1' }]],
    ],
    { policy: { kind: 'prefer', alone: true }, setBy: 'dc1', overruled: ['dc2'] },
  ],
  [
    'a cluster that does not count cannot steer the name',
    ALL,
    [
      ['dc1', false, [{ hubpolicy: 'prefer' }]],
      ['dc2', true, [{}]],
    ],
    { policy: ALL, setBy: undefined, overruled: [] },
  ],
  [
    'none counts (serve-stale): the first contributor that says one',
    ALL,
    [
      ['dc1', false, []],
      ['dc2', false, [{ hubpolicy: 'prefer' }]],
    ],
    { policy: { kind: 'prefer', alone: false }, setBy: 'dc2', overruled: [] },
  ],
  [
    "a name's own weighted: each contributor's weight, 1 when it gives none",
    ALL,
    [
      ['dc1', true, [{ hubpolicy: 'weighted', hubweight: 4 }]],
      ['dc2', true, [{}]],
      ['dc3', true, []],
    ],
    { policy: { kind: 'weighted', weights: { dc1: 4, dc2: 1 } }, setBy: 'dc1', overruled: [] },
  ],
  [
    "the zone's weighted: a cluster's weight for the name replaces the zone's",
    ZONE_WEIGHTED,
    [
      ['dc1', true, [{ hubweight: 0 }]],
      ['dc2', true, [{}]],
    ],
    { policy: { kind: 'weighted', weights: { dc1: 0, dc2: 1 } }, setBy: undefined, overruled: [] },
  ],
  [
    'a weight alone beside a policy that is not weighted: no effect',
    ALL,
    [
      ['dc1', true, [{ hubweight: 5 }]],
      ['dc2', true, [{}]],
    ],
    { policy: ALL, setBy: undefined, overruled: [] },
  ],
  [
    'the same policy from both: nobody overruled; the first entry of a cluster that says one counts',
    ALL,
    [
      ['dc1', true, [{}, { hubpolicy: 'failover', huborder: 'dc2,dc1' }]],
      ['dc2', true, [{ hubpolicy: 'failover', huborder: 'dc2,dc1' }]],
    ],
    { policy: { kind: 'failover', order: ['dc2', 'dc1'] }, setBy: 'dc1', overruled: [] },
  ],
  [
    'failover written without an order: the hub order',
    ALL,
    [['dc1', true, [{ hubpolicy: 'failover' }]]],
    { policy: { kind: 'failover', order: [] }, setBy: 'dc1', overruled: [] },
  ],
];
for (const [name, zone, shares, want] of rows)
  test(`name merge policy: ${name}`, () => {
    assert.deepEqual(chooseNamePolicy(zone, contributions(shares)), want);
  });
