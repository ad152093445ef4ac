// Table tests of which test files `npm run test:unit` selects: the real tree, then made-up import graphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pureTestFiles, readModule, spawnPath } from './pure-tests.ts';
import { repoRoot } from './tools.ts';

const testRoot = join(repoRoot, 'test');
const selected = pureTestFiles(testRoot, repoRoot);

const treeCases: { name: string; file: string; pure: boolean }[] = [
  { name: 'a table test of a pure module', file: 'test/skydns/skydns-entry.test.ts', pure: true },
  { name: 'this selection test itself', file: 'test/support/pure-tests.test.ts', pure: true },
  {
    name: 'an e2e suite (kube-apiserver, etcd, dig)',
    file: 'test/runtime/controller/controller.e2e.test.ts',
    pure: false,
  },
  {
    name: 'a suite reaching kube-apiserver.ts through no import of its own',
    file: 'test/constructs/apiserver.e2e.test.ts',
    pure: false,
  },
  { name: 'a suite whose own helper spawns', file: 'test/runtime/controller/views/views.e2e.test.ts', pure: false },
  { name: 'a suite that imports child_process itself', file: 'test/smoke/cli.e2e.test.ts', pure: false },
];

for (const c of treeCases) {
  test(`test:unit selects: ${c.name} (${c.file}): ${c.pure ? 'yes' : 'no'}`, () => {
    assert.equal(selected.includes(c.file), c.pure);
  });
}

// Every helper that starts a program is found to, whatever route it takes to child_process.
const starters = [
  'process.ts',
  'etcd.ts',
  'kube-apiserver.ts',
  'etcdns-server.ts',
  'dig.ts',
  'dig-batch.ts',
  'dig-axfr.ts',
  'knot.ts',
  'knot-secondary.ts',
  'bind-secondary.ts',
  'bind-resolver.ts',
  'coredns.ts',
  'external-dns.ts',
  'unbound.ts',
  'chromium.ts',
  'prometheus.ts',
  'cluster.ts',
  'flux.ts',
  'git-server.ts',
  'manifest-linters.ts',
  'transfer-peers.ts',
  'side-by-side.ts',
];
for (const name of starters) {
  test(`test:unit: test/support/${name} starts a program`, () => {
    assert.ok(spawnPath(join(testRoot, 'support', name), testRoot, readModule));
  });
}

// Made-up graphs under /t; `want` is the path to child_process, undefined when the file is pure.
const graphCases: { name: string; files: Record<string, string>; want: string[] | undefined }[] = [
  { name: 'no imports', files: { '/t/a.test.ts': `test('x', () => {});` }, want: undefined },
  {
    name: 'its own child_process import',
    files: { '/t/a.test.ts': `import { spawn } from 'node:child_process';` },
    want: ['/t/a.test.ts'],
  },
  {
    name: 'child_process without the node: prefix',
    files: { '/t/a.test.ts': `import * as cp from 'child_process';` },
    want: ['/t/a.test.ts'],
  },
  {
    name: 'two hops away',
    files: {
      '/t/a.test.ts': `import { h } from './h.ts';`,
      '/t/h.ts': `export { s as h } from './support/s.ts';`,
      '/t/support/s.ts': `import { execFile } from 'node:child_process';`,
    },
    want: ['/t/a.test.ts', '/t/h.ts', '/t/support/s.ts'],
  },
  {
    name: 'a literal dynamic import',
    files: {
      '/t/a.test.ts': `const { s } = await import('./s.ts');`,
      '/t/s.ts': `import 'node:child_process';`,
    },
    want: ['/t/a.test.ts', '/t/s.ts'],
  },
  {
    name: 'a spawner outside the test tree (the code under test)',
    files: {
      '/t/a.test.ts': `import { plugin } from '../src/plugin.ts';`,
      '/src/plugin.ts': `import { execFile } from 'node:child_process';`,
    },
    want: undefined,
  },
  {
    name: 'an import cycle of pure modules',
    files: { '/t/a.test.ts': `import './b.ts';`, '/t/b.ts': `import './a.test.ts';` },
    want: undefined,
  },
  {
    name: 'a package import and a missing module',
    files: { '/t/a.test.ts': `import 'etcd3';\nimport './gone.ts';` },
    want: undefined,
  },
  {
    name: 'child_process named only in a string',
    files: { '/t/a.test.ts': `const FORBIDDEN = /node:(child_process)/;` },
    want: undefined,
  },
];

for (const c of graphCases) {
  test(`test:unit graph: ${c.name}`, () => {
    assert.deepEqual(
      spawnPath('/t/a.test.ts', '/t', (path) => c.files[path]),
      c.want,
    );
  });
}
