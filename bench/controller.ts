// npm run bench:controller — how fast a Service change reaches DNS answers, next to external-dns,
// and how the controller scales to 10,000 Services. Everything on loopback with the real
// kube-apiserver, etcd and our DNS server; every process stopped by PID (also on failure).
// Prints a table and writes bench/results/controller.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { startEtcd } from '../test/support/etcd.ts';
import { startEtcdnsServer } from '../test/support/etcdns-server.ts';
import { startExternalDns } from '../test/support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../test/support/kube-apiserver.ts';
import { metricSum } from '../test/support/metrics-text.ts';
import { freePort } from '../test/support/ports.ts';
import { startProcess, stopAll, waitFor, type ManagedProcess } from '../test/support/process.ts';
import { etcdnsBin, nodeBin } from '../test/support/tools.ts';
import { percentile } from './dns/stats.ts';
import { createServices, setLoadBalancerIp } from './controller/services.ts';
import { answerPoller } from './controller/answer-poller.ts';

const { values: opt } = parseArgs({
  options: {
    changes: { type: 'string', default: '200' },
    'external-dns-changes': { type: 'string', default: '50' },
    services: { type: 'string', default: '10000' },
    skip: { type: 'string', default: '' },
    out: { type: 'string', default: 'bench/results/controller.json' },
  },
});
const skip = new Set(opt.skip.split(',').filter(Boolean));
const ZONE = 'bench.example.org';
const RESYNCS = 6;

function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function startOurController(
  kube: KubeHandle,
  etcdEndpoints: string[],
  extra: string[] = [],
): Promise<{ proc: ManagedProcess; metrics: () => Promise<string> }> {
  const port = await freePort();
  const proc = startProcess('etcdns-controller', nodeBin, [
    etcdnsBin,
    'controller',
    '--kubeconfig',
    kube.kubeconfigFile,
    '--etcd',
    etcdEndpoints.join(','),
    '--owner-id',
    'bench',
    '--domain-filter',
    ZONE,
    '--source',
    'service',
    '--http-listen',
    `127.0.0.1:${port}`,
    '--log-level',
    'info',
    ...extra,
  ]);
  const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  await waitFor(
    'controller ready',
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
    120_000,
  );
  return { proc, metrics };
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
          args: [
            '--source=service',
            `--domain-filter=${ZONE}`,
            '--txt-owner-id=bench',
            '--registry=txt',
            '--policy=sync',
            '--events',
            '--interval=1m',
          ],
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

const summary = (xs: number[]) => ({
  n: xs.length,
  p50: percentile(xs, 50),
  p99: percentile(xs, 99),
  max: Math.max(...xs),
});
const results: Record<string, unknown> = { date: new Date().toISOString(), options: opt };
try {
  if (!skip.has('propagation')) {
    const kube = await startKubeApiserver();
    results.etcdns = summary(await propagation(kube, Number(opt.changes), 'etcdns'));
    if (!skip.has('external-dns'))
      results.externalDns = summary(await propagation(kube, Number(opt['external-dns-changes']), 'external-dns'));
    await stopAll();
  }
  if (!skip.has('scale')) {
    const kube = await startKubeApiserver();
    results.scale = await scale(kube, Number(opt.services));
  }
} finally {
  await stopAll();
}

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
const width = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(width[i]!)).join('  ')}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(opt.out, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nwritten to ${opt.out}\n`);
