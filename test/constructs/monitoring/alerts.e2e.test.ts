// The alerts of dist/prod (the PrometheusRule a user commits) checked by the real promtool
// (Debian's prometheus package): `promtool check rules`, then per alert a `promtool test rules`
// unit test with input series under which it fires (with the labels and rendered annotations it
// then carries) and series under which it stays quiet. Also: every alert has such a row and a
// runbook section in docs/operations/alerts.md that states its `for:` duration.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { dump, load } from 'js-yaml';
import type { AlertRule, AlertRuleGroup } from '../../../src/constructs/monitoring/alert-rules.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { repoRoot, tool } from '../../support/tools.ts';

const E = 'job="etcdns-etcd-metrics"';
const SI = 'job="etcdns-server-internal-metrics"';
const SE = 'job="etcdns-server-external-metrics"';
const C = 'job="etcdns-controller-metrics"';

interface Series {
  series: string;
  values: string;
}
interface Case {
  why: string;
  series: Series[];
  /** Minutes after the first sample. */
  at: number;
  /** The labels of each alert expected (besides alertname); empty: quiet. */
  alerts: Record<string, string>[];
}
interface Row {
  alert: string;
  fires: Case;
  quiet: Case;
}

const s = (series: string, values: string): Series => ({ series, values });
const bucket = (le: string, values: string) =>
  s(`etcdns_dns_query_duration_seconds_bucket{${SI}, instance="s0", view="internal", le="${le}"}`, values);
const queries = (labels: string, values: string) =>
  s(`etcdns_dns_queries_total{${SI}, instance="s0", view="internal", type="A", ${labels}}`, values);
const storeStates = (job: string, instance: string, state: string) =>
  ['loading', 'synced', 'resyncing', 'stale'].map((st) =>
    s(`etcdns_dns_store_state{${job}, instance="${instance}", state="${st}"}`, st === state ? '1x20' : '0x20'),
  );
const server = { job: 'etcdns-server-internal-metrics', instance: 's0' };
const serverView = { job: server.job, view: 'internal' };
const secondary = { ...server, zone: 'example.org.', secondary: '192.0.2.53:53' };

const ROWS: Row[] = [
  {
    alert: 'EtcdnsEtcdNoLeader',
    fires: {
      why: 'a member without leader for 9 minutes',
      series: [s(`etcd_server_has_leader{${E}, instance="m0"}`, '1 0x10')],
      at: 10,
      alerts: [{ severity: 'critical', job: 'etcdns-etcd-metrics', instance: 'm0' }],
    },
    quiet: {
      why: 'one sample without leader (an election)',
      series: [s(`etcd_server_has_leader{${E}, instance="m0"}`, '1 0 1x10')],
      at: 10,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsEtcdQuorumLost',
    fires: {
      why: '1 of 3 members up',
      series: [
        s(`up{${E}, instance="m0"}`, '1x10'),
        s(`up{${E}, instance="m1"}`, '0x10'),
        s(`up{${E}, instance="m2"}`, '0x10'),
      ],
      at: 5,
      alerts: [{ severity: 'critical' }],
    },
    quiet: {
      why: '2 of 3 members up',
      series: [
        s(`up{${E}, instance="m0"}`, '1x10'),
        s(`up{${E}, instance="m1"}`, '1x10'),
        s(`up{${E}, instance="m2"}`, '0x10'),
      ],
      at: 5,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsEtcdMemberDown',
    fires: {
      why: 'one member down for 14 minutes',
      series: [
        s(`up{${E}, instance="m0"}`, '1x20'),
        s(`up{${E}, instance="m1"}`, '1x20'),
        s(`up{${E}, instance="m2"}`, '1 0x20'),
      ],
      at: 15,
      alerts: [{ severity: 'warning' }],
    },
    quiet: {
      why: 'one member down for 5 minutes (a restart, a node drain)',
      series: [
        s(`up{${E}, instance="m0"}`, '1x20'),
        s(`up{${E}, instance="m1"}`, '1x20'),
        s(`up{${E}, instance="m2"}`, '1x5 0x5 1x10'),
      ],
      at: 15,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsViewDown',
    fires: {
      why: "both of the internal view's replicas still loading; the external view synced",
      series: [
        ...storeStates(SI, 's0', 'loading'),
        ...storeStates(SI, 's1', 'loading'),
        ...storeStates(SE, 'x0', 'synced'),
      ],
      at: 5,
      alerts: [{ severity: 'critical', view: 'internal' }],
    },
    quiet: {
      why: 'one replica of each view synced, the other internal one loading',
      series: [
        ...storeStates(SI, 's0', 'loading'),
        ...storeStates(SI, 's1', 'stale'),
        ...storeStates(SE, 'x0', 'synced'),
      ],
      at: 5,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsServerNotReady',
    fires: {
      why: 'a replica loading for 10 minutes',
      series: storeStates(SI, 's0', 'loading'),
      at: 10,
      alerts: [{ severity: 'warning', ...server, state: 'loading' }],
    },
    quiet: {
      why: 'a replica loading for 2 minutes, then synced',
      series: [
        s(`etcdns_dns_store_state{${SI}, instance="s0", state="loading"}`, '1 1 0x10'),
        s(`etcdns_dns_store_state{${SI}, instance="s0", state="synced"}`, '0 0 1x10'),
      ],
      at: 10,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsServerStale',
    fires: {
      why: 'stale for 10 minutes',
      series: storeStates(SI, 's0', 'stale'),
      at: 10,
      alerts: [{ severity: 'warning', ...server, state: 'stale' }],
    },
    quiet: {
      why: 'stale for 3 minutes (etcd briefly away), then synced',
      series: [
        s(`etcdns_dns_store_state{${SI}, instance="s0", state="stale"}`, '1x3 0x10'),
        s(`etcdns_dns_store_state{${SI}, instance="s0", state="synced"}`, '0x3 1x10'),
      ],
      at: 10,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsServerBehindEtcd',
    fires: {
      why: 'etcd ahead and the copy unmoved for 30 minutes',
      series: [
        s(`etcdns_dns_etcd_watch_lag_revisions{${SI}, instance="s0"}`, '5x40'),
        s(`etcdns_dns_store_revision{${SI}, instance="s0"}`, '100x40'),
        s(`process_start_time_seconds{${SI}, instance="s0"}`, '0x40'),
      ],
      at: 30,
      alerts: [{ severity: 'warning', ...server }],
    },
    quiet: {
      why: 'etcd ahead (other prefixes change) but the copy moves with each progress notification',
      series: [
        s(`etcdns_dns_etcd_watch_lag_revisions{${SI}, instance="s0"}`, '5x40'),
        s(`etcdns_dns_store_revision{${SI}, instance="s0"}`, '100x9 200x9 300x9 400x10'),
        s(`process_start_time_seconds{${SI}, instance="s0"}`, '0x40'),
      ],
      at: 30,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsServfailRatioHigh',
    fires: {
      why: '1 SERVFAIL/s among 11 answers/s',
      series: [
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
        queries('rcode="SERVFAIL", transport="udp"', '0+60x30'),
      ],
      at: 20,
      alerts: [{ severity: 'warning', ...serverView }],
    },
    quiet: {
      why: '0.05 SERVFAIL/s among 10 answers/s (0.5%)',
      series: [
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
        queries('rcode="SERVFAIL", transport="udp"', '0+3x30'),
      ],
      at: 20,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsLatencyHigh',
    fires: {
      why: 'every answer between 50 and 100 ms',
      series: [
        bucket('0.001', '0x30'),
        bucket('0.05', '0x30'),
        bucket('0.1', '0+600x30'),
        bucket('+Inf', '0+600x30'),
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
      ],
      at: 20,
      alerts: [{ severity: 'warning', ...serverView }],
    },
    quiet: {
      why: 'every answer within 1 ms',
      series: [
        bucket('0.001', '0+600x30'),
        bucket('0.05', '0+600x30'),
        bucket('0.1', '0+600x30'),
        bucket('+Inf', '0+600x30'),
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
      ],
      at: 20,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsRateLimitDropping',
    fires: {
      why: '1 answer/s dropped among 10 UDP answers/s',
      series: [
        s(`etcdns_dns_rate_limited_total{${SI}, instance="s0", view="internal", action="dropped"}`, '0+60x30'),
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
      ],
      at: 25,
      alerts: [{ severity: 'warning', ...serverView }],
    },
    quiet: {
      why: '1% dropped',
      series: [
        s(`etcdns_dns_rate_limited_total{${SI}, instance="s0", view="internal", action="dropped"}`, '0+6x30'),
        queries('rcode="NOERROR", transport="udp"', '0+600x30'),
      ],
      at: 25,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsDnsUpdatesRefused',
    fires: {
      why: 'one update of key acme REFUSED at minute 3 (outside its scope)',
      series: [
        s(`etcdns_dns_updates_total{${SI}, instance="s0", view="internal", key="acme", result="NOERROR"}`, '0x2 1x20'),
        s(`etcdns_dns_updates_total{${SI}, instance="s0", view="internal", key="acme", result="REFUSED"}`, '0x2 1x20'),
      ],
      at: 9,
      alerts: [{ severity: 'warning', ...serverView, key: 'acme' }],
    },
    quiet: {
      why: 'updates applied, and a prerequisite not met (NXRRSET: the client asked, not a refusal)',
      series: [
        s(`etcdns_dns_updates_total{${SI}, instance="s0", view="internal", key="acme", result="NOERROR"}`, '0+1x20'),
        s(`etcdns_dns_updates_total{${SI}, instance="s0", view="internal", key="acme", result="NXRRSET"}`, '0x2 1x20'),
      ],
      at: 9,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsSecondaryNotifyUnacknowledged',
    fires: {
      why: 'the zone moved to serial 200 at minute 11, the secondary acknowledged only 100; another was sent NOTIFYs and never acknowledged one',
      series: [
        s(`etcdns_dns_zone_serial{${SI}, instance="s0", zone="example.org."}`, '100x10 200x30'),
        s(
          `etcdns_dns_notify_acked_serial{${SI}, instance="s0", zone="example.org.", secondary="192.0.2.53:53"}`,
          '100x40',
        ),
        s(
          `etcdns_dns_notify_total{${SI}, instance="s0", zone="example.org.", secondary="192.0.2.53:53", outcome="sent"}`,
          '1+1x40',
        ),
        s(
          `etcdns_dns_notify_total{${SI}, instance="s0", zone="example.org.", secondary="192.0.2.54:53", outcome="sent"}`,
          '1+1x40',
        ),
      ],
      at: 40,
      alerts: [
        { severity: 'warning', ...secondary },
        { severity: 'warning', ...secondary, secondary: '192.0.2.54:53' },
      ],
    },
    quiet: {
      why: 'the zone changes every minute and the secondary acknowledges each serial',
      series: [
        s(`etcdns_dns_zone_serial{${SI}, instance="s0", zone="example.org."}`, '100+10x40'),
        s(
          `etcdns_dns_notify_acked_serial{${SI}, instance="s0", zone="example.org.", secondary="192.0.2.53:53"}`,
          '100+10x40',
        ),
        s(
          `etcdns_dns_notify_total{${SI}, instance="s0", zone="example.org.", secondary="192.0.2.53:53", outcome="sent"}`,
          '1+1x40',
        ),
      ],
      at: 40,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsControllerNoLeader',
    fires: {
      why: 'two replicas, neither leads',
      series: [
        s(`etcdns_controller_leader{${C}, instance="c0"}`, '0x10'),
        s(`etcdns_controller_leader{${C}, instance="c1"}`, '0x10'),
      ],
      at: 5,
      alerts: [{ severity: 'warning' }],
    },
    quiet: {
      why: 'one of two leads',
      series: [
        s(`etcdns_controller_leader{${C}, instance="c0"}`, '1x10'),
        s(`etcdns_controller_leader{${C}, instance="c1"}`, '0x10'),
      ],
      at: 5,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsControllerNotSyncing',
    fires: {
      why: 'the leader last completed a sync at time 0; at minute 20 that is over 600 s ago',
      series: [
        s(`etcdns_controller_last_sync_timestamp_seconds{${C}, instance="c0"}`, '0x30'),
        s(`etcdns_controller_leader{${C}, instance="c0"}`, '1x30'),
      ],
      at: 20,
      alerts: [{ severity: 'warning', job: 'etcdns-controller-metrics', instance: 'c0' }],
    },
    quiet: {
      why: 'the leader syncs every minute; the standby (which does not sync) is not looked at',
      series: [
        s(`etcdns_controller_last_sync_timestamp_seconds{${C}, instance="c0"}`, '0+60x30'),
        s(`etcdns_controller_leader{${C}, instance="c0"}`, '1x30'),
        s(`etcdns_controller_last_sync_timestamp_seconds{${C}, instance="c1"}`, '0x30'),
        s(`etcdns_controller_leader{${C}, instance="c1"}`, '0x30'),
      ],
      at: 20,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsControllerSourceNotServed',
    fires: {
      why: 'HTTPRoute not served for 20 minutes',
      series: [
        s(`etcdns_controller_kind_not_served{${C}, instance="c0", kind="HTTPRoute"}`, '1x30'),
        s(`etcdns_controller_kind_not_served{${C}, instance="c0", kind="Service"}`, '0x30'),
      ],
      at: 20,
      alerts: [{ severity: 'warning', job: 'etcdns-controller-metrics', kind: 'HTTPRoute' }],
    },
    quiet: {
      why: 'HTTPRoute not served for 10 minutes, then its CRD installed',
      series: [s(`etcdns_controller_kind_not_served{${C}, instance="c0", kind="HTTPRoute"}`, '1x10 0x20')],
      at: 20,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsControllerSyncErrors',
    fires: {
      why: 'a failed sync every 12 s for 30 minutes',
      series: [s(`etcdns_controller_syncs_total{${C}, instance="c0", result="error"}`, '0+5x30')],
      at: 20,
      alerts: [{ severity: 'warning', job: 'etcdns-controller-metrics', instance: 'c0' }],
    },
    quiet: {
      why: 'failed syncs for 3 minutes, then none',
      series: [s(`etcdns_controller_syncs_total{${C}, instance="c0", result="error"}`, '0 5 10 15x30')],
      at: 20,
      alerts: [],
    },
  },
  {
    alert: 'EtcdnsObjectProblemsGrowing',
    fires: {
      why: '0 conflicts for an hour, then 3 for 40 minutes',
      series: [
        s(`etcdns_controller_problems{${C}, instance="c0", reason="RecordConflict"}`, '0x60 3x60'),
        s(`etcdns_controller_problems{${C}, instance="c0", reason="InvalidTTL"}`, '1x120'),
      ],
      at: 100,
      alerts: [{ severity: 'warning', job: 'etcdns-controller-metrics', reason: 'RecordConflict' }],
    },
    quiet: {
      why: '3 conflicts for two hours, and one more for 20 minutes',
      series: [s(`etcdns_controller_problems{${C}, instance="c0", reason="RecordConflict"}`, '3x80 4x20 3x20')],
      at: 100,
      alerts: [],
    },
  },
];

const rulesFile = join(repoRoot, 'dist', 'prod', 'prometheusrule-etcdns.yaml');
const groups = (load(readFileSync(rulesFile, 'utf8')) as { spec: { groups: AlertRuleGroup[] } }).spec.groups;
const rules: AlertRule[] = groups.flatMap((g) => g.rules);
const run = promisify(execFile);
const dir = tempDir('promtool');
writeFileSync(join(dir, 'rules.yaml'), dump({ groups }));

/** The annotations an alert carries with these labels: its templates with $labels filled in. */
function rendered(alert: string, labels: Record<string, string>): Record<string, string> {
  const rule = rules.find((r) => r.alert === alert && Object.entries(r.labels).every(([k, v]) => labels[k] === v))!;
  return Object.fromEntries(
    Object.entries(rule.annotations).map(([k, template]) => [
      k,
      template.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, name: string) => {
        assert.ok(name in labels, `${alert}'s ${k} uses label ${name}, which the alert does not carry`);
        return labels[name]!;
      }),
    ]),
  );
}

function unitTest(alert: string, c: Case) {
  return {
    interval: '1m',
    input_series: c.series,
    alert_rule_test: [
      {
        eval_time: `${c.at}m`,
        alertname: alert,
        exp_alerts: c.alerts.map((labels) => ({ exp_labels: labels, exp_annotations: rendered(alert, labels) })),
      },
    ],
  };
}

test('promtool check rules accepts the PrometheusRule of dist/prod', async () => {
  const { stdout } = await run(tool('promtool'), ['check', 'rules', join(dir, 'rules.yaml')]);
  assert.match(stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
});

test('every alert has a unit test row, and a runbook section stating its for: duration', () => {
  const names = [...new Set(rules.map((r) => r.alert))];
  assert.deepEqual(ROWS.map((r) => r.alert).sort(), [...names].sort());
  const runbook = readFileSync(join(repoRoot, 'docs', 'operations', 'alerts.md'), 'utf8');
  for (const name of names) {
    const section = runbook.split(/^### /m).find((part) => part.startsWith(`${name}\n`));
    assert.ok(section, `docs/operations/alerts.md has a section "### ${name}"`);
    for (const r of rules.filter((x) => x.alert === name))
      assert.match(section, new RegExp(`\`for: ${r.for}\``), `${name}'s section states for: ${r.for}`);
    const url = rules.find((x) => x.alert === name)!.annotations.runbook_url!;
    assert.ok(url.endsWith(`alerts.md#${name.toLowerCase()}`), `${name} links its section`);
  }
});

for (const row of ROWS) {
  test(`${row.alert}: fires (${row.fires.why}); quiet (${row.quiet.why})`, async () => {
    const file = join(dir, `${row.alert}.test.yaml`);
    writeFileSync(
      file,
      dump({
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [unitTest(row.alert, row.fires), unitTest(row.alert, row.quiet)],
      }),
    );
    const result = await run(tool('promtool'), ['test', 'rules', file]).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    assert.match(`${result.stdout}${result.stderr}`, /SUCCESS/, `${result.stdout}\n${result.stderr}`);
  });
}
