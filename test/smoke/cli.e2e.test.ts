// The `etcdns` command itself: help, version, unknown commands, and a reader that stops early.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadedPackages } from '../support/loaded-packages.ts';
import { etcdnsBin, nodeBin, repoRoot } from '../support/tools.ts';

const run = (args: string[]) => spawnSync(nodeBin, [etcdnsBin, ...args], { encoding: 'utf8', timeout: 20_000 });

test('help lists every command; an unknown command is refused with the help, exit code 2', () => {
  const help = run(['--help']);
  assert.equal(help.status, 0);
  for (const command of ['server', 'controller', 'plan', 'version'])
    assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
  const unknown = run(['serve']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^etcdns: unknown command "serve"\n\nUsage: etcdns <command>/);
});

test('version is the package version', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(run(['version']).stdout, `etcdns ${pkg.version}\n`);
});

test('output piped into a reader that stops early ends quietly', () => {
  // `true` exits without reading: every write of etcdns meets a closed pipe (EPIPE).
  const r = spawnSync('sh', ['-c', `"${nodeBin}" "${etcdnsBin}" plan --help | true`], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.stderr, '');
});

test('--help and version load no subcommand: no etcd, DNS or YAML package', () => {
  const packages = loadedPackages(`
const { main } = await import('./src/runtime/cli.ts');
await main(['--help']);
await main(['version']);
await import('js-yaml');
`);
  // js-yaml is the probe's own import above, proving the hook records packages.
  assert.deepEqual(packages, ['js-yaml']);
});
