// Coverage-guided fuzzing of the parsers of untrusted input (fuzz/): each target runs from its
// committed corpus for a bounded time in its own process (FUZZ_SECONDS, default 5: `npm run fuzz` runs a target for as long as asked) and must
// keep its contract; and the loop itself is shown to be guided: it finds a bug behind a
// four-byte magic from an empty input, which blind random inputs practically never would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { fuzz } from '../../fuzz/engine.ts';
import { readCorpus } from '../../fuzz/corpus-files.ts';
import { TARGETS } from '../../fuzz/targets/index.ts';
import { repoRoot } from '../support/tools.ts';
import { plantedBug } from './planted-bug.ts';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 5);

test('the loop is coverage-guided: it reaches a bug behind a four-byte magic', () => {
  // A fixed seed and an execution budget: the same inputs every run (found after ~11,000).
  const r = fuzz(plantedBug, [], { seconds: 120, maxExecutions: 50_000, seed: 1, scope: '/test/fuzz/' });
  assert.ok(r.failure, `not found in ${r.executions} executions`);
  assert.match(String(r.failure.error), /planted bug reached/);
  assert.deepEqual([...r.failure.input.subarray(0, 4)], [0x65, 0x74, 0x63, 0x64]);
});

for (const name of Object.keys(TARGETS))
  test(`${name}: ${SECONDS} s of fuzzing from the corpus keep the contract`, async (t) => {
    assert.ok(readCorpus(name).length > 0, 'a committed seed corpus');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(repoRoot, 'fuzz', 'run.ts'), '--target', name, '--seconds', String(SECONDS)],
      { cwd: repoRoot, timeout: (SECONDS + 60) * 1000 },
    ).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`${name} broke its contract:\n${e.stdout}\n${e.stderr}`);
    });
    t.diagnostic(stdout.trim().split('\n').pop()!);
    assert.match(stdout, new RegExp(`\\| ${name} .*\\| ok`));
  });
