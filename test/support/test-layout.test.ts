// The test tree's two rules, on the real tree and on made-up ones: a test sits in the folder of
// test/ that mirrors the src/ folder it tests (or in a cross-cutting folder), and a test file that
// starts a real program is named `*.e2e.test.ts`, one that does not is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { misnamedTests, testFiles, type ReadModule } from './pure-tests.ts';
import { CROSS_CUTTING, filesBelow, foldersBelow, strayTestFiles } from './test-layout.ts';
import { repoRoot } from './tools.ts';

const testRoot = join(repoRoot, 'test');

test('every file of test/ sits in a folder mirroring src/ or in a cross-cutting one', () => {
  const stray = strayTestFiles(filesBelow(testRoot), foldersBelow(join(repoRoot, 'src')));
  assert.deepEqual(stray, [], `move these to test/<the src/ folder they test>/: ${stray.join(', ')}`);
});

for (const [folder, why] of Object.entries(CROSS_CUTTING)) {
  test(`cross-cutting test/${folder}/ (${why}) exists and has no src/ twin`, () => {
    assert.ok(statSync(join(testRoot, folder)).isDirectory());
    assert.ok(!existsSync(join(repoRoot, 'src', folder)), `src/${folder}/ exists: test/${folder}/ should mirror it`);
  });
}

test('every test file that starts a real program is named *.e2e.test.ts, and no other', () => {
  const wrong = misnamedTests(testFiles(testRoot), testRoot).map((m) =>
    m.spawnPath
      ? `${relative(repoRoot, m.file)} starts programs (${m.spawnPath.map((p) => relative(testRoot, p)).join(' -> ')} -> child_process): name it *.e2e.test.ts`
      : `${relative(repoRoot, m.file)} starts no program: drop .e2e from its name`,
  );
  assert.deepEqual(wrong, []);
});

const srcFolders = new Set(['.', 'config', 'runtime', 'runtime/dns-server', 'runtime/dns-server/wire']);
const strayCases: { name: string; path: string; stray: boolean }[] = [
  { name: 'a test beside its src/ folder', path: 'config/view-config.test.ts', stray: false },
  { name: 'a room of a room', path: 'runtime/dns-server/wire/query-parser.test.ts', stray: false },
  { name: 'a local helper beside its tests', path: 'runtime/dns-server/zones.ts', stray: false },
  { name: 'a test at the top of test/', path: 'layout.test.ts', stray: false },
  { name: 'a folder src/ does not have', path: 'dns-server/resolver.test.ts', stray: true },
  { name: 'a room src/ does not have', path: 'runtime/dns-server/answer/resolver.test.ts', stray: true },
  { name: 'a cross-cutting folder', path: 'smoke/cli.e2e.test.ts', stray: false },
  { name: 'below a cross-cutting folder', path: 'support/crds/README.md', stray: false },
  { name: 'a cross-cutting name below the top', path: 'runtime/smoke/cli.e2e.test.ts', stray: true },
];
for (const c of strayCases) {
  test(`test layout: ${c.name} (test/${c.path}): ${c.stray ? 'stray' : 'in place'}`, () => {
    assert.deepEqual(strayTestFiles([c.path], srcFolders), c.stray ? [c.path] : []);
  });
}

// Made-up graphs under /t: which names disagree with the imports.
const spawner = `import { spawn } from 'node:child_process';`;
const nameCases: { name: string; file: string; files: Record<string, string>; misnamed: boolean }[] = [
  { name: 'a pure test, plain name', file: '/t/a.test.ts', files: { '/t/a.test.ts': '' }, misnamed: false },
  { name: 'a pure test named e2e', file: '/t/a.e2e.test.ts', files: { '/t/a.e2e.test.ts': '' }, misnamed: true },
  {
    name: 'a spawning test named e2e',
    file: '/t/a.e2e.test.ts',
    files: { '/t/a.e2e.test.ts': `import './support/dig.ts';`, '/t/support/dig.ts': spawner },
    misnamed: false,
  },
  {
    name: 'a spawning test with a plain name',
    file: '/t/a.test.ts',
    files: { '/t/a.test.ts': `import './support/dig.ts';`, '/t/support/dig.ts': spawner },
    misnamed: true,
  },
  {
    name: 'e2e in the middle of a name is not the suffix',
    file: '/t/a-e2e.test.ts',
    files: { '/t/a-e2e.test.ts': spawner },
    misnamed: true,
  },
];
for (const c of nameCases) {
  test(`test names: ${c.name}: ${c.misnamed ? 'misnamed' : 'right'}`, () => {
    const read: ReadModule = (path) => c.files[path];
    assert.equal(misnamedTests([c.file], '/t', read).length, c.misnamed ? 1 : 0);
  });
}
