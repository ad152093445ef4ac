// Pins a running server (every thread of it and of its child processes) to a CPU list, so one
// server process serves both modes: pinned to core 0 while dnsperf runs on core 1, and unpinned.
import { execFileSync } from 'node:child_process';
import { processTreePids } from './process-cpu.ts';

export function setAffinity(taskset: string, pid: number, cpus: string, o = { children: true }): void {
  for (const p of o.children ? processTreePids(pid) : [pid])
    execFileSync(taskset, ['-a', '-p', '-c', cpus, String(p)], { stdio: 'ignore' });
}

/** All CPUs of the machine as a taskset list, e.g. "0-1": what "unpinned" means. */
export function allCpus(count: number): string {
  return count > 1 ? `0-${count - 1}` : '0';
}
