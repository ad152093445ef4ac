// The memory and load section of bench:dns: for each size, a fresh etcd holding N names of the
// record set the floods use (one child entry per address, every tenth name two), then
// `etcdns server` started cold, as often as asked: seconds from start to ready, the first full
// load (from its own log lines: listening -> records loaded), RSS and peak RSS (/proc), and the
// V8 heap in use (its metric). Another checkout (--memory-baseline) can take turns with this one
// in the same run: before/after figures from one machine and moment. Each is compiled to
// JavaScript first, as the image and the npm package run it (Node's type stripping of the
// sources in a clone costs another ~30 MiB of RSS by itself).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { answerData, dig } from '../../test/support/dig.ts';
import { startEtcd } from '../../test/support/etcd.ts';
import { startEtcdnsServer } from '../../test/support/etcdns-server.ts';
import { metricSum } from '../../test/support/metrics-text.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { repoRoot } from '../../test/support/tools.ts';
import { loadIntoEtcd } from './etcd-load.ts';
import { etcdEntries, generateRecordSet, type RecordSet } from './record-set.ts';
import { median } from './stats.ts';

export interface Build {
  label: string;
  /** The `etcdns` script to run. */
  bin: string;
}

/**
 * A checkout's `etcdns` command compiled as `npm run build` compiles it (tsconfig.build-cli.json),
 * laid out as an installed package: bin/etcdns.js finds no src/ and runs lib/.
 */
export function compiledBuild(label: string, checkout: string): Build {
  const dir = tempDir(`bench-build-${label}`);
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const project = join(checkout, 'tsconfig.build-cli.json');
  execFileSync(process.execPath, [tsc, '-p', project, '--outDir', join(dir, 'lib')], { stdio: 'inherit' });
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(checkout, 'bin', 'etcdns.js'), join(dir, 'bin', 'etcdns.js'));
  copyFileSync(join(checkout, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  return { label, bin: join(dir, 'bin', 'etcdns.js') };
}

export interface MemoryMeasurement {
  build: string;
  names: number;
  /** etcd keys (names plus the second address of every tenth). */
  entries: number;
  readySeconds: number[];
  loadSeconds: number[];
  rssMiB: number[];
  peakRssMiB: number[];
  heapMiB: number[];
}

export interface MemoryOptions {
  sizes: number[];
  runs: number;
  builds: Build[];
  prefix: string;
  log: (msg: string) => void;
}

function procMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Seconds between the first log lines with these messages (the server's own timestamps). */
function logSpan(logs: string, from: string, to: string): number {
  const at = (msg: string) => {
    for (const line of logs.split('\n')) {
      if (!line.startsWith('{')) continue;
      const parsed = JSON.parse(line) as { msg?: string; time?: string };
      if (parsed.msg === msg && parsed.time) return Date.parse(parsed.time);
    }
    throw new Error(`no "${msg}" line in the server's log`);
  };
  return (at(to) - at(from)) / 1000;
}

async function checkSample(port: number, set: RecordSet): Promise<void> {
  for (const i of [0, Math.floor(set.names.length / 2), set.names.length - 1]) {
    const { name, addresses } = set.names[i]!;
    const got = answerData(await dig({ port, name, timeoutSeconds: 5 }), 'A');
    if (got.join() !== [...addresses].sort().join()) throw new Error(`${name} answered ${got.join(' ')}`);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function measureMemory(o: MemoryOptions): Promise<MemoryMeasurement[]> {
  const out: MemoryMeasurement[] = [];
  for (const names of o.sizes) {
    const set = generateRecordSet(names);
    const entries = etcdEntries(set, o.prefix);
    o.log(`memory: loading ${names} names (${entries.length} keys) into a fresh etcd`);
    const etcd = await startEtcd();
    try {
      await loadIntoEtcd(etcd.client(), entries);
      const rows = o.builds.map((b): MemoryMeasurement => ({
        build: b.label,
        names,
        entries: entries.length,
        readySeconds: [],
        loadSeconds: [],
        rssMiB: [],
        peakRssMiB: [],
        heapMiB: [],
      }));
      // Builds take turns within each run, so a busy moment on the machine hits both.
      for (let run = 1; run <= o.runs; run++) {
        for (const [i, build] of o.builds.entries()) {
          o.log(`memory: ${names} names, run ${run}/${o.runs}: ${build.label}`);
          const started = performance.now();
          const server = await startEtcdnsServer(
            { etcdEndpoints: etcd.endpoints, zones: [set.zone], prefix: o.prefix, bin: build.bin },
            600_000,
          );
          try {
            const row = rows[i]!;
            row.readySeconds.push((performance.now() - started) / 1000);
            row.loadSeconds.push(logSpan(server.process.logs(), 'dns server listening', 'records loaded'));
            await checkSample(server.port, set);
            // What the process holds once loaded and idle, not the load's passing garbage.
            await sleep(2000);
            row.rssMiB.push(procMiB(server.process.pid, 'VmRSS'));
            row.peakRssMiB.push(procMiB(server.process.pid, 'VmHWM'));
            const metrics = (await server.http('/metrics')).body;
            row.heapMiB.push(metricSum(metrics, 'etcdns_dns_heap_used_bytes') / 2 ** 20);
          } finally {
            await server.stop();
          }
        }
      }
      out.push(...rows);
    } finally {
      await etcd.stop();
    }
  }
  return out;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** One row per build and size: medians over the runs, each run's RSS in brackets. */
export function renderMemoryReport(ms: MemoryMeasurement[]): string {
  const header = ['build', 'names', 'keys', 'ready s', 'load s', 'RSS MiB', 'runs (RSS)', 'peak MiB', 'heap MiB'];
  const rows = ms.map((m) => [
    m.build,
    fmt(m.names),
    fmt(m.entries),
    fmt(median(m.readySeconds), 2),
    fmt(median(m.loadSeconds), 2),
    fmt(median(m.rssMiB)),
    m.rssMiB.map((r) => fmt(r)).join(' '),
    fmt(median(m.peakRssMiB)),
    fmt(median(m.heapMiB)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const goals = [
    '',
    'Goals (issues 13, 27): 100,000 names <= 150 MiB RSS in every run, load <= 2 s; 1,000,000 names <= 1 GiB, load <= 20 s.',
  ];
  return [
    'Memory and load (cold start, idle after the first full load)',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...goals,
  ].join('\n');
}
