// The controller at scale under change: with N objects in the API server (Services, or HTTPRoutes
// attached to Gateways) and 20 other changes a second going on, how long one object's change
// takes to be answered by DNS (our server, and CoreDNS reading the same etcd), and the
// controller's memory meanwhile. One run per controller, each with its own etcd, DNS servers and
// controller; the objects are shared. What is changed is a workload (workloads.ts); where the
// controller writes and what the server answers from, a topology (hub-spokes.ts: one cluster, or
// a hub of spokes). The DNS servers start once every record is in etcd: their load is of all of them.
import { readFileSync } from 'node:fs';
import { startCoreDns, etcdCorefile, type CoreDnsHandle } from '../../test/support/coredns.ts';
import { startEtcd } from '../../test/support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../test/support/etcdns-server.ts';
import { startExternalDns } from '../../test/support/external-dns.ts';
import type { KubeHandle } from '../../test/support/kube-apiserver.ts';
import { freePort } from '../../test/support/ports.ts';
import { startProcess, waitFor, type ManagedProcess } from '../../test/support/process.ts';
import { metricSum } from '../../test/support/metrics-text.ts';
import { nodeBin } from '../../test/support/tools.ts';
import { percentile } from '../dns/stats.ts';
import { answerPoller } from './answer-poller.ts';
import { singleCluster, type Topology } from './hub-spokes.ts';

export const ZONE = 'bench.example.org';
export const PROBE = 'probe';

/** external-dns as the benchmarks run it: these sources, TXT registry, reacting to watch events. */
export function externalDnsArgs(sources: readonly string[]): string[] {
  return [
    ...sources.map((s) => `--source=${s}`),
    `--domain-filter=${ZONE}`,
    '--txt-owner-id=bench',
    '--registry=txt',
    '--policy=sync',
    '--events',
    '--interval=1m',
  ];
}

/** What a churn run changes. */
export interface Workload {
  /** The kind of object, for the table ("Services", "routes"). */
  label: string;
  /** --source values, the same for etcdns and external-dns. */
  sources: readonly string[];
  /** More arguments for our controller (etcdns extensions external-dns has no flag for). */
  etcdnsArgs?: readonly string[];
  /** What is changed exists in etcdns only: external-dns is not run. */
  etcdnsOnly?: boolean;
  /** The probe's k-th change, once the API server took it: the name and the address it must answer. */
  probe(k: number): Promise<{ host: string; ip: string }>;
  /** The i-th change to another object (any of `others`). */
  churn(i: number): Promise<void>;
}

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
  /** Where the controller wrote and what the server answered from (Topology.label). */
  topology: string;
  /** What was changed: Services, routes, Gateways. */
  workload: string;
  services: number;
  /** Controller start to every Service's record in etcd. */
  allInMs: number;
  /** Our DNS server's start to ready (its first full load), and its RSS after the probes. */
  serverLoadMs: number;
  serverRssMiB: number;
  /** The keys the server read (its view's and, in a hub, every spoke's). */
  serverKeys: number;
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
  workload: Workload;
  /** How many objects (each with one record). */
  objects: number;
  controller: ControllerSpec;
  probes: number;
  ratePerSecond: number;
  timeoutMs: number;
  /** Default: one cluster. */
  topology?: Topology;
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
  sources: readonly string[] = ['service'],
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
    ...sources.flatMap((source) => ['--source', source]),
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
  const { workload, controller } = o;
  const topology = o.topology ?? singleCluster;
  const etcd = await startEtcd();
  const started = performance.now();
  const ourController =
    controller.kind === 'etcdns'
      ? await startOurController(
          controller.bin,
          o.kube.kubeconfigFile,
          etcd.endpoints,
          [...(workload.etcdnsArgs ?? []), ...topology.controllerArgs],
          workload.sources,
        )
      : undefined;
  const proc =
    ourController?.proc ??
    (await startExternalDns({
      kubeconfigFile: o.kube.kubeconfigFile,
      etcdEndpoints: etcd.endpoints,
      args: externalDnsArgs(workload.sources),
    }));
  const kv = etcd.client();
  const result: ChurnResult = {
    controller: controller.label,
    topology: topology.label,
    workload: workload.label,
    services: o.objects,
    allInMs: NaN,
    serverLoadMs: NaN,
    serverRssMiB: NaN,
    serverKeys: 0,
    etcdns: summary([]),
    coredns: summary([]),
    etcdnsProbesMs: [],
    churnWrites: 0,
    churnPerSecond: 0,
    rssMiB: NaN,
    peakRssMiB: NaN,
  };
  let churning = true;
  let churnDone = 0;
  let churnStarted = 0;
  let churn: Promise<void> = Promise.resolve();
  let prepared: Awaited<ReturnType<Topology['prepare']>> | undefined;
  let server: EtcdnsServerHandle | undefined;
  let coredns: CoreDnsHandle | undefined;
  const polls: Array<ReturnType<typeof answerPoller>> = [];
  try {
    // external-dns writes an A and a TXT registry key per name: at least one key per object either way.
    await waitFor(
      'every record in etcd',
      async () => ((await kv.getAll().prefix(topology.recordsPrefix(ZONE)).count()) >= o.objects ? true : undefined),
      o.timeoutMs,
      200,
    );
    result.allInMs = performance.now() - started;
    prepared = await topology.prepare(etcd, ZONE, PROBE);
    const serverStarted = performance.now();
    server = await startEtcdnsServer(
      { etcdEndpoints: etcd.endpoints, zones: [ZONE], args: prepared.serverArgs },
      o.timeoutMs,
    );
    result.serverLoadMs = performance.now() - serverStarted;
    await topology.check(server, ZONE, o.timeoutMs);
    for (const prefix of topology.serverPrefixes) result.serverKeys += await kv.getAll().prefix(prefix).count();
    if (topology.coredns) coredns = await startCoreDns(etcdCorefile({ zones: [ZONE], endpoints: etcd.endpoints }));
    const pollOurs = answerPoller(server.port);
    const pollCoreDns = coredns && answerPoller(coredns.port);
    polls.push(pollOurs, ...(pollCoreDns ? [pollCoreDns] : []));
    // Changes to other Services at a steady rate, none waiting for the one before.
    churnStarted = performance.now();
    churn = (async () => {
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; churning; i++) {
        const p = workload
          .churn(i)
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
      const t0 = performance.now();
      const { host, ip } = await workload.probe(k);
      await Promise.all([
        pollOurs.until(host, ip, o.timeoutMs).then(() => ours.push(performance.now() - t0)),
        pollCoreDns?.until(host, ip, o.timeoutMs).then(() => theirs.push(performance.now() - t0)),
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
    if (server) result.serverRssMiB = rssMiB(server.process.pid).rss;
    for (const poll of polls) poll.close();
    await proc.stop();
    await coredns?.stop();
    await server?.stop();
    await prepared?.stop();
    await etcd.stop();
  }
  return result;
}
