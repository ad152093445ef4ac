// `npm run fuzz [-- --target NAME --seconds N --seed N --save]`: fuzzes each target (or one) for
// N seconds from its corpus; prints executions, speed, corpus and coverage growth as a table
// (and JSON with --json); saves inputs that reached new code with --save, and every failing
// input to fuzz/crashes/. Exits 1 when a target broke its contract.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fuzz, type FuzzResult } from './engine.ts';
import { corpusDir, FUZZ_DIR, readCorpus, saveInput } from './corpus-files.ts';
import { TARGETS } from './targets/index.ts';

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string' },
    save: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
if (!(seconds > 0)) throw new Error(`--seconds must be a positive number, got "${values.seconds}"`);
const names = values.target ? [values.target] : Object.keys(TARGETS);
if (names.some((n) => !TARGETS[n])) throw new Error(`--target: one of ${Object.keys(TARGETS).join(', ')}`);

const results: (FuzzResult & { seeds: number; saved: number })[] = [];
for (const name of names) {
  const target = await TARGETS[name]!();
  const seeds = readCorpus(target.name);
  let saved = 0;
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() & 0x7fffffff;
  const r = fuzz(target, seeds, {
    seconds,
    seed,
    ...(values.save ? { onNewInput: (d: Buffer) => (saveInput(corpusDir(target.name), d), saved++) } : {}),
  });
  results.push({ ...r, seeds: seeds.length, saved });
  if (r.failure) {
    const file = saveInput(join(FUZZ_DIR, 'crashes', target.name), r.failure.input);
    process.stderr.write(
      `${target.name}: contract broken (seed ${r.seed}), input saved as ${file}\n${(r.failure.error as Error)?.stack ?? String(r.failure.error)}\n`,
    );
  }
}
const rows = results.map((r) => [
  r.target,
  String(r.executions),
  String(Math.round(r.executions / r.seconds)),
  `${r.seeds} -> ${r.corpusSize}`,
  String(r.features),
  String(r.seed),
  r.failure ? 'FAILED' : 'ok',
]);
const head = ['target', 'executions', 'exec/s', 'corpus (seeds -> kept)', 'features', 'seed', 'result'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
process.stdout.write(`${[line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')}\n`);
if (values.json)
  process.stdout.write(`${JSON.stringify(results.map(({ failure, ...r }) => ({ ...r, failed: !!failure })))}\n`);
process.exitCode = results.some((r) => r.failure) ? 1 : 0;
