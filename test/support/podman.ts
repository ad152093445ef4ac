// Containers of this machine's images, run by podman as the manifests run them: runc (crun
// refuses this machine's hybrid cgroups v1), this machine's hard ulimits, a numeric non-root
// user, a read-only root file system, no capabilities, no privilege escalation, and the host's
// loopback as the network (nothing leaves the machine). The image tests use it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why buildah or podman cannot run here (an image test is then skipped), or undefined. */
export async function podmanUnavailable(): Promise<string | undefined> {
  for (const [cmd, args] of [
    ['buildah', ['info']],
    ['podman', ['info']],
    ['runc', ['--version']],
  ] as const) {
    try {
      await run(cmd, [...args], { timeout: 60_000 });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      const why =
        err.code === 'ENOENT' ? 'not installed (npm run setup installs it)' : (err.stderr || err.message).trim();
      return `${cmd} cannot run here: ${why}`;
    }
  }
  return undefined;
}

/** This machine's hard limits: podman's defaults ask for more, and runc then fails to start. */
async function ulimitArgs(): Promise<string[]> {
  const { stdout } = await run('bash', ['-c', 'ulimit -Hn; ulimit -Hu']);
  const [nofile, nproc] = stdout.trim().split('\n');
  // nproc: a bounded value; runc here refuses values above 32768 even under the hard limit.
  const procs = nproc === 'unlimited' ? 4096 : Math.min(Number(nproc), 4096);
  return ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', `nproc=${procs}:${procs}`];
}

/**
 * `podman run` options of a restricted container (workload.ts RESTRICTED_CONTAINER) as `user`
 * ("uid:gid"); the writable directories are the caller's mounts only.
 */
export async function restrictedRunArgs(user: string): Promise<string[]> {
  return [
    'run',
    '--runtime',
    'runc',
    ...(await ulimitArgs()),
    '--user',
    user,
    '--read-only',
    // Only what the caller mounts is writable (podman would add /run and /var/tmp).
    '--read-only-tmpfs=false',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    // The host's loopback, where the test's programs are; nothing leaves the machine.
    '--network',
    'host',
  ];
}
