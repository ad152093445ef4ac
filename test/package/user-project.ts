// A user's project, as a platform team gets etcdns: the package packed (`npm pack`, which builds
// lib/), the tarball installed into a fresh directory outside this repository with the peer
// dependencies at the oldest versions etcdns allows, and commands run there.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/tools.ts';

interface OwnPackage {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
export const ownPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as OwnPackage;

/** The lowest version a peer range allows ("^2.68.11" -> "2.68.11"): what "honest ranges" must hold for. */
export const oldestAllowed = (name: string) => ownPackage.peerDependencies[name]!.replace(/^\^/, '');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (bounded), returning its exit code and output. */
export function run(cmd: string, args: string[], opts: SpawnSyncOptions & { cwd: string }): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Like run(), but a non-zero exit fails the test with the command's output. */
export function runOk(cmd: string, args: string[], opts: SpawnSyncOptions & { cwd: string }): Run {
  const r = run(cmd, args, opts);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} in ${opts.cwd} failed:\n${r.stdout}\n${r.stderr}`);
  return r;
}

const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

/** `npm pack` of this repository (or of another checkout of it) into dir; returns the tarball's path. */
export function packInto(dir: string, checkout = repoRoot): string {
  const r = runOk('npm', ['pack', '--json', '--pack-destination', dir, ...NPM_QUIET], { cwd: checkout });
  // prepack's build output comes before the JSON report.
  const [report] = JSON.parse(r.stdout.slice(r.stdout.indexOf('\n[') + 1)) as Array<{ filename: string }>;
  return join(dir, report!.filename);
}

/** Writes a package.json into dir and installs it (the tarball for etcdns, peers at their oldest). */
export function installUserProject(dir: string, tarball: string, extraDevDependencies: string[] = []): void {
  const dev = (name: string) => [name, ownPackage.devDependencies[name]!] as const;
  const pkg = {
    name: 'user-gitops',
    private: true,
    type: 'module',
    dependencies: {
      etcdns: `file:${tarball}`,
      ...Object.fromEntries(Object.keys(ownPackage.peerDependencies).map((p) => [p, oldestAllowed(p)])),
    },
    devDependencies: Object.fromEntries(
      ['typescript', 'tsx', 'ts-node', '@types/node', ...extraDevDependencies].map(dev),
    ),
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  runOk('npm', ['install', ...NPM_QUIET], { cwd: dir });
}
