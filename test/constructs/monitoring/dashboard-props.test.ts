// observability.dashboard through the real entry point (DnsStack): off by default, a ConfigMap
// for Grafana's sidecar when on (its label, the stack's name in the dashboard), the file the
// package ships, and bad props refused with a message naming the field.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../../src/config/config-error.ts';
import { dashboardFile } from '../../../src/constructs/monitoring/dashboard.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { repoRoot } from '../../support/tools.ts';

interface ConfigMap {
  kind: string;
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  data: Record<string, string>;
}
const base: DnsStackProps = { zones: [{ name: 'example.org' }], observability: { serviceMonitor: { enabled: true } } };
const dashboardOf = (props: DnsStackProps) =>
  (synthObjects(props) as unknown as ConfigMap[]).find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard'),
  );

test('no dashboard ConfigMap unless enabled', () => {
  assert.equal(dashboardOf(base), undefined);
});

test("the sidecar's label by default; the stack's name as the dashboard's stack variable", () => {
  const cm = dashboardOf({
    ...base,
    name: 'dns',
    observability: { ...base.observability, dashboard: { enabled: true } },
  })!;
  assert.equal(cm.metadata.name, 'dns-dashboard');
  assert.equal(cm.metadata.labels.grafana_dashboard, '1');
  assert.equal(cm.data['etcdns.json'], dashboardFile('dns'));
  const json = JSON.parse(cm.data['etcdns.json']!) as {
    uid: string;
    templating: { list: { name: string; query: unknown }[] };
  };
  assert.equal(json.uid, 'etcdns-dns');
  assert.equal(json.templating.list.find((v) => v.name === 'stack')!.query, 'dns');
});

test('labels given replace the default; annotations are kept', () => {
  const cm = dashboardOf({
    ...base,
    observability: {
      ...base.observability,
      dashboard: { enabled: true, labels: { team: 'dns' }, annotations: { 'grafana-folder': 'DNS' } },
    },
  })!;
  assert.equal(cm.metadata.labels.grafana_dashboard, undefined);
  assert.equal(cm.metadata.labels.team, 'dns');
  assert.equal(cm.metadata.annotations?.['grafana-folder'], 'DNS');
});

test('dashboards/etcdns.json (in the package) is the dashboard of the default stack name', () => {
  assert.equal(readFileSync(join(repoRoot, 'dashboards', 'etcdns.json'), 'utf8'), dashboardFile('etcdns'));
});

// [what, dashboard props, serviceMonitor on, message fragment]
const bad: [string, NonNullable<DnsStackProps['observability']>['dashboard'], boolean, string][] = [
  [
    'dashboard without the ServiceMonitor',
    { enabled: true },
    false,
    'observability.dashboard: needs observability.serviceMonitor.enabled',
  ],
  ['label value with a space', { enabled: true, labels: { team: 'a b' } }, true, 'observability.dashboard.labels.team'],
  [
    'annotation key with a space',
    { enabled: true, annotations: { 'a b': 'x' } },
    true,
    'observability.dashboard.annotations',
  ],
];
for (const [what, dashboard, serviceMonitor, message] of bad) {
  test(`refused: ${what}`, () => {
    assert.throws(
      () =>
        synthObjects({
          zones: [{ name: 'example.org' }],
          observability: { serviceMonitor: { enabled: serviceMonitor }, dashboard },
        }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });
}
