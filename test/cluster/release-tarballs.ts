// Two etcdns releases for an upgrade test, each packed (`npm pack`, which builds lib/) from a
// commit: N is this repository's HEAD, N+1 a commit made on top of it in a scratch clone that
// bumps the patch version and ships a feature a real release could: a new prop,
// `nodeLossToleranceSeconds` on every component (default 60), which every pod template carries as
// NoExecute tolerations of a not-ready or unreachable node (Kubernetes adds 300 s ones otherwise).
// So N -> N+1 changes every pod template (etcd's too) and adds a prop an environment can set.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packInto } from '../package/user-project.ts';
import { tempDir } from '../support/temp-dir.ts';
import { repoRoot } from '../support/tools.ts';

export interface Releases {
  current: { version: string; tarball: string };
  next: { version: string; tarball: string; commit: string };
  /** Milliseconds both packs took. */
  packMs: number;
}

/** [file, text that must be there, replacement]: the N+1 change, at anchors that fail loudly when moved. */
const NEXT_CHANGE: [string, string, string][] = [
  [
    'src/constructs/base/workload.ts',
    'export interface WorkloadProps {\n',
    `export interface WorkloadProps {
  /**
   * Seconds the pods stay on a node that is not ready or unreachable before they are evicted.
   * @default 60
   */
  readonly nodeLossToleranceSeconds?: number;
`,
  ],
  [
    'src/constructs/base/workload.ts',
    '    ...(props.tolerations ? { tolerations: props.tolerations } : {}),\n',
    `    tolerations: [
      ...['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'].map((key) => ({
        key,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: props.nodeLossToleranceSeconds ?? 60,
      })),
      ...(props.tolerations ?? []),
    ],
`,
  ],
];

const git = (dir: string, args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=etcdns test', '-c', 'user.email=test@etcdns.invalid', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** N alone, packed from a scratch clone of HEAD (which the N+1 commit then builds on). */
function packCurrent(): { dir: string; out: string; current: Releases['current'] } {
  const dir = join(tempDir('releases'), 'etcdns');
  const head = git(repoRoot, ['rev-parse', 'HEAD']);
  execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', repoRoot, dir]);
  git(dir, ['checkout', '--quiet', '--detach', head]);
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const out = tempDir('tarballs');
  return { dir, out, current: { version: versionIn(dir), tarball: packInto(out, dir) } };
}

const versionIn = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/** Release N only, for a suite that installs it but does not upgrade. */
export function packRelease(): Releases['current'] {
  return packCurrent().current;
}

export function packReleases(): Releases {
  const t0 = performance.now();
  const { dir, out, current } = packCurrent();
  for (const [file, from, to] of NEXT_CHANGE) {
    const text = readFileSync(join(dir, file), 'utf8');
    assert.ok(text.includes(from), `the N+1 change no longer applies: ${file} lacks ${JSON.stringify(from)}`);
    writeFileSync(join(dir, file), text.replace(from, to));
  }
  // npm's version lifecycle writes src/version.ts as a release does.
  execFileSync('npm', ['version', 'patch', '--no-git-tag-version'], { cwd: dir, stdio: 'ignore' });
  git(dir, ['commit', '--quiet', '-am', 'nodeLossToleranceSeconds: NoExecute tolerations on every pod (default 60 s)']);
  const next = { version: versionIn(dir), tarball: packInto(out, dir), commit: git(dir, ['rev-parse', 'HEAD']) };
  return { current, next, packMs: Math.round(performance.now() - t0) };
}
