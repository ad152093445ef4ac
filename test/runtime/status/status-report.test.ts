// `etcdns status`'s screen and verdict from what it read, one row per situation: what needs a
// person and what does not. The reading itself runs against a real cluster
// (test/cluster/status.cluster.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ControllerSummary } from '../../../src/runtime/controller/controller-page.ts';
import type { ServerSummary } from '../../../src/runtime/dns-server/server-page.ts';
import { metricSamples } from '../../../src/runtime/status/metric-samples.ts';
import type { StackStatus } from '../../../src/runtime/status/stack-status.ts';
import { statusReport } from '../../../src/runtime/status/status-report.ts';

const AT = new Date('2026-11-26T12:00:00Z');
const before = (seconds: number) => new Date(AT.getTime() - seconds * 1000).toISOString();
const pod = (name: string, component: string, ready = true) => ({
  name,
  component,
  ready,
  phase: 'Running',
  restarts: 0,
});
const ok = <T>(value: T) => ({ ok: true as const, value });
const etcdMetrics = (leader: 0 | 1, hasLeader: 0 | 1, size = 20480) =>
  metricSamples(
    [
      '# TYPE etcd_server_has_leader gauge',
      `etcd_server_has_leader ${hasLeader}`,
      `etcd_server_is_leader ${leader}`,
      `etcd_mvcc_db_total_size_in_bytes ${size}`,
      'etcd_server_quota_backend_bytes 2.147483648e+09',
    ].join('\n'),
  );
const server = (over: Partial<ServerSummary> = {}): ServerSummary => ({
  ready: true,
  readiness: 'synced: 12 records at revision 40, watching',
  prefix: '/skydns',
  records: 12,
  revision: 40,
  watchLag: 0,
  secondsSinceContact: 1,
  zones: [
    {
      zone: 'example.org.',
      serial: 38,
      secondaries: [
        { secondary: '192.0.2.53:53', kind: 'notify-acked', serial: 38, at: before(30) },
        { secondary: '192.0.2.53', kind: 'transferred', serial: 38, at: before(29), form: 'ixfr' },
      ],
    },
  ],
  ...over,
});
const controller = (over: Partial<ControllerSummary> = {}): ControllerSummary => ({
  identity: 'etcdns-controller-abc',
  resyncSeconds: 300,
  leader: true,
  ready: true,
  readiness: 'caches synced, etcd reachable, leader',
  lastSync: { at: before(3), outcome: 'unchanged' },
  lastCompleted: before(3),
  views: [{ name: 'internal', prefix: '/skydns', exposure: 'internal', names: 12 }],
  problems: [],
  ...over,
});

function stack(over: Partial<StackStatus> = {}): StackStatus {
  return {
    namespace: 'etcdns',
    name: 'etcdns',
    at: AT,
    etcdReplicas: ok(1),
    etcd: [{ pod: pod('etcdns-etcd-0', 'etcd'), metrics: ok(etcdMetrics(1, 1)), health: ok(true) }],
    servers: [{ view: 'internal', pod: pod('etcdns-server-internal-x', 'server-internal'), summary: ok(server()) }],
    controllers: [{ pod: pod('etcdns-controller-abc', 'controller'), summary: ok(controller()) }],
    lease: undefined,
    ...over,
  };
}

/** One replica whose zone is at serial 45 and whose secondary acknowledged 38, `seconds` ago. */
const secondaryBehind = (seconds: number) =>
  stack({
    servers: [
      {
        view: 'internal',
        pod: pod('etcdns-server-internal-x', 'server-internal'),
        summary: ok(
          server({
            zones: [
              {
                zone: 'example.org.',
                serial: 45,
                secondaries: [{ secondary: '192.0.2.53:53', kind: 'notify-acked', serial: 38, at: before(seconds) }],
              },
            ],
          }),
        ),
      },
    ],
  });

/** A hub replica whose member clusters are as given. */
const hub = (
  clusters: NonNullable<ServerSummary['hub']>['clusters'],
  staleNames: string[] = [],
  refused: NonNullable<ServerSummary['hub']>['refused'] = [],
) =>
  stack({
    servers: [
      {
        view: 'internal',
        pod: pod('etcdns-server-internal-x', 'server-internal'),
        summary: ok(server({ hub: { clusters, graceSeconds: 10, copy: 'synced', staleNames, refused } })),
      },
    ],
  });
const counting = (cluster: string) => ({
  cluster,
  counts: true,
  leased: true,
  leaseAgeSeconds: 90,
  goneSeconds: null,
  refusedNames: 0,
});
const gone = { cluster: 'dc2', counts: false, leased: false, leaseAgeSeconds: null, goneSeconds: 40, refusedNames: 0 };

// [situation, status, what needs a person (fragments; none: nothing)]
const rows: [string, StackStatus, string[]][] = [
  ['all well', stack(), []],
  [
    'an etcd member without leader, unhealthy',
    stack({ etcd: [{ pod: pod('etcdns-etcd-0', 'etcd'), metrics: ok(etcdMetrics(0, 0)), health: ok(false) }] }),
    ['etcd member etcdns-etcd-0 has no leader', 'etcd member etcdns-etcd-0 is not healthy'],
  ],
  ['fewer member pods than replicas', stack({ etcdReplicas: ok(3) }), ['etcd: 1 member pod of 3']],
  [
    "etcd's database near its quota",
    stack({ etcd: [{ pod: pod('etcdns-etcd-0', 'etcd'), metrics: ok(etcdMetrics(1, 1, 1.9e9)), health: ok(true) }] }),
    ['database at 88% of its quota'],
  ],
  [
    'a server replica answering from a stale copy',
    stack({
      servers: [
        {
          view: 'internal',
          pod: pod('etcdns-server-internal-x', 'server-internal'),
          summary: ok(server({ readiness: 'stale: etcd unreachable, serving last good copy' })),
        },
      ],
    }),
    ['answers from a stale copy'],
  ],
  [
    'the only replica of a view not ready, its status unreadable',
    stack({
      servers: [
        {
          view: 'external',
          pod: pod('etcdns-server-external-x', 'server-external', false),
          summary: { ok: false, error: '/status.json: 503 service unavailable' },
        },
      ],
    }),
    ['view external: no DNS server is ready', 'etcdns-server-external-x is not ready', 'status not read'],
  ],
  [
    'a secondary behind for 10 minutes',
    secondaryBehind(600),
    ['secondary 192.0.2.53:53 acknowledged serial 38 of example.org. (etcdns-server-internal-x has 45) 10 min ago'],
  ],
  ['a secondary behind for 2 seconds (a NOTIFY on its way)', secondaryBehind(2), []],
  [
    'two controllers, neither leads; an expired Lease',
    stack({
      controllers: [
        { pod: pod('etcdns-controller-a', 'controller'), summary: ok(controller({ leader: false })) },
        { pod: pod('etcdns-controller-b', 'controller'), summary: ok(controller({ leader: false })) },
      ],
      lease: ok({ holder: 'etcdns-controller-c', renewTime: before(60), durationSeconds: 15 }),
    }),
    ['no controller is the leader', "the controller's Lease expired (held by etcdns-controller-c)"],
  ],
  [
    'the leader completed no sync for 11 minutes',
    stack({
      controllers: [
        {
          pod: pod('etcdns-controller-abc', 'controller'),
          summary: ok(controller({ lastCompleted: before(660), lastSync: { at: before(1), outcome: 'error' } })),
        },
      ],
    }),
    ['the leading controller etcdns-controller-abc completed no sync for 11 min'],
  ],
  [
    'objects with problems',
    stack({
      controllers: [
        {
          pod: pod('etcdns-controller-abc', 'controller'),
          summary: ok(
            controller({
              problems: [
                {
                  since: before(120),
                  reason: 'InvalidHostname',
                  object: { kind: 'Service', namespace: 'default', name: 'web' },
                  name: 'bad_name.example.org',
                  message: 'hostname "bad_name.example.org" is invalid\u001b[31m; it is skipped',
                },
              ],
            }),
          ),
        },
      ],
    }),
    ['1 object with problems'],
  ],
  ['a hub whose member clusters all count', hub([counting('dc1'), counting('dc2')]), []],
  [
    "a hub's member cluster gone past the grace period, one name only it published",
    hub([counting('dc1'), gone], ['only-dc2.example.org.']),
    ['member cluster dc2 does not count', '1 name answered from clusters none of which counts'],
  ],
  [
    "a hub's member cluster publishing names outside its claims",
    hub(
      [counting('dc1'), { ...counting('dc2'), refusedNames: 3 }],
      [],
      [
        {
          cluster: 'dc2',
          name: 'web.dc1.example.org.',
          reason: `"web.dc1.example.org." is outside cluster dc2's claims (dc2.example.org.)`,
        },
      ],
    ),
    [`member cluster dc2 publishes 3 names outside its claims, refused, e.g. "web.dc1.example.org." is outside`],
  ],
];

for (const [situation, status, expected] of rows)
  test(`status: ${situation}`, () => {
    const report = statusReport(status, 160);
    assert.equal(report.attention.length, expected.length, report.attention.join('\n'));
    for (const fragment of expected)
      assert.ok(
        report.attention.some((a) => a.includes(fragment)),
        `"${fragment}" in:\n${report.attention.join('\n')}`,
      );
    if (expected.length === 0) assert.equal(report.lines.at(-1), 'nothing needs a person');
    else assert.ok(report.lines.includes('needs a person:'));
    // eslint-disable-next-line no-control-regex
    assert.ok(!report.lines.some((l) => /[\u0000-\u001f]/.test(l)), 'no control character reaches the terminal');
    assert.ok(!report.lines.some((l) => l.length > 160), 'lines fit the width');
  });

test("status: a hub's screen names each member cluster, its verdict and lease", () => {
  const text = statusReport(hub([counting('dc1'), gone, { ...counting('dc3'), refusedNames: 2 }]), 120).lines.join(
    '\n',
  );
  for (const part of [
    'member clusters (from etcdns-server-internal-x, grace 10 s):',
    /dc1 +counts +lease held 90 s/,
    /dc2 +NOT COUNTING +lease gone 40 s ago/,
    /dc3 +counts +lease held 90 s +2 names refused \(outside its claims\)/,
  ])
    assert.ok(typeof part === 'string' ? text.includes(part) : part.test(text), `${String(part)} in\n${text}`);
});

test('status: the screen names each part', () => {
  const text = statusReport(stack(), 120).lines.join('\n');
  for (const part of [
    'etcd: 1 of 1 members ready',
    /etcdns-etcd-0 +ready +leader +healthy +db 20\.0 KiB of 2\.0 GiB/,
    'DNS servers, view internal: 1 of 1 ready',
    /etcdns-server-internal-x +ready +synced +revision 40 +behind etcd <= 0 +12 records +example\.org serial 38/,
    /example\.org -> 192\.0\.2\.53:53 +acknowledged 38 30 s ago +current +transferred 38 \(ixfr\) 29 s ago/,
    'controller: 1 of 1 ready; no Lease (one replica)',
    /etcdns-controller-abc +ready +leader +last sync 3 s ago \(unchanged\) +last completed 3 s ago +internal: 12 names/,
    'objects with problems: 0',
  ])
    assert.ok(typeof part === 'string' ? text.includes(part) : part.test(text), `${String(part)} in\n${text}`);
});

const DS = 'example.org. IN DS 2371 13 2 1F987CC6583E92DF0890718C42F5E4A7EC55FC7B9C4A3E0D9A5B6D2C1E3F4A5B';
// [situation, the signer as read, lines on the screen]; none of them needs a person (the
// signer's Service may be out of the terminal's reach).
const signerRows: [string, StackStatus['signer'], string[]][] = [
  [
    'the DS for the parent, whole, even past the width',
    ok({ at: '192.0.2.80:53', zones: [{ zone: 'example.org.', ds: ok([DS]) }] }),
    ["DNSSEC signer at 192.0.2.80:53: the DS records for the parent zones (the signer's CDS)", `  ${DS}`],
  ],
  [
    'a zone not signed yet',
    ok({ at: '192.0.2.80:53', zones: [{ zone: 'example.org.', ds: ok([]) }] }),
    ['  example.org.: no CDS yet (not signed yet)'],
  ],
  [
    'a zone whose CDS was not read',
    ok({ at: '10.96.0.80:53', zones: [{ zone: 'example.org.', ds: { ok: false, error: 'no answer' } }] }),
    ['  example.org.: not read: no answer'],
  ],
  [
    'the signer not read',
    { ok: false, error: 'no Service etcdns-dnssec-signer' },
    ['DNSSEC signer: not read: no Service etcdns-dnssec-signer'],
  ],
  ['no signer', undefined, []],
];
for (const [situation, signer, expected] of signerRows)
  test(`status, DNSSEC signer: ${situation}`, () => {
    const report = statusReport(stack({ signer }), 80);
    assert.deepEqual(report.attention, []);
    for (const line of expected) assert.ok(report.lines.includes(line), `"${line}" in\n${report.lines.join('\n')}`);
    assert.equal(
      report.lines.some((l) => l.startsWith('DNSSEC signer')),
      signer !== undefined,
    );
  });
