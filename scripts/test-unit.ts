// `npm run test:unit`: the pure test files (test/support/pure-tests.ts decides which) under node --test,
// for the inner loop; no setup step, no real program. `--list` prints the files instead of running them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pureTestFiles } from '../test/support/pure-tests.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const files = pureTestFiles(fileURLToPath(new URL('../test', import.meta.url)), repoRoot);

if (process.argv.includes('--list')) {
  console.log(files.join('\n'));
} else {
  console.log(`test:unit: ${files.length} pure test files (the rest start real programs: npm test)`);
  const run = spawnSync(process.execPath, ['--test', ...process.argv.slice(2), ...files], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  process.exitCode = run.status ?? 1;
}
