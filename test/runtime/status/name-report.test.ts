// `etcdns status --explain NAME`'s screen and verdict, one row per situation, from explanations
// the hub's own explainName produced: each view's replicas (agreeing ones once, a server that is
// not a hub in one line, one not read), each member cluster's entries, lease, verdict and why,
// and what needs a person about the name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MergePolicy } from '../../../src/runtime/dns-server/answer/cluster-merge.ts';
import { explainName } from '../../../src/runtime/dns-server/name-explanation.ts';
import type { ServerSummary } from '../../../src/runtime/dns-server/server-page.ts';
import type { Fetched, NameStatus } from '../../../src/runtime/status/stack-status.ts';
import { nameReport } from '../../../src/runtime/status/name-report.ts';
import { at, type At } from '../dns-server/cluster-at-name.ts';

const AT = new Date('2026-11-26T12:00:00Z');
const NAME = 'web.example.org.';
const UP = { held: 30 };

/** A replica's /status.json?name=: a hub's (with its explanation of NAME) or a plain server's. */
function summary(explain?: { policy: MergePolicy; site?: string; clusters: [string, At][] }): Fetched<ServerSummary> {
  return {
    ok: true,
    value: {
      ready: true,
      readiness: 'synced',
      prefix: '/skydns',
      records: 3,
      revision: 40,
      watchLag: 0,
      secondsSinceContact: 1,
      zones: [{ zone: 'example.org.', serial: 38, secondaries: [] }],
      ...(explain
        ? {
            explain: explainName({
              name: NAME,
              zone: 'example.org.',
              chosen: { policy: explain.policy, setBy: undefined, overruled: [] },
              site: explain.site,
              clusters: explain.clusters.map(([c, a]) => at(c, a)),
            }),
          }
        : {}),
    },
  };
}

function replica(name: string, s: Fetched<ServerSummary>, view = 'internal', ready = true) {
  return { view, pod: { name, component: `server-${view}`, ready, phase: 'Running', restarts: 0 }, summary: s };
}

function status(servers: NameStatus['servers'], client?: string): NameStatus {
  return { namespace: 'etcdns', name: 'etcdns', at: AT, asked: 'web.example.org', client, servers };
}

/** One hub replica, hub-a, of view internal, explaining NAME under `policy`. */
const oneHub = (policy: MergePolicy, clusters: [string, At][]) =>
  status([replica('hub-a', summary({ policy, clusters }))]);

const FAILOVER: MergePolicy = { kind: 'failover', order: ['dc1', 'dc2'] };
const dc1Gone: [string, At][] = [
  ['dc1', { entries: 1, lease: { gone: 40, counts: false } }],
  ['dc2', { entries: 2, lease: UP }],
];

// [situation, what was read, parts of the screen (strings, or patterns over one line), what needs a person]
const rows: [string, NameStatus, (string | RegExp)[], string[]][] = [
  [
    'two hub replicas agree: one account, the failover to dc2 with dc1 gone',
    status([
      replica('hub-a', summary({ policy: FAILOVER, clusters: dc1Gone })),
      replica('hub-b', summary({ policy: FAILOVER, clusters: dc1Gone })),
    ]),
    [
      'etcdns stack "etcdns" in namespace etcdns, 2026-11-26T12:00:00Z: who answers web.example.org',
      'view internal:',
      '  hub-a, hub-b agree (lease ages as hub-a sees them):',
      '    Zone example.org, policy failover (dc1, dc2). Answering: dc2.',
      /^ {4}dc1 +1 entry +does not count, lease gone 40 s ago +does not answer +does not count: lease gone 40 s ago$/,
      /^ {4}dc2 +2 entries +counts, lease held for 30 s +answers +answers: the first counting contributor/,
    ],
    ['view internal: member cluster dc1 does not count: its entries at web.example.org are left out'],
  ],
  [
    'replicas disagree (one still counts dc1): each its own account',
    status([
      replica('hub-a', summary({ policy: FAILOVER, clusters: dc1Gone })),
      replica('hub-b', summary({ policy: FAILOVER, clusters: [['dc1', { entries: 1, lease: UP }], dc1Gone[1]!] })),
    ]),
    ['  hub-a:', '  hub-b:', '    Zone example.org, policy failover (dc1, dc2). Answering: dc1.'],
    ['view internal: member cluster dc1 does not count: its entries at web.example.org are left out'],
  ],
  [
    'all count and answer: nothing needs a person',
    oneHub({ kind: 'all' }, [
      ['dc1', { entries: 1, lease: UP }],
      ['dc2', { entries: 0, lease: UP }],
    ]),
    [
      '    Zone example.org, policy all. Answering: dc1.',
      /^ {4}dc2 +0 entries +counts, lease held for 30 s +does not answer +no entries at the name$/,
      'nothing needs a person',
    ],
    [],
  ],
  [
    "a claim refused: the cluster is left out with its claims' reason",
    oneHub({ kind: 'all' }, [
      ['dc1', { entries: 1, lease: UP }],
      [
        'dc2',
        { entries: 1, lease: UP, refusal: "web.example.org. is outside cluster dc2's claims (dc2.example.org.)" },
      ],
    ]),
    [
      /^ {4}dc2 +1 entry +counts, lease held for 30 s +does not answer +refused by its claims: web\.example\.org\. is outside/,
    ],
    [
      "view internal: member cluster dc2's entries are refused by its claims: web.example.org. is outside cluster dc2's claims (dc2.example.org.)",
    ],
  ],
  [
    'no contributor counts: answered stale',
    oneHub({ kind: 'all' }, [['dc1', { entries: 1, lease: { gone: 90, counts: false } }]]),
    ['    Zone example.org, policy all. Answering: dc1 (stale: no contributing cluster counts).'],
    ['view internal: web.example.org is answered stale: no contributing member cluster counts'],
  ],
  [
    'prefer, asked from a client: its site answers first',
    status(
      [
        replica(
          'hub-a',
          summary({
            policy: { kind: 'prefer', alone: false },
            site: 'dc2',
            clusters: [
              ['dc1', { entries: 1, lease: UP }],
              ['dc2', { entries: 1, lease: UP }],
            ],
          }),
        ),
      ],
      '192.0.2.7',
    ),
    [
      'etcdns stack "etcdns" in namespace etcdns, 2026-11-26T12:00:00Z: who answers web.example.org asked from 192.0.2.7',
      "    Zone example.org, policy prefer, client's site dc2. Answering: dc2, dc1.",
      /^ {4}dc2 +1 entry +counts, lease held for 30 s +answers +answers first: the client's site$/,
    ],
    [],
  ],
  [
    'a server that is not a hub: one line; another view not read',
    status([
      replica('plain-a', summary(), 'external', false),
      replica('hub-a', { ok: false, error: '/status.json?name=web.example.org: 400 not in its zones' }),
    ]),
    [
      'view external:',
      '  plain-a (NOT READY): not a hub (only a hub merges member clusters, and explains their names)',
      'view internal:',
      '  hub-a: not read: /status.json?name=web.example.org: 400 not in its zones',
    ],
    ["DNS server hub-a: the name's explanation not read"],
  ],
  ['no DNS server pods', status([]), ['DNS servers: none found'], ['no DNS server pods']],
];

for (const [situation, read, parts, attention] of rows)
  test(`status --explain: ${situation}`, () => {
    const report = nameReport(read, Infinity);
    for (const part of parts)
      assert.ok(
        typeof part === 'string' ? report.lines.includes(part) : report.lines.some((l) => part.test(l)),
        `${String(part)} in\n${report.lines.join('\n')}`,
      );
    assert.deepEqual(report.attention, attention);
    assert.equal(report.lines.at(-1), attention.length === 0 ? 'nothing needs a person' : `  - ${attention.at(-1)}`);
  });

test('status --explain: lines fit the width; a why too long for its row goes on a line of its own', () => {
  const report = nameReport(status([replica('hub-a', summary({ policy: FAILOVER, clusters: dc1Gone }))]), 80);
  assert.ok(
    report.lines.every((l) => l.length <= 80),
    report.lines.join('\n'),
  );
  assert.ok(
    report.lines.some((l) => /^ {4}dc1 +1 entry +does not count, lease gone 40 s ago +does not answer$/.test(l)),
  );
  assert.ok(report.lines.includes('      does not count: lease gone 40 s ago'), report.lines.join('\n'));
});
