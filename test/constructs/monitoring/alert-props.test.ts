// observability.alerts through the real entry point (DnsStack): off by default, the
// PrometheusRule when on (its rules following the stack's name, etcd size, views and resync),
// the `view` label every server series gets from the ServiceMonitor, and bad props refused with
// a message naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../../src/config/config-error.ts';
import type { AlertRuleGroup } from '../../../src/constructs/monitoring/alert-rules.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';

const monitored: DnsStackProps = {
  zones: [{ name: 'example.org' }],
  observability: { serviceMonitor: { enabled: true } },
};
const kinds = (props: DnsStackProps) => synthObjects(props).map((o) => o.kind);
const ruleGroups = (props: DnsStackProps) =>
  (synthObjects(props).find((o) => o.kind === 'PrometheusRule') as unknown as { spec: { groups: AlertRuleGroup[] } })
    .spec.groups;

test('no PrometheusRule unless alerts are enabled', () => {
  assert.ok(!kinds(monitored).includes('PrometheusRule'));
  assert.ok(
    !kinds({ ...monitored, observability: { ...monitored.observability, alerts: { enabled: false } } }).includes(
      'PrometheusRule',
    ),
  );
});

test("the rules follow the stack's name, etcd size, views and resync", () => {
  const groups = ruleGroups({
    ...monitored,
    name: 'dns',
    etcd: { replicas: 5 },
    views: [{ name: 'inside' }, { name: 'outside', prefix: '/out', exposure: 'external' }],
    controller: { resyncSeconds: 60 },
    observability: { ...monitored.observability, alerts: { enabled: true, servfailRatio: 0.05 } },
  });
  const exprs = groups.flatMap((g) => g.rules.map((r) => `${r.alert}: ${r.expr}`));
  const of = (alert: string) => exprs.filter((e) => e.startsWith(`${alert}:`));
  assert.match(of('EtcdnsEtcdQuorumLost')[0]!, /up\{job="dns-etcd-metrics"\}\) or vector\(0\)\) < 3$/);
  assert.match(of('EtcdnsEtcdMemberDown')[0]!, / < 5$/);
  assert.deepEqual(
    of('EtcdnsDnsViewDown').map((e) => /job="([^"]+)"/.exec(e)![1]),
    ['dns-server-inside-metrics', 'dns-server-outside-metrics'],
  );
  assert.match(of('EtcdnsControllerNotSyncing')[0]!, /> 120 and/);
  assert.match(of('EtcdnsDnsServfailRatioHigh')[0]!, /> 0\.05 and/);
  for (const e of exprs) assert.doesNotMatch(e, /etcdns-/, "every job is the stack's own");
});

test('a one-member etcd has no MemberDown rule (QuorumLost says the same)', () => {
  const groups = ruleGroups({
    ...monitored,
    etcd: { replicas: 1 },
    observability: { ...monitored.observability, alerts: { enabled: true } },
  });
  const alerts = groups.flatMap((g) => g.rules.map((r) => r.alert));
  assert.ok(alerts.includes('EtcdnsEtcdQuorumLost') && !alerts.includes('EtcdnsEtcdMemberDown'));
});

test("the ServiceMonitor copies each server metrics Service's view label to `view`", () => {
  const objects = synthObjects({ ...monitored, views: [{ name: 'internal' }, { name: 'b', prefix: '/b' }] });
  const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as unknown as {
    spec: { endpoints: { relabelings: { sourceLabels: string[]; targetLabel: string }[] }[] };
  };
  assert.deepEqual(monitor.spec.endpoints[0]!.relabelings, [
    { sourceLabels: ['__meta_kubernetes_service_label_etcdns_io_view'], targetLabel: 'view' },
  ]);
  const viewOf = (name: string) =>
    (
      objects.find((o) => o.kind === 'Service' && o.metadata.name === name) as unknown as {
        metadata: { labels: Record<string, string> };
      }
    ).metadata.labels['etcdns.io/view'];
  assert.equal(viewOf('etcdns-server-internal-metrics'), 'internal');
  assert.equal(viewOf('etcdns-server-b-metrics'), 'b');
  assert.equal(viewOf('etcdns-controller-metrics'), undefined);
});

// [what, alerts props, serviceMonitor on, message fragment]
const bad: [string, NonNullable<DnsStackProps['observability']>['alerts'], boolean, string][] = [
  [
    'alerts without the ServiceMonitor',
    { enabled: true },
    false,
    'observability.alerts: needs observability.serviceMonitor.enabled',
  ],
  [
    'SERVFAIL ratio of 1',
    { enabled: true, servfailRatio: 1 },
    true,
    'observability.alerts.servfailRatio: must be a number between 0 and 1',
  ],
  ['SERVFAIL ratio of 0', { enabled: true, servfailRatio: 0 }, true, 'observability.alerts.servfailRatio'],
  [
    'latency above the largest bucket',
    { enabled: true, latencyP99Seconds: 10 },
    true,
    'observability.alerts.latencyP99Seconds: must be a number of seconds above 0 and at most 5',
  ],
  [
    'runbook URL that is not one',
    { enabled: true, runbookUrl: 'docs/alerts.md' },
    true,
    'observability.alerts.runbookUrl: must be an http(s) URL',
  ],
  ['label key with a space', { enabled: true, labels: { 'a b': 'x' } }, true, 'observability.alerts.labels: key "a b"'],
];
for (const [what, alerts, serviceMonitor, message] of bad) {
  test(`refused: ${what}`, () => {
    assert.throws(
      () =>
        synthObjects({
          zones: [{ name: 'example.org' }],
          observability: { serviceMonitor: { enabled: serviceMonitor }, alerts },
        }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });
}
