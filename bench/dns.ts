// `npm run bench:dns`: dnsperf against etcdns, CoreDNS (etcd plugin + cache 30) and Knot, on the
// same records, in one run, pinned and unpinned. Prints a table and writes bench/results/dns.json.
// How to run and read it: bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { answerData, dig } from '../test/support/dig.ts';
import { startEtcd } from '../test/support/etcd.ts';
import { stopAll } from '../test/support/process.ts';
import { cleanupTempDirs, tempDir } from '../test/support/temp-dir.ts';
import { repoRoot, tool } from '../test/support/tools.ts';
import { machineFacts } from './machine.ts';
import { CHURN_TARGETS, runChurn, type ChurnTarget } from './dns/churn.ts';
import { allCpus, setAffinity } from './dns/cpu-affinity.ts';
import { runDnsperf, type DnsperfOptions } from './dns/dnsperf.ts';
import { loadIntoEtcd } from './dns/etcd-load.ts';
import { compiledBuild, measureMemory, renderMemoryReport, type MemoryMeasurement } from './dns/memory.ts';
import { cpuMicrosPerQuery, cpuSecondsDuring } from './dns/process-cpu.ts';
import { etcdEntries, generateRecordSet, queryLines, type RecordSet } from './dns/record-set.ts';
import {
  DEFAULT_SERVERS,
  ratios,
  CONTROL_TARGET,
  renderChurnReport,
  renderReport,
  SERVERS,
  targets,
  type ChurnMeasurement,
  type Measurement,
  type Mode,
  type ServerName,
} from './dns/report.ts';
import { startBenchServer, type BenchServer } from './dns/servers.ts';
import { median, percentile } from './dns/stats.ts';

const { values: opt } = parseArgs({
  options: {
    names: { type: 'string', default: '10000' },
    addresses: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    rate: { type: 'string', default: '10000' },
    'rate-seconds': { type: 'string', default: '10' },
    clients: { type: 'string', default: '20' },
    outstanding: { type: 'string', default: '100' },
    servers: { type: 'string' },
    baseline: { type: 'string' },
    modes: { type: 'string', default: 'pinned,unpinned' },
    'etcdns-args': { type: 'string', default: '' },
    churn: { type: 'string', default: '10,100' },
    'churn-targets': { type: 'string', default: CHURN_TARGETS.join(',') },
    memory: { type: 'string', default: '100000' },
    'memory-runs': { type: 'string', default: '2' },
    'memory-baseline': { type: 'string' },
    'memory-only': { type: 'boolean', default: false },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results', 'dns.json') },
  },
});

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

function listOf<T extends string>(name: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').filter(Boolean);
  const bad = items.filter((i) => !(allowed as readonly string[]).includes(i));
  if (bad.length > 0 || items.length === 0) throw new Error(`--${name}: use ${allowed.join(', ')} (got "${value}")`);
  return items as T[];
}

const config = {
  names: positive('names', opt.names),
  /** Addresses of every name; default one, two on every tenth name (record-set.ts). */
  addresses: opt.addresses === undefined ? undefined : positive('addresses', opt.addresses),
  seconds: positive('seconds', opt.seconds),
  runs: positive('runs', opt.runs),
  rate: positive('rate', opt.rate),
  rateSeconds: positive('rate-seconds', opt['rate-seconds']),
  clients: positive('clients', opt.clients),
  outstanding: positive('outstanding', opt.outstanding),
  servers: listOf(
    'servers',
    opt.servers ?? [...DEFAULT_SERVERS, ...(opt.baseline ? ['etcdns-baseline'] : [])].join(','),
    SERVERS,
  ),
  modes: listOf<Mode>('modes', opt.modes, ['pinned', 'unpinned']),
  etcdnsArgs: opt['etcdns-args'].split(' ').filter(Boolean),
  churn: opt.churn
    .split(',')
    .filter(Boolean)
    .map((r) => positive('churn', r)),
  churnTargets: listOf<ChurnTarget>('churn-targets', opt['churn-targets'], CHURN_TARGETS),
  memory: opt.memory
    .split(',')
    .filter(Boolean)
    .map((n) => positive('memory', n)),
  memoryRuns: positive('memory-runs', opt['memory-runs']),
  /**
   * Another checkout (a clean `git worktree add --detach DIR <commit>` with `npm ci`): flooded as
   * `etcdns-baseline` next to this one, and compiled for the memory section.
   */
  baseline: opt.baseline,
  /** Another checkout whose bin/etcdns.js takes turns with this one in the memory section. */
  memoryBaseline: opt['memory-baseline'] ?? opt.baseline,
  memoryOnly: opt['memory-only'],
};
const PREFIX = '/skydns';
const SERVER_CPU = '0';
const DNSPERF_CPU = '1';
/** Linux's memory-backed file system, for etcd's data during the floods. */
const MEMORY_FS = '/dev/shm';
const log = (msg: string) => process.stderr.write(`[bench:dns] ${msg}\n`);

/** Refuses to benchmark a server that answers wrongly: fast wrong answers are worth nothing. */
async function checkAnswers(server: BenchServer, set: RecordSet): Promise<void> {
  const samples = [0, 1, 10, Math.floor(set.names.length / 2), set.names.length - 1];
  for (const i of samples) {
    const { name, addresses } = set.names[i]!;
    const r = await dig({ port: server.port, name });
    const got = answerData(r, 'A');
    if (r.status !== 'NOERROR' || got.join() !== [...addresses].sort().join()) {
      throw new Error(`${server.name} answers ${name} wrongly: ${r.status} ${got.join(' ')}\n${r.raw}`);
    }
  }
  const missing = await dig({ port: server.port, name: set.missing[0]! });
  if (missing.status !== 'NXDOMAIN')
    throw new Error(`${server.name}: ${set.missing[0]} is ${missing.status}, not NXDOMAIN`);
}

function version(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .split('\n')[0]!
      .trim();
  } catch (e) {
    return `unknown (${(e as Error).message})`;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  // Other work on the machine skews every figure: the load averages tell the reader how much.
  const loadAtStart = loadavg();
  const dnsperf = tool('dnsperf');
  const taskset = tool('taskset');
  if (config.modes.includes('pinned') && cpus().length < 2) throw new Error('pinned mode needs two CPUs');

  const memory: MemoryMeasurement[] =
    config.memory.length === 0
      ? []
      : await measureMemory({
          sizes: config.memory,
          runs: config.memoryRuns,
          builds: [
            ...(config.memoryBaseline ? [compiledBuild('baseline', config.memoryBaseline)] : []),
            compiledBuild('this', repoRoot),
          ],
          prefix: PREFIX,
          log,
        });
  const memoryReport = memory.length > 0 ? `\n\n${renderMemoryReport(memory)}` : '';
  if (config.memoryOnly) {
    process.stdout.write(`${renderMemoryReport(memory)}\n`);
    writeResults({ started, loadAtStart, memory });
    return;
  }

  const set = generateRecordSet(config.names, undefined, config.addresses);
  const dir = tempDir('bench-dns');
  const queryFile = join(dir, 'queries.txt');
  // As many lines as names: 90% of the names exist, 10% do not (NXDOMAIN).
  writeFileSync(queryFile, `${queryLines(set, config.names).join('\n')}\n`);

  // etcd's data in memory (tmpfs): on a disk its fsyncs start kernel work (the filesystem's journal
  // thread, block I/O completions) that taskset cannot keep off the server's core, and the churn
  // rows are to measure the server, not the disk. In production etcd has machines of its own.
  const etcdDataIn = existsSync(MEMORY_FS) ? MEMORY_FS : tmpdir();
  log(`etcd: loading ${config.names} names (data in ${etcdDataIn})`);
  const etcd = await startEtcd({ dataParent: etcdDataIn });
  const entries = etcdEntries(set, PREFIX);
  await loadIntoEtcd(etcd.client(), entries);
  // One client for every churn flood's writes (closed with etcd), not a new one per flood.
  const writer = etcd.client();

  const servers: BenchServer[] = [];
  for (const name of config.servers) {
    log(`starting ${name}`);
    const s = await startBenchServer(name, {
      set,
      etcdEndpoints: etcd.endpoints,
      prefix: PREFIX,
      etcdnsArgs: config.etcdnsArgs,
      baselineBin: config.baseline ? join(config.baseline, 'bin', 'etcdns.js') : undefined,
    });
    servers.push(s);
    // The floor answers every name alike on purpose: it serves no records, it measures Node.
    if (s.records !== 'none') await checkAnswers(s, set);
  }

  const measurements: Measurement[] = [];
  /** Churn floods summed over the rounds, per server, mode, target and rate. */
  type ChurnRuns = Pick<ChurnMeasurement, 'server' | 'mode' | 'target' | 'writesPerSecond' | 'writes' | 'stale'> & {
    qps: number[];
    probedQps: number[];
    fresh: number[];
    cpuSeconds: number;
    completed: number;
  };
  const churnRuns: ChurnRuns[] = [];
  for (const mode of config.modes) {
    const dnsperfCpus = mode === 'pinned' ? DNSPERF_CPU : undefined;
    // Pinned, the server's core is its own: etcd and this process (the churn writer and probes)
    // share dnsperf's. The servers are this process's children, so it goes first, alone.
    const all = allCpus(cpus().length);
    const others = mode === 'pinned' ? DNSPERF_CPU : all;
    setAffinity(taskset, process.pid, others, { children: false });
    for (const m of etcd.members) setAffinity(taskset, m.process!.pid, others);
    for (const s of servers) setAffinity(taskset, s.pid, mode === 'pinned' ? SERVER_CPU : all);
    const base: DnsperfOptions = {
      port: 0,
      queryFile,
      seconds: config.seconds,
      clients: config.clients,
      outstanding: config.outstanding,
      ...(dnsperfCpus ? { cpus: dnsperfCpus } : {}),
    };
    // Warm-up (not measured): JIT, caches, CoreDNS's first etcd reads.
    for (const s of servers) await runDnsperf(dnsperf, { ...base, port: s.port, seconds: 2 });

    const flood = new Map<
      ServerName,
      { qps: number[]; cpu: number; completed: number; sent: number; lost: number; rcodes: Record<string, number> }
    >();
    const fixed = new Map<
      ServerName,
      {
        p50: number[];
        p99: number[];
        lost: number;
        cpu: number;
        completed: number;
        gcPauses: number;
        gcSeconds: number;
      }
    >();
    // Servers take turns within each run, so a noisy moment on the machine hits all of them.
    for (let run = 1; run <= config.runs; run++) {
      for (const s of servers) {
        log(`${mode} run ${run}/${config.runs}: ${s.name} flood ${config.seconds}s`);
        const [r, cpu] = await cpuSecondsDuring(s.pid, () => runDnsperf(dnsperf, { ...base, port: s.port }));
        const f = flood.get(s.name) ?? { qps: [], cpu: 0, completed: 0, sent: 0, lost: 0, rcodes: {} };
        f.qps.push(r.qps);
        f.cpu += cpu;
        f.completed += r.completed;
        f.sent += r.sent;
        f.lost += r.lost;
        for (const [code, n] of Object.entries(r.rcodes)) f.rcodes[code] = (f.rcodes[code] ?? 0) + n;
        flood.set(s.name, f);

        // etcd changes reach only the servers that read etcd. Knot's zone file does not change: it
        // is flooded while the same writes run, unprobed, as the control (the floor is not). A
        // server that reads etcd gets two floods per rate and target: the writes alone (its QPS
        // and CPU under change), then the same writes probed (freshness; the probes' own cost
        // shows in that flood's QPS).
        const reads = s.records === 'etcd';
        for (const writesPerSecond of s.records === 'none' ? [] : config.churn) {
          for (const target of reads ? config.churnTargets : (['other'] as const)) {
            const changesTo = reads ? target : CONTROL_TARGET;
            const churnFlood = async (probe: boolean) => {
              log(
                `${mode} run ${run}/${config.runs}: ${s.name} flood ${config.seconds}s, ${writesPerSecond} changes/s ${reads ? `to ${target} names` : 'to etcd (control)'}${probe ? ', probed' : ''}`,
              );
              const [[r, churn], cpuSeconds] = await cpuSecondsDuring(s.pid, () =>
                Promise.all([
                  runDnsperf(dnsperf, { ...base, port: s.port }),
                  runChurn({
                    client: writer,
                    set,
                    prefix: PREFIX,
                    target,
                    ratePerSecond: writesPerSecond,
                    seconds: config.seconds,
                    port: s.port,
                    probe,
                  }),
                ]),
              );
              return { r, churn, cpuSeconds };
            };
            const unprobed = await churnFlood(false);
            const probed = reads ? await churnFlood(true) : undefined;
            let c = churnRuns.find(
              (x) =>
                x.server === s.name &&
                x.mode === mode &&
                x.target === changesTo &&
                x.writesPerSecond === writesPerSecond,
            );
            if (!c)
              churnRuns.push(
                (c = {
                  server: s.name,
                  mode,
                  target: changesTo,
                  writesPerSecond,
                  qps: [],
                  probedQps: [],
                  fresh: [],
                  writes: 0,
                  stale: 0,
                  cpuSeconds: 0,
                  completed: 0,
                }),
              );
            c.qps.push(unprobed.r.qps);
            c.cpuSeconds += unprobed.cpuSeconds;
            c.completed += unprobed.r.completed;
            if (probed) {
              c.probedQps.push(probed.r.qps);
              c.fresh.push(...probed.churn.freshnessMs);
              c.writes += probed.churn.writes;
              c.stale += probed.churn.stale;
            }
          }
        }

        log(`${mode} run ${run}/${config.runs}: ${s.name} at ${config.rate} QPS ${config.rateSeconds}s`);
        // An etcdns build's collections during the run: the share of the time its queries waited on them.
        const gcBefore = await s.gcPauses?.();
        const [q, rateCpu] = await cpuSecondsDuring(s.pid, () =>
          runDnsperf(dnsperf, {
            ...base,
            port: s.port,
            seconds: config.rateSeconds,
            rate: config.rate,
            perQuery: true,
          }),
        );
        const gcAfter = await s.gcPauses?.();
        const x = fixed.get(s.name) ?? { p50: [], p99: [], lost: 0, cpu: 0, completed: 0, gcPauses: 0, gcSeconds: 0 };
        if (gcBefore && gcAfter) {
          x.gcPauses += gcAfter.count - gcBefore.count;
          x.gcSeconds += gcAfter.seconds - gcBefore.seconds;
        }
        x.p50.push(percentile(q.latencies, 50) * 1000);
        x.p99.push(percentile(q.latencies, 99) * 1000);
        x.lost += q.lost;
        x.cpu += rateCpu;
        x.completed += q.completed;
        fixed.set(s.name, x);
      }
    }
    for (const s of servers) {
      const f = flood.get(s.name)!;
      const x = fixed.get(s.name)!;
      measurements.push({
        server: s.name,
        mode,
        qps: median(f.qps),
        qpsRuns: f.qps,
        cpuPerQueryUs: cpuMicrosPerQuery(f.cpu, f.completed),
        lost: f.lost,
        lostPercent: (f.lost / f.sent) * 100,
        rcodes: f.rcodes,
        rate: config.rate,
        p50Ms: median(x.p50),
        p99Ms: median(x.p99),
        rateLost: x.lost,
        cpuPerQueryAtRateUs: cpuMicrosPerQuery(x.cpu, x.completed),
        ...(s.gcPauses
          ? {
              gcPausesAtRate: x.gcPauses / config.runs,
              gcShareAtRate: x.gcSeconds / (config.runs * config.rateSeconds),
            }
          : {}),
      });
    }
  }

  const churnMeasurements: ChurnMeasurement[] = churnRuns.map(
    ({ qps, probedQps, fresh, cpuSeconds, completed, ...c }) => {
      const steady = measurements.find((m) => m.server === c.server && m.mode === c.mode)!;
      return {
        ...c,
        qps: median(qps),
        probedQps: probedQps.length ? median(probedQps) : NaN,
        steadyQps: steady.qps,
        cpuPerQueryUs: cpuMicrosPerQuery(cpuSeconds, completed),
        steadyCpuPerQueryUs: steady.cpuPerQueryUs,
        freshnessP50Ms: percentile(fresh, 50),
        freshnessP99Ms: percentile(fresh, 99),
      };
    },
  );
  const report = `${renderReport(measurements)}\n\n${renderChurnReport(churnMeasurements)}${memoryReport}`;
  const loadAtEnd = loadavg();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    `${report}\nload average (1/5/15 min): ${load(loadAtStart)} at start, ${load(loadAtEnd)} at end\n`,
  );
  const rs = ratios(measurements);
  writeResults({
    started,
    loadAtStart,
    memory,
    floods: {
      versions: {
        coredns: version(tool('coredns'), ['-version']),
        knot: version(tool('knotd'), ['--version']),
        dnsperf: version('dpkg-query', ['-W', '-f=${Version}', 'dnsperf']),
      },
      etcdDataIn,
      measurements,
      churn: churnMeasurements,
      ratios: rs,
      targets: targets(rs),
    },
  });
}

/** bench/results/dns.json: the machine, versions, configuration and every figure. */
function writeResults(r: {
  started: number;
  loadAtStart: number[];
  memory: MemoryMeasurement[];
  floods?: { versions: Record<string, string> } & Record<string, unknown>;
}): void {
  const { versions, ...floods } = r.floods ?? { versions: {} };
  mkdirSync(join(opt.out, '..'), { recursive: true });
  writeFileSync(
    opt.out,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        durationSeconds: Math.round((Date.now() - r.started) / 1000),
        machine: machineFacts(r.loadAtStart, loadavg()),
        versions: {
          node: process.version,
          ...versions,
          etcdns: version('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD']),
        },
        config,
        ...floods,
        memory: r.memory,
      },
      null,
      2,
    )}\n`,
  );
  log(`wrote ${opt.out} (${Math.round((Date.now() - r.started) / 1000)} s)`);
}

// Ctrl-C or a kill stops the servers by PID too (dnsperf ends by itself: every run has -l).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    void stopAll().finally(() => {
      cleanupTempDirs();
      process.exit(130);
    });
  });
}

try {
  await main();
} catch (e) {
  process.stderr.write(`[bench:dns] failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
} finally {
  await stopAll();
  cleanupTempDirs();
}
