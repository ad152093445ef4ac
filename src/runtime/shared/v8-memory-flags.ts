// Both runtime roles load thousands of objects in bulk (the DNS server its records, the controller
// its Service list), and V8's defaults size the heap for throughput: the young generation grows
// to its maximum during a bulk load and the process keeps that memory. Each role re-executes
// itself once with the V8 memory flags that suit it.
import cluster from 'node:cluster';

/**
 * Replaces this process (same PID, same stdio) with one started with `flags`, unless the operator
 * chose any of them already (on the command line or in NODE_OPTIONS): then they are theirs to set.
 * Cluster workers inherit the flags from their primary. Call it first thing, before loading
 * anything large: the code after it runs only in the new process.
 */
export function reexecWithV8Flags(flags: string[]): void {
  const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const names = flags.map((f) => f.split('=')[0]!);
  if (cluster.isWorker || chosen.some((a) => names.includes(a.split('=')[0]!))) return;
  process.execve?.(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)]);
}
