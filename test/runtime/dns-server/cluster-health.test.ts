// Table tests of which member clusters count at a hub (cluster-health.ts): a cluster counts while
// its lease key is in the copy and for the grace period after it went; one never seen does not.
// Each row is a timeline of observations (time in seconds, the lease key's revision, 0: absent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterHealth } from '../../../src/runtime/dns-server/cluster-health.ts';

const GRACE = 10;

// [case, observations [seconds, lease revision], counts after each, then the state at the last]
const rows: [string, [number, number][], boolean[], { leaseAge: number | undefined; gone: number | undefined }][] = [
  [
    'never seen: does not count',
    [
      [0, 0],
      [30, 0],
    ],
    [false, false],
    { leaseAge: undefined, gone: undefined },
  ],
  [
    'a lease: counts at once',
    [
      [0, 0],
      [1, 7],
    ],
    [false, true],
    { leaseAge: 0, gone: undefined },
  ],
  [
    'the lease kept: its age grows',
    [
      [0, 7],
      [5, 7],
    ],
    [true, true],
    { leaseAge: 5, gone: undefined },
  ],
  [
    'gone: counts through the grace period',
    [
      [0, 7],
      [3, 0],
      [12, 0],
    ],
    [true, true, true],
    { leaseAge: undefined, gone: 9 },
  ],
  [
    'gone for the grace period: no longer counts',
    [
      [0, 7],
      [3, 0],
      [13, 0],
    ],
    [true, true, false],
    { leaseAge: undefined, gone: 10 },
  ],
  [
    'back within the grace period: counts throughout',
    [
      [0, 7],
      [3, 0],
      [8, 9],
    ],
    [true, true, true],
    { leaseAge: 0, gone: undefined },
  ],
  [
    'back after it stopped counting: counts again',
    [
      [0, 7],
      [1, 0],
      [20, 0],
      [21, 9],
    ],
    [true, true, false, true],
    { leaseAge: 0, gone: undefined },
  ],
  [
    'a new lease (another revision) restarts the age',
    [
      [0, 7],
      [5, 9],
      [6, 9],
    ],
    [true, true, true],
    { leaseAge: 1, gone: undefined },
  ],
];

for (const [name, timeline, counts, last] of rows) {
  test(`cluster health: ${name}`, () => {
    const health = new ClusterHealth(['dc1'], GRACE);
    const seen = timeline.map(([seconds, revision]) => {
      health.observe(() => revision, seconds * 1000);
      return health.counts('dc1');
    });
    assert.deepEqual(seen, counts);
    const [state] = health.states(timeline.at(-1)![0] * 1000);
    assert.deepEqual([state!.leaseAgeSeconds, state!.goneSeconds], [last.leaseAge, last.gone]);
    assert.equal(state!.leased, timeline.at(-1)![1] !== 0);
  });
}

test('cluster health: observe returns only the clusters whose verdict changed', () => {
  const health = new ClusterHealth(['dc1', 'dc2'], GRACE);
  assert.deepEqual(
    health.observe((c) => (c === 'dc1' ? 5 : 0), 0),
    [{ cluster: 'dc1', counts: true }],
  );
  assert.deepEqual(
    health.observe((c) => (c === 'dc1' ? 5 : 0), 1000),
    [],
  );
  assert.deepEqual(
    health.observe(() => 0, 2000),
    [],
  );
  assert.deepEqual(
    health.observe(() => 0, 12_000),
    [{ cluster: 'dc1', counts: false }],
  );
});
