// The controller at scale under change: with N Services in the API server and 20 other Service
// changes a second going on, how long one Service's change takes to be answered by DNS (our
// server, and CoreDNS reading the same etcd), and the controller's memory meanwhile. One run per
// controller, each with its own etcd, DNS servers and controller; the Services are shared.
import { readFileSync } from 'node:fs';
import { startCoreDns, etcdCorefile } from '../../test/support/coredns.ts';
import { startEtcd } from '../../test/support/etcd.ts';
import { startEtcdnsServer } from '../../test/support/etcdns-server.ts';
import { startExternalDns } from '../../test/support/external-dns.ts';
import type { KubeHandle } from '../../test/support/kube-apiserver.ts';
import { freePort } from '../../test/support/ports.ts';
import { startProcess, waitFor, type ManagedProcess } from '../../test/support/process.ts';
import { metricSum } from '../../test/support/metrics-text.ts';
import { nodeBin } from '../../test/support/tools.ts';
import { percentile } from '../dns/stats.ts';
import { answerPoller } from './answer-poller.ts';
import type { KubeWriter } from './kube-writer.ts';

export const ZONE = 'bench.example.org';
export const PROBE = 'probe';

/** external-dns as the benchmarks run it: Services only, TXT registry, reacting to watch events. */
export const EXTERNAL_DNS_ARGS = [
  '--source=service',
  `--domain-filter=${ZONE}`,
  '--txt-owner-id=bench',
  '--registry=txt',
  '--policy=sync',
  '--events',
  '--interval=1m',
];

/** Our controller from a checkout (`bin`: its bin/etcdns.js), or external-dns. */
export type ControllerSpec = { label: string; kind: 'etcdns'; bin: string } | { label: string; kind: 'external-dns' };

export interface Latencies {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface ChurnResult {
  controller: string;
  services: number;
  /** Controller start to every Service's record in etcd. */
  allInMs: number;
  /** Probe change (API request sent) to the first answer with the new address. */
  etcdns: Latencies;
  coredns: Latencies;
  /** Each probe's time to our server's answer, in order, ms (where in the run the slow ones were). */
  etcdnsProbesMs: number[];
  /** Other Service changes made while probing, and their rate. */
  churnWrites: number;
  churnPerSecond: number;
  rssMiB: number;
  peakRssMiB: number;
  /** Our controller's garbage collections while the probes ran (nodejs_gc_duration_seconds). */
  gc?: GcPauses;
  /** Set when the run gave up (a probe or the first sync timed out). */
  failed?: string;
}

export interface ChurnOptions {
  kube: KubeHandle;
  writer: KubeWriter;
  /** Every Service's name; the probe's is PROBE. */
  names: string[];
  controller: ControllerSpec;
  probes: number;
  ratePerSecond: number;
  timeoutMs: number;
}

export interface GcPauses {
  major: number;
  /** Collections of any kind longer than 100 ms: each holds every change back that long. */
  over100ms: number;
  /** All collections' time, ms. */
  totalMs: number;
}

function gcTotals(page: string) {
  const name = 'nodejs_gc_duration_seconds';
  return {
    major: metricSum(page, `${name}_count`, 'kind="major"'),
    count: metricSum(page, `${name}_count`),
    upTo100ms: metricSum(page, `${name}_bucket`, 'le="0.1"'),
    seconds: metricSum(page, `${name}_sum`),
  };
}

/** What changed between two /metrics pages. */
function gcPauses(before: string, after: string): GcPauses {
  const [a, b] = [gcTotals(before), gcTotals(after)];
  return {
    major: b.major - a.major,
    over100ms: b.count - b.upTo100ms - (a.count - a.upTo100ms),
    totalMs: (b.seconds - a.seconds) * 1000,
  };
}

export function rssMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

export function summary(xs: number[]): Latencies {
  return { n: xs.length, p50: percentile(xs, 50), p99: percentile(xs, 99), max: xs.length ? Math.max(...xs) : NaN };
}

export async function startOurController(
  bin: string,
  kubeconfigFile: string,
  etcdEndpoints: string[],
  extra: string[] = [],
): Promise<{ proc: ManagedProcess; metrics: () => Promise<string> }> {
  const port = await freePort();
  const proc = startProcess('etcdns-controller', nodeBin, [
    bin,
    'controller',
    '--kubeconfig',
    kubeconfigFile,
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
    ...(extra.includes('--log-level') ? [] : ['--log-level', 'warn']),
    ...extra,
  ]);
  const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  await waitFor(
    'controller ready',
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
    300_000,
  );
  return { proc, metrics };
}

export async function churnRun(o: ChurnOptions): Promise<ChurnResult> {
  const { writer, names, controller } = o;
  const etcd = await startEtcd();
  const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE] });
  const coredns = await startCoreDns(etcdCorefile({ zones: [ZONE], endpoints: etcd.endpoints }));
  const host = `${PROBE}.${ZONE}`;
  const started = performance.now();
  const ourController =
    controller.kind === 'etcdns'
      ? await startOurController(controller.bin, o.kube.kubeconfigFile, etcd.endpoints)
      : undefined;
  const proc =
    ourController?.proc ??
    (await startExternalDns({
      kubeconfigFile: o.kube.kubeconfigFile,
      etcdEndpoints: etcd.endpoints,
      args: EXTERNAL_DNS_ARGS,
    }));
  const kv = etcd.client();
  const result: ChurnResult = {
    controller: controller.label,
    services: names.length,
    allInMs: NaN,
    etcdns: summary([]),
    coredns: summary([]),
    etcdnsProbesMs: [],
    churnWrites: 0,
    churnPerSecond: 0,
    rssMiB: NaN,
    peakRssMiB: NaN,
  };
  const pollOurs = answerPoller(server.port);
  const pollCoreDns = answerPoller(coredns.port);
  let churning = true;
  let churnDone = 0;
  let churnStarted = 0;
  const others = names.filter((n) => n !== PROBE);
  let churn: Promise<void> = Promise.resolve();
  try {
    // external-dns writes an A and a TXT registry key per name: at least one key per Service either way.
    await waitFor(
      'every record in etcd',
      async () => ((await kv.getAll().prefix('/skydns/').count()) >= names.length ? true : undefined),
      o.timeoutMs,
      200,
    );
    result.allInMs = performance.now() - started;
    // Changes to other Services at a steady rate, none waiting for the one before.
    churnStarted = performance.now();
    churn = (async () => {
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; churning; i++) {
        const name = others[Math.floor(Math.random() * others.length)]!;
        const p = writer
          .setIp(name, `10.200.${(i >> 8) & 255}.${i & 255}`)
          .then(() => void churnDone++)
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
        const due = churnStarted + ((i + 1) * 1000) / o.ratePerSecond;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      }
      await Promise.allSettled(inFlight);
    })();
    const ours: number[] = [];
    const theirs: number[] = [];
    const metricsBefore = await ourController?.metrics();
    for (let k = 1; k <= o.probes; k++) {
      const ip = `10.250.${k >> 8}.${k & 255}`;
      const t0 = performance.now();
      await writer.setIp(PROBE, ip);
      await Promise.all([
        pollOurs.until(host, ip, o.timeoutMs).then(() => ours.push(performance.now() - t0)),
        pollCoreDns.until(host, ip, o.timeoutMs).then(() => theirs.push(performance.now() - t0)),
      ]);
      // A pause of 50-150 ms: probes do not line up with the churn's beat.
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
    result.etcdns = summary(ours);
    result.etcdnsProbesMs = ours.map((ms) => Math.round(ms * 10) / 10);
    result.coredns = summary(theirs);
    if (ourController && metricsBefore) result.gc = gcPauses(metricsBefore, await ourController.metrics());
  } catch (err) {
    result.failed = (err as Error).message;
    process.stderr.write(`--- ${controller.label} output ---\n${proc.logs().slice(-3000)}\n`);
  } finally {
    churning = false;
    await churn;
    result.churnWrites = churnDone;
    result.churnPerSecond = churnStarted ? churnDone / ((performance.now() - churnStarted) / 1000) : 0;
    const memory = rssMiB(proc.pid);
    result.rssMiB = memory.rss;
    result.peakRssMiB = memory.peak;
    pollOurs.close();
    pollCoreDns.close();
    await proc.stop();
    await coredns.stop();
    await server.stop();
    await etcd.stop();
  }
  return result;
}
