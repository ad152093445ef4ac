// `npm run bench:faults`: the fault scenarios of issue 15, long, against the real programs on
// loopback (3-member etcd, kube-apiserver, etcdns server and controller) under dnsperf at a
// steady rate and a Service churn. Prints one table and writes bench/results/faults.json.
// The short versions run in `npm test` (test/faults/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts } from './machine.ts';
import { stopAll } from '../test/support/process.ts';
import { cleanupTempDirs } from '../test/support/temp-dir.ts';
import { repoRoot } from '../test/support/tools.ts';
import {
  apiServerDown,
  controllerKilled,
  controllerSplit,
  etcdDataLost,
  etcdMembers,
  etcdOutageWithRestart,
  soak,
  type ScenarioResult,
} from '../test/faults/scenarios.ts';
import { renderFaults } from './faults/report.ts';

const SCENARIOS = ['members', 'outage', 'apiserver', 'sigkill', 'split', 'dataloss', 'soak'] as const;

const { values: opt } = parseArgs({
  options: {
    rate: { type: 'string', default: '2000' },
    churn: { type: 'string', default: '10' },
    'soak-minutes': { type: 'string', default: '30' },
    scenarios: { type: 'string', default: SCENARIOS.join(',') },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results', 'faults.json') },
  },
});

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new Error(`--${name} must be a positive number, got "${value}"`);
  return n;
}

const chosen = opt.scenarios.split(',').filter(Boolean);
const unknown = chosen.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
if (unknown.length > 0 || chosen.length === 0) throw new Error(`--scenarios: use ${SCENARIOS.join(', ')}`);
const config = {
  rate: positive('rate', opt.rate),
  churnRate: positive('churn', opt.churn),
  soakMinutes: positive('soak-minutes', opt['soak-minutes']),
  scenarios: chosen,
};
const load = { rate: config.rate, churnRate: config.churnRate };

const runs: Record<(typeof SCENARIOS)[number], () => Promise<ScenarioResult>> = {
  members: () => etcdMembers(load, 15, 30),
  outage: () => etcdOutageWithRestart(load, 60),
  apiserver: () => apiServerDown(load, 30),
  sigkill: () => controllerKilled(load, 300),
  split: () => controllerSplit(load, 30),
  dataloss: () => etcdDataLost(load),
  soak: () => soak(load, config.soakMinutes, 60, 5),
};

const started = Date.now();
const loadAtStart = loadavg();
const results: ScenarioResult[] = [];
try {
  for (const name of chosen as (typeof SCENARIOS)[number][]) {
    process.stderr.write(`bench:faults: ${name}\n`);
    results.push(await runs[name]());
    await stopAll();
  }
} finally {
  await stopAll();
  cleanupTempDirs();
}
const loadAtEnd = loadavg();
const avg = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
process.stdout.write(
  `${renderFaults(results)}\n\ndnsperf ${config.rate} QPS, ${config.churnRate} Service changes/s; load average (1/5/15 min): ${avg(loadAtStart)} at start, ${avg(loadAtEnd)} at end\n`,
);
mkdirSync(join(opt.out, '..'), { recursive: true });
writeFileSync(
  opt.out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      durationSeconds: Math.round((Date.now() - started) / 1000),
      machine: machineFacts(loadAtStart, loadAtEnd),
      versions: {
        node: process.version,
        etcdns: execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD']).toString().trim(),
      },
      config,
      results,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`wrote ${opt.out}\n`);
