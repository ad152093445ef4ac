// Both runtime roles load thousands of objects in bulk (the DNS server its records, the controller
// its Service list). V8 sizes its young generation by how much survives, so a bulk load grows it
// to its maximum and the process keeps that memory. Capping the semi-space keeps it small.
import cluster from 'node:cluster';

/**
 * Replaces this process (same PID, same stdio) with one whose semi-space is at most `mib` MiB, unless a
 * size was chosen already (flag or NODE_OPTIONS). Cluster workers inherit the flag from their
 * primary. Call it first thing, before loading anything large: the code after it runs only in the
 * new process.
 */
export function reexecWithSemiSpaceCap(mib: number): void {
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (cluster.isWorker || chosen.some((a) => a.startsWith('--max-semi-space-size'))) return;
  process.execve?.(process.execPath, [
    process.execPath,
    `--max-semi-space-size=${mib}`,
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
}
