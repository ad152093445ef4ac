// The fault scenarios of issue 15, each under dnsperf load and a Service churn, each returning
// its figures. The tests run them short (test/faults/*.test.ts), `npm run bench:faults` long.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DnsperfResult } from '../../bench/dns/dnsperf.ts';
import { startProcess, waitFor } from '../support/process.ts';
import { etcdnsServerArgs } from '../support/etcdns-server.ts';
import { freePort } from '../support/ports.ts';
import { nodeBin } from '../support/tools.ts';
import type { CheckFigures } from './checker.ts';
import { ZONE } from './churn.ts';
import { DnsProbe } from './dns-probe.ts';
import { Rig, type RigOptions } from './fault-rig.ts';

export interface ScenarioResult {
  scenario: string;
  seconds: number;
  rate: number;
  dnsperf: { sent: number; completed: number; lost: number; notNoerror: number };
  check: CheckFigures;
  /** Changes the API server accepted, and refused (it was down). */
  changes: number;
  refused: number;
  /** Changes not visible in DNS after the settle time. */
  lost: number;
  etcdMismatched: string[];
  foreignTouched: string[];
  duplicates: number;
  /** Scenario-specific figures (ms unless named otherwise). */
  extra: Record<string, number | string | boolean>;
}

export interface LoadOptions {
  /** dnsperf queries per second over the stable names. */
  rate: number;
  /** Service changes per second. */
  churnRate: number;
}

function notNoerror(r: DnsperfResult): number {
  return Object.entries(r.rcodes)
    .filter(([code]) => code !== 'NOERROR')
    .reduce((n, [, c]) => n + c, 0);
}

function sumDnsperf(rs: DnsperfResult[]): ScenarioResult['dnsperf'] {
  const sum = (f: (r: DnsperfResult) => number) => rs.reduce((n, r) => n + f(r), 0);
  return {
    sent: sum((r) => r.sent),
    completed: sum((r) => r.completed),
    lost: sum((r) => r.lost),
    notNoerror: sum(notNoerror),
  };
}

/** Runs `body` with the rig under load and churn, then settles and checks etcd. */
async function underLoad(
  scenario: string,
  rigOptions: RigOptions,
  load: LoadOptions,
  seconds: number,
  body: (rig: Rig, extra: ScenarioResult['extra']) => Promise<DnsperfResult[] | void>,
  /** false: the body runs dnsperf itself (in windows) and returns its results. */
  continuousLoad = true,
): Promise<ScenarioResult> {
  const rig = await Rig.start({ ...rigOptions, churnRate: load.churnRate });
  const extra: ScenarioResult['extra'] = {};
  try {
    const perf = continuousLoad ? rig.load(load.rate, seconds) : undefined;
    rig.checker.start();
    rig.churn.start();
    const started = Date.now();
    const windows = await body(rig, extra);
    const left = seconds * 1000 - (Date.now() - started);
    if (left > 0) await sleep(left);
    await rig.churn.stop();
    const lost = await rig.settle(20_000);
    const check = await rig.checker.stop();
    const dnsperf = sumDnsperf(perf ? [await perf] : (windows ?? []));
    const etcd = await rig.checkEtcd();
    return {
      scenario,
      seconds: Math.round((Date.now() - started) / 1000),
      rate: load.rate,
      dnsperf,
      check,
      changes: rig.churn.applied,
      refused: rig.churn.refused,
      lost,
      etcdMismatched: etcd.mismatched,
      foreignTouched: etcd.foreignTouched,
      duplicates: rig.duplicates,
      extra,
    };
  } finally {
    await rig.stop();
  }
}

async function killMember(rig: Rig, index: number): Promise<void> {
  const p = rig.etcd.members[index]!.process!;
  p.kill('SIGKILL');
  await p.exited;
}

/** The index of the member etcd says is the leader. */
async function leaderIndex(rig: Rig): Promise<number> {
  const status = await rig.kv.maintenance.status();
  const members = (await rig.kv.cluster.memberList({})).members;
  const leader = members.find((m) => m.ID === status.leader);
  const index = rig.etcd.members.findIndex((m) => m.name === leader?.name);
  if (index < 0) throw new Error(`no leader among ${members.map((m) => m.name).join(', ')}`);
  return index;
}

/** 1. 3-member etcd: one member killed and restarted, the leader killed, quorum lost then back. */
export function etcdMembers(load: LoadOptions, phaseSeconds: number, quorumLossSeconds: number) {
  const total = phaseSeconds * 5 + quorumLossSeconds;
  return underLoad('etcd members', { etcdMembers: 3 }, load, total, async (rig, extra) => {
    await sleep(phaseSeconds * 1000);
    const follower = ((await leaderIndex(rig)) + 1) % 3;
    await killMember(rig, follower);
    await sleep(phaseSeconds * 1000);
    await rig.etcd.startMember(follower);
    await sleep(phaseSeconds * 1000);
    const leader = await leaderIndex(rig);
    await killMember(rig, leader);
    extra.leaderKilled = rig.etcd.members[leader]!.name;
    await sleep(phaseSeconds * 1000);
    await rig.etcd.startMember(leader);
    const [a, b] = [0, 1, 2].filter((i) => i !== leader).slice(0, 2) as [number, number];
    await Promise.all([killMember(rig, a), killMember(rig, b)]);
    await sleep(quorumLossSeconds * 1000);
    const back = Date.now();
    await Promise.all([rig.etcd.startMember(a), rig.etcd.startMember(b)]);
    extra.quorumBackMs = Date.now() - back;
    rig.checker.markRecovered();
  });
}

/** 2. Every etcd member down for `outageSeconds`, the DNS server restarted in the middle. */
export function etcdOutageWithRestart(load: LoadOptions, outageSeconds: number) {
  return underLoad(
    'etcd outage + server restart',
    { etcdMembers: 3, snapshot: true },
    load,
    outageSeconds + 15,
    async (rig, extra) => {
      // Let the snapshot be written (at most every 2 s after a change).
      await sleep(5000);
      await Promise.all([0, 1, 2].map((i) => killMember(rig, i)));
      const down = Date.now();
      await sleep((outageSeconds * 1000) / 2);
      await rig.server.stop();
      extra.restartToReadyMs = await rig.startServer(true);
      extra.readyzAfterRestart = (await rig.serverReadyz()).body.trim();
      // The same restart without a snapshot, for contrast: what a server answered before.
      extra.withoutSnapshot = await withoutSnapshot(rig);
      await sleep(Math.max(0, outageSeconds * 1000 - (Date.now() - down)));
      await rig.etcd.start();
      rig.checker.markRecovered();
      await waitFor(
        'server synced',
        async () => ((await rig.serverReadyz()).body.startsWith('ready: synced') ? true : undefined),
        30_000,
      );
      extra.liveAgainMs = Date.now() - down - outageSeconds * 1000;
    },
  );
}

/** A server without --snapshot-file started while etcd is down: its readiness and one answer. */
async function withoutSnapshot(rig: Rig): Promise<string> {
  const [port, httpPort] = [await freePort(), await freePort()];
  const p = startProcess(
    'etcdns-server-no-snapshot',
    nodeBin,
    etcdnsServerArgs({ etcdEndpoints: rig.etcd.endpoints, zones: [ZONE] }, port, httpPort),
  );
  const probe = new DnsProbe(port);
  try {
    // On a loaded machine the process takes a while to listen: wait for it to answer, not a fixed time.
    const ready = await waitFor(
      'the server without a snapshot answers HTTP',
      () =>
        fetch(`http://127.0.0.1:${httpPort}/readyz`).then(
          (r) => r.status,
          () => undefined,
        ),
      30_000,
      100,
    );
    const answer = await waitFor('the server without a snapshot answers DNS', async () => {
      const a = await probe.query([...rig.stable.keys()][0]!, 1000);
      return a.rcode === 'TIMEOUT' ? undefined : a;
    });
    return `readyz ${ready}, ${answer.rcode}`;
  } finally {
    probe.close();
    await p.stop();
  }
}

/** 3a. The API server down for `downSeconds` under changes. */
export function apiServerDown(load: LoadOptions, downSeconds: number) {
  return underLoad('kube-apiserver down', {}, load, downSeconds + 15, async (rig) => {
    await sleep(5000);
    await rig.kube.process.stop();
    await sleep(downSeconds * 1000);
    await rig.kube.restart();
    rig.checker.markRecovered();
  });
}

/** 3b. The controller SIGKILLed while a burst of changes is being written; a new one takes over. */
export function controllerKilled(load: LoadOptions, burst: number) {
  return underLoad('controller SIGKILL mid-batch', { controllers: 1 }, load, 20, async (rig, extra) => {
    await sleep(2000);
    // A burst of changes on top of the churn; kill once some but not all are in etcd.
    const before = Object.keys(await rig.kv.getAll().prefix('/skydns/').keys()).length;
    const burstDone = rig.churn.burst(burst);
    await waitFor(
      'a partly written burst',
      async () => {
        const n = (await rig.kv.getAll().prefix('/skydns/').keys()).length;
        return n > before + 5 ? n - before : undefined;
      },
      20_000,
      5,
    );
    rig.controllers[0]!.process.kill('SIGKILL');
    const killed = Date.now();
    extra.writtenAtKill = (await rig.kv.getAll().prefix('/skydns/').keys()).length - before;
    await burstDone;
    await rig.startController(1);
    extra.replacementReadyMs = Date.now() - killed;
    rig.checker.markRecovered();
  });
}

interface LogLine {
  time: string;
  msg: string;
}

function logLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** 3c. Two controllers; the leader is cut from the API server (not from etcd) for `splitSeconds`. */
export function controllerSplit(load: LoadOptions, splitSeconds: number) {
  return underLoad(
    'two controllers, leader split from API server',
    { controllers: 2, splitController: true },
    load,
    splitSeconds + 15,
    async (rig, extra) => {
      const [a, b] = rig.controllers as [(typeof rig.controllers)[0], (typeof rig.controllers)[0]];
      await waitFor('c0 leads', async () => ((await a!.metric('etcdns_controller_leader')) === 1 ? true : undefined));
      await sleep(3000);
      rig.proxy!.cut();
      const cut = Date.now();
      await waitFor(
        'c1 leads',
        async () => ((await b!.metric('etcdns_controller_leader')) === 1 ? true : undefined),
        30_000,
      );
      extra.takeoverMs = Date.now() - cut;
      await sleep(Math.max(0, splitSeconds * 1000 - (Date.now() - cut)));
      rig.proxy!.restore();
      rig.checker.markRecovered();
      await sleep(3000);
      const aLines = logLines(a!.process.logs());
      const stoppedAt = aLines.find((l) => l.msg === 'stopped leading' && Date.parse(l.time) >= cut)?.time;
      const tookOverAt = logLines(b!.process.logs()).find((l) => l.msg === 'became leader')?.time;
      const writesAfterStop = stoppedAt
        ? aLines.filter((l) => l.msg === 'changes applied' && l.time > stoppedAt).length
        : -1;
      // What fences is a's own check before each write, not its log line: so its writes logged
      // (after they were committed) once c1 leads are counted apart.
      const writesAfterTakeover = tookOverAt
        ? aLines.filter((l) => l.msg === 'changes applied' && l.time >= tookOverAt).length
        : -1;
      extra.oldLeaderStoppedMs = stoppedAt ? Date.parse(stoppedAt) - cut : -1;
      extra.newLeaderStartedMs = tookOverAt ? Date.parse(tookOverAt) - cut : -1;
      extra.fencingMarginMs = stoppedAt && tookOverAt ? Date.parse(tookOverAt) - Date.parse(stoppedAt) : -1;
      extra.oldLeaderWritesWhileSplit = writesAfterStop;
      extra.oldLeaderWritesAfterTakeover = writesAfterTakeover;
      if (!(Number(extra.fencingMarginMs) > 0))
        // c0's side of the cut, ms from the cut, to tell a late log line from a late step-down.
        extra.oldLeaderTimeline = aLines
          .filter((l) => Date.parse(l.time) >= cut - 3000 && !l.msg.startsWith('etcd write'))
          .map((l) => `${Date.parse(l.time) - cut} ${l.msg}`)
          .slice(0, 60)
          .join(' | ');
    },
  );
}

/** 4. Every member's data lost: the cluster starts empty, the controller re-publishes. */
export function etcdDataLost(load: LoadOptions) {
  return underLoad('all etcd data lost', { etcdMembers: 3 }, load, 30, async (rig, extra) => {
    await sleep(5000);
    await rig.etcd.stop();
    const { rmSync, mkdirSync } = await import('node:fs');
    for (const m of rig.etcd.members) {
      rmSync(m.dataDir, { recursive: true, force: true });
      mkdirSync(m.dataDir);
    }
    rig.forgetWrites();
    const restarted = Date.now();
    await rig.etcd.start();
    extra.etcdBackMs = Date.now() - restarted;
    rig.checker.markRecovered();
    rig.kv = rig.etcd.client();
    await waitFor(
      'every stable name answers again',
      async () => {
        for (const [name, address] of rig.stable) {
          if ((await rig.probe.query(name, 500)).addresses.join(',') !== address) return undefined;
        }
        return true;
      },
      60_000,
      100,
    );
    extra.fullAnswersMs = Date.now() - restarted;
    await waitFor(
      'etcd holds the desired state again',
      async () => ((await rig.checkEtcd()).mismatched.length === 0 ? true : undefined),
      60_000,
      100,
    );
    extra.republishedMs = Date.now() - restarted;
    // The foreign entries went with the data; the controller must not have made up any.
    const all = await rig.kv.getAll().prefix('/skydns/').strings();
    extra.othersInvented = Object.values(all).filter((v) => !v.includes('"owner":"faults"')).length;
    extra.foreignLostWithData = true;
  });
}

/** Least-squares slope of (t ms, v) samples, per 10 minutes. */
export function slopePer10Min(samples: { t: number; v: number }[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mv = samples.reduce((a, s) => a + s.v, 0) / n;
  const cov = samples.reduce((a, s) => a + (s.t - mt) * (s.v - mv), 0);
  const vt = samples.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return vt === 0 ? 0 : (cov / vt) * 600_000;
}

function p99Ms(rs: DnsperfResult[]): number {
  const all = rs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return (all[Math.min(all.length - 1, Math.floor(all.length * 0.99))] ?? 0) * 1000;
}

async function socketCount(pid: number): Promise<number> {
  const { readdir, readlink } = await import('node:fs/promises');
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.filter((l) => l.startsWith('socket:')).length;
}

async function etcdGauge(rig: Rig, name: string): Promise<number> {
  const { metricSum } = await import('../support/metrics-text.ts');
  const pages = await Promise.all(
    rig.etcd.members.map((m) =>
      fetch(`${m.clientUrl}/metrics`).then(
        (r) => r.text(),
        () => '',
      ),
    ),
  );
  return pages.reduce((n, page) => n + metricSum(page, name), 0);
}

interface Sample {
  t: number;
  serverRss: number;
  serverHeap: number;
  controllerRss: number;
  controllerHeap: number;
  serverSockets: number;
  controllerSockets: number;
  etcdWatchers: number;
  etcdWatchStreams: number;
}

/**
 * 5. Soak: load and churn for `minutes` in dnsperf windows of `windowSeconds`, sampling memory,
 * sockets and etcd's watches; slopes over the samples after the first fifth (warm-up), p99 of
 * the first and the last `compareMinutes`.
 */
export function soak(load: LoadOptions, minutes: number, windowSeconds: number, compareMinutes: number) {
  const seconds = minutes * 60;
  return underLoad(
    'soak',
    { etcdMembers: 3 },
    load,
    seconds,
    async (rig, extra) => {
      const { metricSum } = await import('../support/metrics-text.ts');
      const samples: Sample[] = [];
      const started = Date.now();
      const sample = async () => {
        const server = await fetch(`http://127.0.0.1:${rig.serverHttpPort}/metrics`).then((r) => r.text());
        const controller = (await rig.controllers[0]!.http('/metrics')).body;
        samples.push({
          t: Date.now() - started,
          serverRss: metricSum(server, 'process_resident_memory_bytes') / 2 ** 20,
          serverHeap: metricSum(server, 'etcdns_dns_heap_used_bytes') / 2 ** 20,
          controllerRss: metricSum(controller, 'process_resident_memory_bytes') / 2 ** 20,
          controllerHeap: metricSum(controller, 'etcdns_controller_memory_bytes', 'kind="heap_used"') / 2 ** 20,
          serverSockets: await socketCount(rig.server.pid),
          controllerSockets: await socketCount(rig.controllers[0]!.process.pid),
          etcdWatchers: await etcdGauge(rig, 'etcd_debugging_mvcc_watcher_total'),
          etcdWatchStreams: await etcdGauge(rig, 'etcd_debugging_mvcc_watch_stream_total'),
        });
      };
      const sampler = setInterval(() => void sample().catch(() => undefined), Math.min(10_000, windowSeconds * 500));
      const windows: DnsperfResult[] = [];
      try {
        while (Date.now() - started < seconds * 1000 - windowSeconds * 500) {
          windows.push(await rig.load(load.rate, windowSeconds, true));
        }
      } finally {
        clearInterval(sampler);
      }
      await sample();
      const steady = samples.filter((s) => s.t >= (seconds * 1000) / 5);
      const slope = (f: (s: Sample) => number) =>
        Number(slopePer10Min(steady.map((s) => ({ t: s.t, v: f(s) }))).toFixed(2));
      extra.serverRssMiB = Number(samples[samples.length - 1]!.serverRss.toFixed(1));
      extra.serverRssSlopeMiBPer10Min = slope((s) => s.serverRss);
      extra.serverHeapSlopeMiBPer10Min = slope((s) => s.serverHeap);
      extra.controllerRssMiB = Number(samples[samples.length - 1]!.controllerRss.toFixed(1));
      extra.controllerRssSlopeMiBPer10Min = slope((s) => s.controllerRss);
      extra.controllerHeapSlopeMiBPer10Min = slope((s) => s.controllerHeap);
      // Means of the first and the last `compareMinutes`: a step shows here, a slope may hide it.
      const edge = compareMinutes * 60_000;
      const firstLast = (f: (s: Sample) => number) => {
        const mean = (xs: Sample[]) => xs.reduce((sum, x) => sum + f(x), 0) / Math.max(1, xs.length);
        const end = samples[samples.length - 1]!.t;
        const [a, b] = [mean(samples.filter((x) => x.t <= edge)), mean(samples.filter((x) => x.t >= end - edge))];
        return `${a.toFixed(1)} -> ${b.toFixed(1)}`;
      };
      extra.serverRssFirstLastMiB = firstLast((x) => x.serverRss);
      extra.serverHeapFirstLastMiB = firstLast((x) => x.serverHeap);
      extra.controllerRssFirstLastMiB = firstLast((x) => x.controllerRss);
      extra.controllerHeapFirstLastMiB = firstLast((x) => x.controllerHeap);
      const [first, last] = [steady[0] ?? samples[0]!, samples[samples.length - 1]!];
      extra.serverSockets = `${first.serverSockets} -> ${last.serverSockets}`;
      extra.controllerSockets = `${first.controllerSockets} -> ${last.controllerSockets}`;
      extra.etcdWatchers = `${first.etcdWatchers} -> ${last.etcdWatchers}`;
      extra.etcdWatchStreams = `${first.etcdWatchStreams} -> ${last.etcdWatchStreams}`;
      extra.socketGrowth =
        last.serverSockets - first.serverSockets + (last.controllerSockets - first.controllerSockets);
      extra.watchGrowth = last.etcdWatchers - first.etcdWatchers;
      const perCompare = Math.max(1, Math.round((compareMinutes * 60) / windowSeconds));
      extra.p99FirstMs = Number(p99Ms(windows.slice(0, perCompare)).toFixed(3));
      extra.p99LastMs = Number(p99Ms(windows.slice(-perCompare)).toFixed(3));
      return windows;
    },
    false,
  );
}
