// The images the cluster check runs, with no registry: the etcdns image from `npm run image`
// (scripts/image.sh, buildah), written out as an archive for containerd; the etcd and pause
// images from scripts/setup-cluster-env.sh (.cache/cluster-images/*.oci.tar).
// ETCDNS_CLUSTER_IMAGE=<reference in buildah's storage> runs that image instead of building one
// (a release candidate, or an image built from another tree).
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './tools.ts';

export interface ClusterImages {
  /** Archives to import into containerd. */
  archives: string[];
  etcdns: { repository: string; tag: string };
  etcd: { repository: string; tag: string };
  /** Milliseconds `npm run image` took (layers cached: seconds when nothing changed). */
  buildMs: number;
}

function archiveOf(name: string): string {
  const dir = join(repoRoot, '.cache', 'cluster-images');
  const file = readdirSync(dir).find(
    (f) => f.startsWith(`${name}-`) && f.endsWith('.oci.tar') && f !== 'etcdns-current.oci.tar',
  );
  if (!file) throw new Error(`no ${name} image in ${dir}: run scripts/setup-cluster-env.sh`);
  return join(dir, file);
}

export function clusterImages(): ClusterImages {
  const started = Date.now();
  const image =
    process.env.ETCDNS_CLUSTER_IMAGE ??
    execFileSync('bash', [join(repoRoot, 'scripts', 'image.sh')], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 900_000,
      maxBuffer: 64 << 20,
    })
      .trim()
      .split('\n')
      .pop()!;
  const buildMs = Date.now() - started;
  const [repository, tag] = image.split(/:(?=[^:]+$)/) as [string, string];
  // One file, replaced by each run (nothing left in /tmp by a run that dies).
  const archive = join(repoRoot, '.cache', 'cluster-images', 'etcdns-current.oci.tar');
  rmSync(archive, { force: true });
  execFileSync('buildah', ['push', '--quiet', image, `oci-archive:${archive}:${image}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
  });
  return {
    archives: [archiveOf('pause'), archiveOf('etcd'), archive],
    etcdns: { repository, tag },
    // setup-cluster-env.sh tags it with the Debian etcd's version.
    etcd: { repository: 'localhost/etcd', tag: etcdVersion() },
    buildMs,
  };
}

function etcdVersion(): string {
  return /etcd Version: (\S+)/.exec(execFileSync('etcd', ['--version'], { encoding: 'utf8' }))![1]!;
}
