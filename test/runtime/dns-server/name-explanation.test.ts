// Table tests of a hub's name explanation (name-explanation.ts): per member cluster, whether it
// has entries at the name, counts, is refused by its claims, and whether the zone's policy lets it
// answer. Each row: the policy, the client's site, each cluster's state at the name, and what the
// explanation says (the clusters answering, stale, and each cluster's reason).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MergePolicy } from '../../../src/runtime/dns-server/answer/cluster-merge.ts';
import { explainName } from '../../../src/runtime/dns-server/name-explanation.ts';
import { at, type At } from './cluster-at-name.ts';

const NAME = 'web.example.org.';

const UP = { held: 30 };

// [case, policy, client's site, clusters, answering, stale, each cluster's reason (a part of it)]
const rows: [string, MergePolicy, string | undefined, [string, At][], string[], boolean, string[]][] = [
  [
    'all: both count and answer',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 2, lease: UP }],
    ],
    ['dc1', 'dc2'],
    false,
    ['answers (policy all)', 'answers (policy all)'],
  ],
  [
    'lease gone beyond the grace: dc2 does not count',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: { gone: 40, counts: false } }],
    ],
    ['dc1'],
    false,
    ['answers (policy all)', 'does not count: lease gone 40 s ago'],
  ],
  [
    "no ready endpoint behind dc2's Service: it does not count for the name, its lease held",
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: UP, unready: true }],
    ],
    ['dc1'],
    false,
    ['answers (policy all)', 'does not count: no ready endpoint behind its Service (etcdns.io/hub-health)'],
  ],
  [
    'no ready endpoint anywhere: served stale, saying why',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP, unready: true }],
      ['dc2', { entries: 1, lease: { gone: 40, counts: false } }],
    ],
    ['dc1', 'dc2'],
    true,
    [
      'answers stale: no contributing cluster counts (no ready endpoint behind its Service',
      'answers stale: no contributing cluster counts (lease gone 40 s ago)',
    ],
  ],
  [
    'never seen: does not count',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: 'never' }],
    ],
    ['dc1'],
    false,
    ['answers (policy all)', 'does not count: lease never seen'],
  ],
  [
    'claim refused: dc2 left out with the reason',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      [
        'dc2',
        { entries: 1, lease: UP, refusal: '"web.example.org." is outside cluster dc2\'s claims (dc2.example.org.)' },
      ],
    ],
    ['dc1'],
    false,
    ['answers (policy all)', 'refused by its claims: "web.example.org." is outside cluster dc2\'s claims'],
  ],
  [
    'no entries at the name',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 0, lease: UP }],
    ],
    ['dc1'],
    false,
    ['answers (policy all)', 'no entries at the name'],
  ],
  [
    'failover: the first choice gone, the second answers',
    { kind: 'failover', order: ['dc1', 'dc2', 'dc3'] },
    undefined,
    [
      ['dc1', { entries: 1, lease: { gone: 50, counts: false } }],
      ['dc2', { entries: 1, lease: UP }],
      ['dc3', { entries: 1, lease: UP }],
    ],
    ['dc2'],
    false,
    [
      'does not count: lease gone 50 s ago',
      'answers: the first counting contributor',
      'failover: dc2 answers ahead of it',
    ],
  ],
  [
    'prefer alone: the client at dc2 gets dc2 alone',
    { kind: 'prefer', alone: true },
    'dc2',
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: UP }],
    ],
    ['dc2'],
    false,
    ["prefer alone: the client's site dc2 answers alone", "answers first: the client's site, alone"],
  ],
  [
    'prefer: the site first, then the others',
    { kind: 'prefer', alone: false },
    'dc2',
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: UP }],
    ],
    ['dc2', 'dc1'],
    false,
    ["answers after the client's site dc2", "answers first: the client's site"],
  ],
  [
    'weighted: each its weight, one weighing 0 not drawn',
    { kind: 'weighted', weights: { dc1: 3, dc2: 1 } },
    undefined,
    [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 1, lease: UP }],
      ['dc3', { entries: 1, lease: UP }],
    ],
    ['dc1', 'dc2'],
    false,
    ['answers 75% of the answers', 'answers 25% of the answers', 'not drawn: weighs 0'],
  ],
  [
    'weighted, all weighing 0: the first counting one answers',
    { kind: 'weighted', weights: {} },
    undefined,
    [
      ['dc1', { entries: 1, lease: { gone: 40, counts: false } }],
      ['dc2', { entries: 1, lease: UP }],
      ['dc3', { entries: 1, lease: UP }],
    ],
    ['dc2'],
    false,
    ['does not count', 'answers 100% of the answers', 'not drawn: weighs 0'],
  ],
  [
    'stale: no contributor counts, all answer anyway',
    { kind: 'all' },
    undefined,
    [
      ['dc1', { entries: 1, lease: { gone: 90, counts: false } }],
      ['dc2', { entries: 1, lease: 'never' }],
    ],
    ['dc1', 'dc2'],
    true,
    ['answers stale: no contributing cluster counts (lease gone 90 s ago)', 'answers stale'],
  ],
];

for (const [name, policy, site, clusters, answering, stale, reasons] of rows) {
  test(`name explanation: ${name}`, () => {
    const e = explainName({
      name: NAME,
      zone: 'example.org.',
      chosen: { policy, setBy: undefined, overruled: [] },
      site,
      clusters: clusters.map(([c, a]) => at(c, a)),
    });
    assert.deepEqual(e.answering, answering);
    assert.equal(e.stale, stale);
    assert.deepEqual(
      e.clusters.map((c) => c.answers),
      clusters.map(([c]) => answering.includes(c)),
    );
    for (const [i, reason] of reasons.entries())
      assert.ok(e.clusters[i]!.why.includes(reason), `${e.clusters[i]!.cluster}: ${e.clusters[i]!.why}`);
  });
}
