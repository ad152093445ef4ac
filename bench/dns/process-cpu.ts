// CPU time a server spent, read from /proc: the process (all its threads) plus its child
// processes (worker processes of a multi-process server), so CPU per query is comparable
// between a threaded server (Knot), a Go server (CoreDNS) and a Node server with workers.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux we run on (getconf CLK_TCK). */
const CLOCK_TICKS = 100;

export interface ProcStat {
  pid: number;
  ppid: number;
  /** User + system time of the process itself, in seconds. */
  cpuSeconds: number;
}

/** Parses one /proc/<pid>/stat line. The command name may contain spaces and ")" so fields are counted from the last ")". */
export function parseProcStat(line: string): ProcStat {
  const close = line.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After ") ": state(3) ppid(4) ... utime(14) stime(15); index 0 here is field 3.
  const rest = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const ppid = Number(rest[1]);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (![pid, ppid, utime, stime].every(Number.isFinite))
    throw new Error(`unreadable /proc stat line: ${line.slice(0, 80)}`);
  return { pid, ppid, cpuSeconds: (utime + stime) / CLOCK_TICKS };
}

/** Sum of CPU seconds of `root` and every descendant in `stats`. */
export function treeCpuSeconds(stats: readonly ProcStat[], root: number): number {
  const children = new Map<number, ProcStat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const self = stats.find((s) => s.pid === root);
  if (!self) throw new Error(`process ${root} is not running`);
  let total = 0;
  const pending = [self];
  while (pending.length > 0) {
    const s = pending.pop()!;
    total += s.cpuSeconds;
    pending.push(...(children.get(s.pid) ?? []));
  }
  return total;
}

function readAllStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.push(parseProcStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // The process ended between readdir and read: it is not one of ours.
    }
  }
  return stats;
}

/** CPU seconds used so far by process `pid` and its descendants. */
export function processTreeCpuSeconds(pid: number): number {
  return treeCpuSeconds(readAllStats(), pid);
}

/** What `work` returns, and the CPU seconds `pid` and its descendants used while it ran. */
export async function cpuSecondsDuring<T>(pid: number, work: () => Promise<T>): Promise<[T, number]> {
  const before = processTreeCpuSeconds(pid);
  const result = await work();
  return [result, processTreeCpuSeconds(pid) - before];
}

/** CPU microseconds per answered query, the unit of every CPU column in the reports. */
export function cpuMicrosPerQuery(cpuSeconds: number, queries: number): number {
  return (cpuSeconds / queries) * 1e6;
}

/** `pid` and the pids of all its descendants. */
export function processTreePids(pid: number): number[] {
  const stats = readAllStats();
  const pids: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const p = pending.pop()!;
    pids.push(p);
    pending.push(...stats.filter((s) => s.ppid === p).map((s) => s.pid));
  }
  return pids;
}
