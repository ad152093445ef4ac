// Every query of the Grafana dashboard that dist/prod ships, run against a real Prometheus
// (Debian's package) scraping, on loopback, a real etcd, a real `etcdns controller` (with the
// real kube-apiserver) and two real `etcdns server`s, one per view of the prod example, one
// feeding a real Knot secondary: each must return series, so no metric or label is misspelt.
// The scrape config does what the Prometheus Operator does with dist/prod's ServiceMonitor: the
// job from the Service's name, then the ServiceMonitor's own relabelings (the view label). The
// same Prometheus evaluates dist/prod's alerting rules: every rule must evaluate without error.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { load } from 'js-yaml';
import {
  controllerKubeconfig,
  startController,
  type ControllerHandle,
} from '../../runtime/controller/controller-harness.ts';
import { dig } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from '../../support/knot-secondary.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createIngress, createLoadBalancerService } from '../../support/kube-objects.ts';
import { freePort } from '../../support/ports.ts';
import { startPrometheus, type PrometheusHandle } from '../../support/prometheus.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { repoRoot, tool } from '../../support/tools.ts';
import { prodViewsConfig } from '../../support/prod-views.ts';
import { transferArgs, writeKeyFile } from '../../support/tsig-key.ts';

const ZONE = 'example.org';
const SECRET = 'c2VjcmV0LWtleS1mb3ItdGhlLWRhc2hib2FyZC10ZXN0Cg==';
const KEY = { name: 'xfr.example.org', algorithm: 'hmac-sha256', secret: SECRET };
const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const dir = tempDir('dashboard');
const dist = <T>(file: string) => load(readFileSync(join(repoRoot, 'dist', 'prod', file), 'utf8')) as T;

interface Target {
  expr: string;
  legendFormat: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
}
interface Variable {
  name: string;
  definition?: string;
  allValue?: string;
  query: unknown;
}
const configMap = dist<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(
  'configmap-etcdns-dashboard.yaml',
);
const dashboard = JSON.parse(configMap.data['etcdns.json']!) as {
  panels: Panel[];
  templating: { list: Variable[] };
};
const panels = dashboard.panels.filter((p) => p.type !== 'row');
const serviceMonitor = dist<{
  spec: { endpoints: { relabelings: { sourceLabels: string[]; targetLabel: string }[] }[] };
}>('servicemonitor-etcdns.yaml');
const rules = dist<{ spec: { groups: { rules: unknown[] }[] } }>('prometheusrule-etcdns.yaml').spec;

let kube: KubeHandle;
let etcd: EtcdHandle;
let inside: EtcdnsServerHandle;
let outside: EtcdnsServerHandle;
let knot: KnotSecondaryHandle;
let controller: ControllerHandle;
let prometheus: PrometheusHandle;
const run = promisify(execFile);

/** dist/prod's ServiceMonitor endpoint relabelings as Prometheus relabel_configs. */
function relabelConfigs(): Record<string, unknown>[] {
  const endpoint = serviceMonitor.spec.endpoints[0] as {
    relabelings: { sourceLabels: string[]; targetLabel: string }[];
  };
  return endpoint.relabelings.map((r) => ({ source_labels: r.sourceLabels, target_label: r.targetLabel }));
}

/** A target as Kubernetes service discovery gives it for one of dist/prod's metrics Services. */
function target(port: number, service: string, view?: string) {
  return {
    targets: [`127.0.0.1:${port}`],
    labels: {
      __meta_kubernetes_service_name: service,
      ...(view ? { __meta_kubernetes_service_label_etcdns_io_view: view } : {}),
    },
  };
}

/** A dnsperf run of at most `seconds` at `qps` from `source`, over the query lines. */
async function dnsperf(port: number, lines: string[], seconds: number, qps: number, source = '127.0.0.1') {
  const file = join(dir, `queries-${port}-${source}.txt`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const args = ['-s', '127.0.0.1', '-p', String(port), '-a', source, '-d', file, '-l', String(seconds)];
  await run(tool('dnsperf'), [...args, '-Q', String(qps), '-t', '1'], { timeout: (seconds + 10) * 1000 });
}

before(
  async () => {
    [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
    // The zone's NS (a secondary refuses a zone without): not the controller's, which leaves it alone.
    await etcd.client().put('/skydns/org/example/dns/ns/ns1').value('{"host":"127.0.0.1"}');
    const keyFile = writeKeyFile(dir, KEY);
    const knotPort = await freePort();
    [inside, outside] = await Promise.all([
      startEtcdnsServer({
        etcdEndpoints: etcd.endpoints,
        zones: [ZONE],
        prefix: '/skydns',
        args: transferArgs([knotPort], keyFile),
      }),
      // Rate limiting on (external), low enough for a short flood to be limited.
      startEtcdnsServer({
        etcdEndpoints: etcd.endpoints,
        zones: [ZONE],
        prefix: '/skydns-external',
        args: ['--exposure', 'external', '--rate-limit', '5'],
      }),
    ]);
    knot = await startKnotSecondary({ zone: `${ZONE}.`, primaryPort: inside.port, port: knotPort, key: KEY });
    const views = prodViewsConfig(dir);
    controller = await startController({
      kubeconfigFile: await controllerKubeconfig(kube),
      etcdEndpoints: etcd.endpoints,
      ownerId: 'dashboard',
      args: ['--config', views, '--domain-filter', ZONE, '--resync-seconds', '2'],
    });
    const job = relabelConfigs();
    prometheus = await startPrometheus({
      config: {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        scrape_configs: [
          {
            job_name: 'etcdns',
            static_configs: [
              target(Number(new URL(etcd.endpoint).port), 'etcdns-etcd-metrics'),
              target(inside.httpPort, 'etcdns-server-internal-metrics', 'internal'),
              target(outside.httpPort, 'etcdns-server-external-metrics', 'external'),
              target(controller.httpPort, 'etcdns-controller-metrics'),
            ],
            // The Prometheus Operator's job label (the Service's name), then the ServiceMonitor's.
            relabel_configs: [{ source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' }, ...job],
          },
        ],
      },
      rules: [rules],
    });
  },
  { timeout: 120_000 },
);
after(stopAll);

test(
  'the workload: answers of every kind, a transfer and NOTIFYs to knotd, rate limiting, a controller outage of etcd',
  { timeout: 180_000 },
  async () => {
    const core = kube.admin.makeApiClient(k8s.CoreV1Api);
    await createLoadBalancerService(kube.admin, {
      name: 'api',
      annotations: { [HOSTNAME]: `api.${ZONE}` },
      addresses: [{ ip: '10.9.176.10' }],
    });
    await createIngress(kube.admin, {
      name: 'shop',
      spec: { ingressClassName: 'public', rules: [{ host: `shop.${ZONE}` }] },
      addresses: [{ ip: '10.9.176.213' }],
    });
    await waitFor('shop answered in both views', async () => {
      const [a, b] = await Promise.all([
        dig({ port: inside.port, name: `shop.${ZONE}` }),
        dig({ port: outside.port, name: `shop.${ZONE}` }),
      ]);
      return a.answer.length > 0 && b.answer.length > 0 ? true : undefined;
    });
    await waitFor('the zone on knotd', async () => {
      const r = await dig({ port: knot.port, name: ZONE, type: 'SOA', timeoutSeconds: 1 });
      return r.status === 'NOERROR' && r.answer.length > 0 ? true : undefined;
    });
    const lines = [`shop.${ZONE} A`, `api.${ZONE} A`, `api.${ZONE} AAAA`, `${ZONE} SOA`, `${ZONE} NS`, `nx.${ZONE} A`];
    // 8 s of answers of every kind (p50/p99 need observations in the rate window), a flood of the
    // external view from one address (over its 5 answers/s: dropped and slipped), and a change
    // (a NOTIFY and an IXFR to knotd; an event-driven sync).
    await Promise.all([
      dnsperf(inside.port, lines, 8, 200),
      dnsperf(outside.port, [`shop.${ZONE} A`, `nx.${ZONE} A`], 8, 100),
      (async () => {
        await new Promise((r) => setTimeout(r, 2000));
        await createLoadBalancerService(kube.admin, {
          name: 'web',
          annotations: { [HOSTNAME]: `web.${ZONE}` },
          addresses: [{ ip: '10.9.176.11' }],
        });
      })(),
    ]);
    await waitFor('web on knotd (NOTIFY, then IXFR)', async () => {
      const r = await dig({ port: knot.port, name: `web.${ZONE}`, timeoutSeconds: 1 });
      return r.answer.length > 0 ? true : undefined;
    });
    // etcd away for a few seconds while a Service changes: the controller's syncs fail (errors by
    // kind), the servers go stale; then everything recovers.
    await etcd.stop();
    await core.deleteNamespacedService({ name: 'api', namespace: 'default' });
    await waitFor(
      'a failed sync',
      async () => ((await controller.metric('etcdns_controller_syncs_total', 'result="error"')) > 0 ? true : undefined),
      20_000,
      200,
    );
    await etcd.start();
    await waitFor(
      'api gone after etcd returned',
      async () => {
        const r = await dig({ port: inside.port, name: `api.${ZONE}` });
        return r.status === 'NXDOMAIN' ? true : undefined;
      },
      30_000,
      200,
    );
    // More answers after the outage, so the rate windows below hold them.
    await dnsperf(inside.port, lines, 4, 200);
  },
);

/** Grafana's variables as the dashboard sets them: every view, this stack, a 1-minute rate window. */
function withVariables(expr: string): string {
  const view = dashboard.templating.list.find((v) => v.name === 'view')!;
  return expr.replaceAll('$stack', 'etcdns').replaceAll('$view', view.allValue!).replaceAll('$__rate_interval', '1m');
}

test('the view variable lists both views (the relabeling of the ServiceMonitor)', async () => {
  const view = dashboard.templating.list.find((v) => v.name === 'view')!;
  const [, selector] = /^label_values\((.+), view\)$/.exec(withVariables(view.definition!))!;
  const values = await prometheus.api<string[]>(`/api/v1/label/view/values?match[]=${encodeURIComponent(selector!)}`);
  assert.deepEqual(values.sort(), ['external', 'internal']);
  const etcdViews = await prometheus.query('count by (view) (etcd_server_has_leader)');
  assert.deepEqual(
    etcdViews.map((s) => s.metric.view ?? ''),
    [''],
    'etcd series carry no view label',
  );
});

const counts: string[] = [];
for (const panel of panels)
  for (const t of panel.targets ?? [])
    test(`panel "${panel.title}" (${t.legendFormat}): its query returns series`, async () => {
      const result = await prometheus.query(withVariables(t.expr));
      counts.push(`${panel.title} [${t.legendFormat}]: ${result.length}`);
      assert.ok(result.length > 0, `no series for ${withVariables(t.expr)}`);
    });

test('the dashboard has a panel for each part of what operators watch', () => {
  console.log(`# series per panel query: ${counts.join('; ')}`);
  const titles = panels.map((p) => p.title);
  for (const needed of [
    'Answers by rcode',
    'Answers by question type',
    'Answers by view',
    'Time to answer',
    'Answer cache hit ratio',
    'Records held',
    'Watch lag',
    'Sync duration',
    'Errors',
    'Propagation: watch event to etcd',
    'Members up',
    'Transfers served by zone and form',
    'NOTIFY by secondary',
    'Rate limited answers',
  ])
    assert.ok(titles.includes(needed), needed);
});

test('every alerting rule of dist/prod evaluates without error against these series', async () => {
  const data = await waitFor('every rule evaluated', async () => {
    const d = await prometheus.api<{ groups: { rules: { name: string; health: string; lastError?: string }[] }[] }>(
      '/api/v1/rules',
    );
    const all = d.groups.flatMap((g) => g.rules);
    return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
  });
  assert.equal(data.length, rules.groups.flatMap((g) => g.rules).length);
  assert.deepEqual(
    data.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`),
    [],
  );
});
