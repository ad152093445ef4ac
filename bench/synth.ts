// npm run bench:synth [-- --runs N]: how long synth takes for all example environments.
//  - cold: the whole `node src/main.ts --out <tmp>` command (Node start-up, module loading,
//    synth, writing files), as a user or CI runs it; --runs times, median and max;
//  - warm: synthesizing all environments in memory again in one process, 5 x --runs times.
// Prints a table and writes bench/results/synth.json. Target (docs/performance.md): < 10 s.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { synthStack } from '../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../src/environments/index.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Math.max(1, Math.min(50, Number(values.runs) || 5));
const root = join(import.meta.dirname, '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => Math.round(x * 10) / 10;

const out = mkdtempSync(join(tmpdir(), 'etcdns-bench-synth-'));
const cold: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    rmSync(out, { recursive: true, force: true });
    const t0 = performance.now();
    execFileSync(process.execPath, [join(root, 'src/main.ts'), '--out', out], { stdio: 'ignore', timeout: 60_000 });
    cold.push(performance.now() - t0);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}

const warm: number[] = [];
let objects = 0;
for (let i = 0; i < runs * 5; i++) {
  const t0 = performance.now();
  objects = Object.values(ENVIRONMENTS).reduce((n, props) => n + synthStack(props).size - 1, 0);
  warm.push(performance.now() - t0);
}

const rows = [
  ['cold: node src/main.ts (all environments)', cold],
  ['warm: synth all environments in memory', warm],
] as const;
console.log(
  `synth of ${Object.keys(ENVIRONMENTS).length} environments (${Object.keys(ENVIRONMENTS).join(', ')}), ${objects} objects`,
);
console.log(`${'measurement'.padEnd(44)}${'runs'.padStart(6)}${'median ms'.padStart(12)}${'max ms'.padStart(10)}`);
for (const [what, xs] of rows)
  console.log(
    `${what.padEnd(44)}${String(xs.length).padStart(6)}${String(ms(median(xs))).padStart(12)}${String(ms(Math.max(...xs))).padStart(10)}`,
  );
console.log(`target < 10000 ms for all environments: ${Math.max(...cold) < 10_000 ? 'met' : 'NOT met'}`);

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(
  join(root, 'bench/results/synth.json'),
  `${JSON.stringify(
    {
      environments: Object.keys(ENVIRONMENTS),
      objects,
      node: process.version,
      cpu: cpus()[0]?.model,
      coldMs: { median: ms(median(cold)), max: ms(Math.max(...cold)), runs: cold.map(ms) },
      warmMs: { median: ms(median(warm)), max: ms(Math.max(...warm)), runs: warm.map(ms) },
    },
    null,
    2,
  )}\n`,
);
