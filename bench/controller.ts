// npm run bench:controller — how fast a Service or route change reaches DNS answers, next to external-dns,
// and how the controller scales. Everything on loopback with the real kube-apiserver, etcd, our
// DNS server and CoreDNS; every process stopped by PID (also on failure). Sections (--sections):
// - churn (default): at each --services size (10,000 and 50,000), with --churn-rate other Service
//   changes a second going on, one Service's change to its DNS answer (ours and CoreDNS's), p50
//   and p99, and the controller's RSS; for this checkout's controller, another checkout's
//   (--before DIR, e.g. the previous commit: the before/after of one machine) and external-dns
//   --events (up to --external-dns-max Services);
// - routes: at --routes HTTPRoutes (10,000) on one Gateway, with other routes' hostnames changing
//   at --churn-rate, a route's hostname change and its Gateway's address change to the answer;
// - traefik: at --routes Traefik IngressRoutes (the real CRD), with other routes' Host matchers
//   changing at --churn-rate, a route's Host change, its target annotation's change, and the
//   change of the Service a route takes its address from (etcdns's --traefik-service), to the answer;
// - propagation: one Service alone, ours next to external-dns;
// - scale: the first size's start-up, unchanged resyncs and memory;
// - hub (issue 34): at the first size, the churn run of this checkout's controller twice: as one
//   cluster, then as spoke c0 of a hub of --clusters spokes (the others their records and leases,
//   hub-spokes.ts): one change's time to the hub's answer, and the hub's load time and RSS.
// Prints a table and writes bench/results/controller.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { startEtcd } from '../test/support/etcd.ts';
import { startEtcdnsServer } from '../test/support/etcdns-server.ts';
import { startExternalDns } from '../test/support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../test/support/kube-apiserver.ts';
import { metricSum } from '../test/support/metrics-text.ts';
import { stopAll, waitFor } from '../test/support/process.ts';
import { etcdnsBin } from '../test/support/tools.ts';
import { machineFacts } from './machine.ts';
import { createServices, setLoadBalancerIp } from './controller/services.ts';
import { answerPoller } from './controller/answer-poller.ts';
import {
  churnRun,
  PROBE,
  rssMiB,
  startOurController as startController,
  summary,
  ZONE,
  externalDnsArgs,
  type ChurnResult,
  type ControllerSpec,
  type Workload,
} from './controller/churn.ts';
import { kubeWriter, type KubeWriter } from './controller/kube-writer.ts';
import { hubOfSpokes, singleCluster, spokeZone, type Topology } from './controller/hub-spokes.ts';
import {
  gatewayWorkload,
  ingressRouteHostWorkload,
  ingressRouteServiceWorkload,
  ingressRouteTargetWorkload,
  routeWorkload,
  serviceWorkload,
  TRAEFIK_PROBES,
} from './controller/workloads.ts';
import { installGatewayApiCrds } from '../test/support/gateway-api.ts';
import { installEdgeCrds } from '../test/support/crds.ts';

const { values: opt } = parseArgs({
  options: {
    sections: { type: 'string', default: 'churn' },
    changes: { type: 'string', default: '200' },
    'external-dns-changes': { type: 'string', default: '50' },
    services: { type: 'string', default: '10000,50000' },
    routes: { type: 'string', default: '10000' },
    probes: { type: 'string', default: '40' },
    'external-dns-probes': { type: 'string', default: '5' },
    'external-dns-max': { type: 'string', default: '10000' },
    'churn-rate': { type: 'string', default: '20' },
    clusters: { type: 'string', default: '10' },
    'real-spokes': { type: 'string', default: '2' },
    before: { type: 'string', default: '' },
    'timeout-seconds': { type: 'string', default: '300' },
    skip: { type: 'string', default: '' },
    out: { type: 'string', default: 'bench/results/controller.json' },
  },
});
const sections = new Set(opt.sections.split(',').filter(Boolean));
const skip = new Set(opt.skip.split(',').filter(Boolean));
const sizes = opt.services
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const RESYNCS = 6;

/** This checkout's controller, logging at info (the scale section reads its "cache synced" lines). */
function startOurController(kube: KubeHandle, etcdEndpoints: string[], extra: string[] = []) {
  return startController(etcdnsBin, kube.kubeconfigFile, etcdEndpoints, [...extra, '--log-level', 'info']);
}

/** Propagation: status.loadBalancer update -> first correct answer from our DNS server. */
async function propagation(
  kube: KubeHandle,
  changes: number,
  controller: 'etcdns' | 'external-dns',
): Promise<number[]> {
  const etcd = await startEtcd();
  const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE] });
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const name = `prop-${controller}`;
  const host = `${name}.${ZONE}`;
  const proc =
    controller === 'etcdns'
      ? (await startOurController(kube, etcd.endpoints)).proc
      : await startExternalDns({
          kubeconfigFile: kube.kubeconfigFile,
          etcdEndpoints: etcd.endpoints,
          args: externalDnsArgs(['service']),
        });
  await createServices(core, [name], ZONE);
  const poll = answerPoller(server.port);
  const latencies: number[] = [];
  try {
    for (let i = 0; i <= changes; i++) {
      const ip = `10.${200 + (controller === 'etcdns' ? 0 : 1)}.${i >> 8}.${i & 255}`;
      const started = performance.now();
      await setLoadBalancerIp(core, name, ip);
      await poll.until(host, ip, 120_000);
      if (i > 0) latencies.push(performance.now() - started); // the first one includes start-up
    }
  } catch (err) {
    process.stderr.write(`--- ${controller} output ---\n${proc.logs().slice(-3000)}\n`);
    throw err;
  } finally {
    poll.close();
    await core.deleteNamespacedService({ name, namespace: 'default' });
    await proc.stop();
    await server.stop();
    await etcd.stop();
  }
  return latencies;
}

async function scale(kube: KubeHandle, count: number) {
  const etcd = await startEtcd();
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const names = Array.from({ length: count }, (_, i) => `svc-${String(i).padStart(5, '0')}`);
  process.stderr.write(`creating ${count} Services with load-balancer addresses...\n`);
  await createServices(core, names, ZONE, (i) => `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);
  const kv = etcd.client();
  const started = performance.now();
  // Count the records from the moment the controller starts; the first sync precedes readiness.
  let allInAt = 0;
  const counting = waitFor(
    'all records in etcd',
    async () => ((await kv.getAll().prefix('/skydns/').count()) >= count ? (allInAt = Date.now()) : undefined),
    120_000,
    20,
  );
  const c = await startOurController(kube, etcd.endpoints, ['--resync-seconds', '5']);
  const readyMs = performance.now() - started;
  await counting;
  // The controller logs "cache synced" per kind; the last one is when all its caches were synced.
  const syncedAt = Math.max(
    ...c.proc
      .logs()
      .split('\n')
      .filter((l) => l.includes('"cache synced"'))
      .map((l) => Date.parse((JSON.parse(l) as { time: string }).time)),
  );
  const allInMs = allInAt - syncedAt;
  const revision = async () => Number((await kv.get('/none').exec()).header.revision);
  const before = await revision();
  const syncs = async () => metricSum(await c.metrics(), 'etcdns_controller_syncs_total', 'result="unchanged"');
  // Seconds spent in syncs so far, from the sync-duration histogram (every sync, whatever its result).
  const syncSeconds = async () => {
    const text = await c.metrics();
    return {
      sum: metricSum(text, 'etcdns_controller_sync_duration_seconds_sum'),
      n: metricSum(text, 'etcdns_controller_sync_duration_seconds_count'),
    };
  };
  const unchangedBefore = await syncs();
  const spentBefore = await syncSeconds();
  // Memory is read after several resyncs, not right after the first sync: each sync reads etcd and
  // plans anew, and the heap settles only after a few rounds of that garbage.
  await waitFor(
    `${RESYNCS} unchanged resyncs`,
    async () => ((await syncs()) >= unchangedBefore + RESYNCS ? true : undefined),
    120_000,
    200,
  );
  const resyncWrites = (await revision()) - before;
  const spentAfter = await syncSeconds();
  // What one sync of all 10,000 costs when nothing changed: also what one watch event costs.
  const resyncMs = ((spentAfter.sum - spentBefore.sum) / (spentAfter.n - spentBefore.n)) * 1000;
  const memory = rssMiB(c.proc.pid);
  const reported = await c.metrics();
  const metricMiB = (kind: string) => metricSum(reported, 'etcdns_controller_memory_bytes', `kind="${kind}"`) / 2 ** 20;
  const heapUsedMiB = metricMiB('heap_used');
  const externalMiB = metricMiB('external');
  await stopAll();
  return {
    services: count,
    readyMs,
    allInMs,
    resyncWrites,
    resyncMs,
    rssMiB: memory.rss,
    peakRssMiB: memory.peak,
    heapUsedMiB,
    externalMiB,
  };
}

/** This checkout's controller, --before's, and external-dns unless skipped. */
function controllerSpecs(): ControllerSpec[] {
  return [
    { label: 'etcdns', kind: 'etcdns', bin: etcdnsBin },
    ...(opt.before
      ? [{ label: 'etcdns (before)', kind: 'etcdns' as const, bin: join(opt.before, 'bin', 'etcdns.js') }]
      : []),
    ...(skip.has('external-dns') ? [] : [{ label: 'external-dns --events', kind: 'external-dns' as const }]),
  ];
}

/** One churn run of `controller` under `workload` at `objects` objects. */
async function churnOne(
  kube: KubeHandle,
  workload: Workload,
  objects: number,
  controller: ControllerSpec,
  topology: Topology = singleCluster,
): Promise<ChurnResult> {
  process.stderr.write(`${controller.label}, ${topology.label}, ${workload.label}, at ${objects}...\n`);
  const result = await churnRun({
    kube,
    workload,
    objects,
    controller,
    probes: Number(controller.kind === 'external-dns' ? opt['external-dns-probes'] : opt.probes),
    ratePerSecond: Number(opt['churn-rate']),
    timeoutMs: Number(opt['timeout-seconds']) * 1000,
    topology,
  });
  process.stderr.write(`  ${JSON.stringify(result)}\n`);
  return result;
}

/** Runs each controller under `workload` at `objects` objects. */
async function churnAll(kube: KubeHandle, workload: Workload, objects: number): Promise<ChurnResult[]> {
  const out: ChurnResult[] = [];
  for (const controller of controllerSpecs()) {
    if (controller.kind === 'external-dns' && (objects > Number(opt['external-dns-max']) || workload.etcdnsOnly))
      continue;
    out.push(await churnOne(kube, workload, objects, controller));
  }
  return out;
}

/**
 * Adds ExternalName Services `svc-N` up to `size` objects in all (`names`: those so far, the
 * probe first; the LoadBalancer Service `probe` is created with the first batch).
 */
async function addServices(writer: KubeWriter, names: string[], size: number): Promise<void> {
  const fresh = Array.from({ length: size - names.length }, (_, i) => `svc-${names.length - 1 + i}`);
  const created = performance.now();
  process.stderr.write(`creating ${fresh.length} Services (to ${size})...\n`);
  await writer.createServices(
    fresh,
    ZONE,
    (i) => {
      const n = names.length + i;
      return `10.${100 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
    },
    'ExternalName',
  );
  if (names.length === 1) await writer.createServices([PROBE], ZONE, () => '10.250.0.0', 'LoadBalancer');
  names.push(...fresh);
  process.stderr.write(`  ${Math.round((performance.now() - created) / 1000)} s\n`);
}

/** Creates Services up to each size, then runs every controller against them under churn. */
async function churn(): Promise<ChurnResult[]> {
  const kube = await startKubeApiserver();
  const writer = kubeWriter(kube.admin);
  const names = [PROBE];
  const out: ChurnResult[] = [];
  try {
    for (const size of sizes) {
      await addServices(writer, names, size);
      out.push(...(await churnAll(kube, serviceWorkload(writer, names.slice(1)), names.length)));
    }
  } finally {
    writer.close();
    await stopAll();
  }
  return out;
}

/**
 * Hub and spokes (issue 34): at the first size, this checkout's controller under Service churn as
 * one cluster, then as spoke c0 of a hub of --clusters spokes; the same Services, one run each.
 */
async function hub(): Promise<ChurnResult[]> {
  const kube = await startKubeApiserver();
  const writer = kubeWriter(kube.admin);
  const names = [PROBE];
  try {
    await addServices(writer, names, sizes[0]!);
    // The real spokes' Services are in namespaces of their own, which the measured controller does not watch.
    const real = Number(opt['real-spokes']);
    const spokeServices = names.slice(1);
    for (let k = 1; k <= real; k++) {
      process.stderr.write(`creating ${spokeServices.length} Services of spoke c${k}...\n`);
      await writer.createNamespace(`spoke-c${k}`);
      await writer.createServices(
        spokeServices,
        spokeZone(`c${k}`, ZONE),
        (i) => `10.${100 + k}.${(i >> 8) & 255}.${i & 255}`,
        'ExternalName',
        `spoke-c${k}`,
      );
    }
    const workload = { ...serviceWorkload(writer, names.slice(1)), etcdnsArgs: ['--namespace', 'default'] };
    const ours = controllerSpecs()[0]!;
    const realSpokes = {
      count: real,
      records: spokeServices.length,
      timeoutMs: Number(opt['timeout-seconds']) * 1000,
      start: async (cluster: string, etcdEndpoints: string[]) =>
        (
          await startController(etcdnsBin, kube.kubeconfigFile, etcdEndpoints, [
            '--cluster',
            cluster,
            '--namespace',
            `spoke-${cluster}`,
          ])
        ).proc,
    };
    const out: ChurnResult[] = [];
    for (const topology of [singleCluster, hubOfSpokes(Number(opt.clusters), realSpokes)])
      out.push(await churnOne(kube, workload, names.length, ours, topology));
    return out;
  } finally {
    writer.close();
    await stopAll();
  }
}

/**
 * Routes: `count` HTTPRoutes on one Gateway, and the probe route alone on its own Gateway; then
 * each controller while other routes change their hostnames: the probe route's hostname change,
 * and its Gateway's address change, to the first right answer.
 */
async function routes(count: number): Promise<ChurnResult[]> {
  const kube = await startKubeApiserver();
  await installGatewayApiCrds(kube.admin);
  const writer: KubeWriter = kubeWriter(kube.admin);
  try {
    const others = Array.from({ length: count - 1 }, (_, i) => `route-${i}`);
    const gateway = { name: 'probe-gw', ip: '10.250.0.0' };
    await writer.createGateway('routes-gw', ZONE, '10.240.0.1');
    await writer.createGateway(gateway.name, ZONE, gateway.ip);
    const created = performance.now();
    process.stderr.write(`creating ${count} HTTPRoutes...\n`);
    await writer.createRoutes(
      [PROBE],
      () => `${PROBE}.${ZONE}`,
      () => gateway.name,
    );
    await writer.createRoutes(
      others,
      (i) => `${others[i]}.${ZONE}`,
      () => 'routes-gw',
    );
    process.stderr.write(`  ${Math.round((performance.now() - created) / 1000)} s\n`);
    const out = await churnAll(kube, routeWorkload(writer, others, gateway), count);
    await writer.setRouteHostname(PROBE, `${PROBE}.${ZONE}`);
    out.push(...(await churnAll(kube, gatewayWorkload(writer, others, gateway), count)));
    return out;
  } finally {
    writer.close();
    await stopAll();
  }
}

/**
 * Traefik: `count` IngressRoutes in all, each with a target annotation but `probe-svc`, which
 * takes the address of the LoadBalancer Service `probe-lb`; then each controller while other
 * routes change their Host: the probe route's Host change, its target annotation's change, and
 * (etcdns only) probe-lb's address change, to the first right answer.
 */
async function traefikRoutes(count: number): Promise<ChurnResult[]> {
  const kube = await startKubeApiserver();
  await installEdgeCrds(kube.admin, 'traefik');
  const writer: KubeWriter = kubeWriter(kube.admin);
  const target = 'external-dns.kubernetes.io/target';
  const probeIp = '10.250.0.1';
  try {
    const others = Array.from({ length: count - 2 }, (_, i) => `route-${i}`);
    await writer.createServices([TRAEFIK_PROBES.service], ZONE, () => '10.253.0.0', 'LoadBalancer');
    await writer.setLoadBalancerIp(TRAEFIK_PROBES.service, '10.253.0.0');
    const created = performance.now();
    process.stderr.write(`creating ${count} IngressRoutes...\n`);
    await writer.createIngressRoutes(
      [TRAEFIK_PROBES.route, TRAEFIK_PROBES.serviceRoute],
      (i) => `${[TRAEFIK_PROBES.route, TRAEFIK_PROBES.serviceRoute][i]}.${ZONE}`,
      (i): Record<string, string> => (i === 0 ? { [target]: probeIp } : {}),
    );
    await writer.createIngressRoutes(
      others,
      (i) => `${others[i]}.${ZONE}`,
      (i) => ({ [target]: `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}` }),
    );
    process.stderr.write(`  ${Math.round((performance.now() - created) / 1000)} s\n`);
    const out = await churnAll(kube, ingressRouteHostWorkload(writer, others, probeIp), count);
    await writer.setIngressRouteHost(TRAEFIK_PROBES.route, `${TRAEFIK_PROBES.route}.${ZONE}`);
    out.push(...(await churnAll(kube, ingressRouteTargetWorkload(writer, others), count)));
    out.push(...(await churnAll(kube, ingressRouteServiceWorkload(writer, others), count)));
    return out;
  } finally {
    writer.close();
    await stopAll();
  }
}

const loadAtStart = loadavg();
const results: Record<string, unknown> = { date: new Date().toISOString(), options: opt };
try {
  if (sections.has('propagation')) {
    const kube = await startKubeApiserver();
    results.etcdns = summary(await propagation(kube, Number(opt.changes), 'etcdns'));
    if (!skip.has('external-dns'))
      results.externalDns = summary(await propagation(kube, Number(opt['external-dns-changes']), 'external-dns'));
    await stopAll();
  }
  if (sections.has('scale')) {
    const kube = await startKubeApiserver();
    results.scale = await scale(kube, sizes[0]!);
    await stopAll();
  }
  if (sections.has('churn')) results.churn = await churn();
  if (sections.has('routes')) results.routes = await routes(Number(opt.routes));
  if (sections.has('traefik')) results.traefik = await traefikRoutes(Number(opt.routes));
  if (sections.has('hub')) results.hub = await hub();
} finally {
  await stopAll();
}
results.machine = machineFacts(loadAtStart, loadavg());

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const rows: string[][] = [['measure', 'value', 'target']];
for (const [label, key] of [
  ['etcdns', 'etcdns'],
  ['external-dns --events', 'externalDns'],
] as const) {
  const s = results[key] as ReturnType<typeof summary> | undefined;
  if (!s) continue;
  rows.push([`propagation ${label}, p50 ms (n=${s.n})`, fmt(s.p50), label === 'etcdns' ? '< 100' : '']);
  rows.push([`propagation ${label}, p99 ms`, fmt(s.p99), label === 'etcdns' ? '< 500' : '']);
}
const sc = results.scale as Awaited<ReturnType<typeof scale>> | undefined;
if (sc) {
  rows.push([`scale: process start to ready (caches synced, first sync done), ms`, fmt(sc.readyMs), '']);
  rows.push([`scale: caches synced to all ${sc.services} records in etcd, ms`, fmt(sc.allInMs), '< 5000']);
  rows.push(['scale: etcd writes on unchanged resyncs', String(sc.resyncWrites), '0']);
  rows.push(['scale: one unchanged resync (etcd read + plan), mean ms', fmt(sc.resyncMs), '']);
  rows.push(['scale: controller memory RSS / peak, MiB', `${fmt(sc.rssMiB)} / ${fmt(sc.peakRssMiB)}`, '< 200']);
  rows.push([
    'scale: JS heap used / external after a sync, MiB',
    `${fmt(sc.heapUsedMiB)} / ${fmt(sc.externalMiB)}`,
    '',
  ]);
}
const churned = (['churn', 'routes', 'traefik', 'hub'] as const).flatMap((k) => (results[k] ?? []) as ChurnResult[]);
if (churned.length > 0) {
  const rate = opt['churn-rate'];
  rows.push(['', '', '']);
  rows.push([`churn (${rate} other changes/s of the same kind): one change to its DNS answer`, '', '']);
  for (const r of churned) {
    const at = `${r.controller}, ${r.topology}, ${r.workload}, ${r.services}`;
    if (r.failed) rows.push([`${at}: failed`, r.failed.slice(0, 80), '']);
    rows.push([`${at}: start to all records in etcd, ms`, fmt(r.allInMs), '']);
    rows.push([
      `${at}: etcdns server keys, load (start to ready) ms, RSS MiB`,
      `${r.serverKeys}, ${fmt(r.serverLoadMs)}, ${fmt(r.serverRssMiB)}`,
      '',
    ]);
    const ours = r.controller.startsWith('etcdns');
    rows.push([
      `${at}: etcdns server answer p50 / p99 ms (n=${r.etcdns.n})`,
      `${fmt(r.etcdns.p50)} / ${fmt(r.etcdns.p99)}`,
      ours ? '< 50 / < 150' : '',
    ]);
    if (r.coredns.n > 0)
      rows.push([`${at}: CoreDNS answer p50 / p99 ms`, `${fmt(r.coredns.p50)} / ${fmt(r.coredns.p99)}`, '']);
    rows.push([
      `${at}: controller RSS / peak, MiB`,
      `${fmt(r.rssMiB)} / ${fmt(r.peakRssMiB)}`,
      ours && r.services <= 10_000 ? '<= 170' : '',
    ]);
    if (r.gc) {
      rows.push([
        `${at}: controller GC while probing: major, > 100 ms, total ms`,
        `${r.gc.major}, ${r.gc.over100ms}, ${fmt(r.gc.totalMs)}`,
        '',
      ]);
    }
    rows.push([`${at}: churn writes done, per s`, `${r.churnWrites}, ${fmt(r.churnPerSecond)}`, rate]);
  }
}
const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(width[i]!)).join('  ')}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(opt.out, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nwritten to ${opt.out}\n`);
