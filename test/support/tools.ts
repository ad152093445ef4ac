// Where the real programs are: Debian packages on PATH, Go-built references in .cache/bin
// (installed by scripts/setup-test-env.sh, which `npm test` runs first).
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cacheBin = join(repoRoot, '.cache', 'bin');

const BUILT = [
  'coredns',
  'external-dns',
  'kube-apiserver',
  'kube-score',
  'trivy-kubernetes',
  'cert-manager-controller',
  'pebble',
] as const;
/** Built ones live in .cache/bin; the others come from Debian packages on PATH. */
export type Tool =
  | (typeof BUILT)[number]
  | 'etcd'
  | 'etcdctl'
  | 'dig'
  | 'dnsperf'
  | 'kdig'
  | 'knotd'
  | 'knotc'
  | 'keymgr'
  | 'dnssec-verify'
  | 'dnssec-dsfromkey'
  | 'named'
  | 'rndc'
  | 'unbound'
  | 'openssl'
  | 'taskset'
  | 'promtool'
  | 'prometheus'
  | 'chromium';

export function tool(name: Tool): string {
  const dirs = (BUILT as readonly string[]).includes(name)
    ? [cacheBin]
    : (process.env.PATH ?? '').split(':').concat('/usr/sbin', '/usr/bin');
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  throw new Error(`${name} is not installed: run "npm run setup" (scripts/setup-test-env.sh)`);
}

/** The node that runs this test (the project's pinned Node 24), for starting etcdns itself. */
export const nodeBin = process.execPath;
export const etcdnsBin = join(repoRoot, 'bin', 'etcdns.js');
