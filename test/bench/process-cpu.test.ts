// CPU time of a server's process tree from /proc/<pid>/stat.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cpuMicrosPerQuery,
  cpuSecondsDuring,
  parseProcStat,
  processTreeCpuSeconds,
  treeCpuSeconds,
} from '../../bench/dns/process-cpu.ts';

const stat = (pid: number, comm: string, ppid: number, utime: number, stime: number) =>
  `${pid} (${comm}) S ${ppid} 12317 10894 0 -1 4194560 683 0 17 0 ${utime} ${stime} 0 0 20 0 6 0 38521 895074304 2094`;

test('parses pid, ppid and user+system time, whatever the command name holds', async (t) => {
  const cases = [
    { name: 'plain', line: stat(12322, 'knotd', 1, 150, 50), want: { pid: 12322, ppid: 1, cpuSeconds: 2 } },
    {
      name: 'spaces and parentheses in the name',
      line: stat(7, 'node (worker) 1', 3, 1, 0),
      want: { pid: 7, ppid: 3, cpuSeconds: 0.01 },
    },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(parseProcStat(c.line), c.want));
  assert.throws(() => parseProcStat('garbage'), /not a \/proc/);
});

test('sums a process and all its descendants, nothing else', () => {
  const stats = [
    { pid: 1, ppid: 0, cpuSeconds: 100 },
    { pid: 10, ppid: 1, cpuSeconds: 1 },
    { pid: 11, ppid: 10, cpuSeconds: 2 },
    { pid: 12, ppid: 11, cpuSeconds: 4 },
    { pid: 13, ppid: 1, cpuSeconds: 8 },
  ];
  assert.equal(treeCpuSeconds(stats, 10), 7);
  assert.equal(treeCpuSeconds(stats, 13), 8);
  assert.throws(() => treeCpuSeconds(stats, 99), /not running/);
});

test("/proc's figure for this very process agrees with Node's own CPU accounting", () => {
  const fromProc = processTreeCpuSeconds(process.pid);
  const fromNode = process.cpuUsage();
  // Burn 200 ms of CPU (not of wall time: the machine may be busy), at most 10 s of wall time.
  const deadline = Date.now() + 10_000;
  while (process.cpuUsage(fromNode).user < 200_000 && Date.now() < deadline) Math.sqrt(Math.random());
  const used = process.cpuUsage(fromNode);
  const nodeSeconds = (used.user + used.system) / 1e6;
  const procSeconds = processTreeCpuSeconds(process.pid) - fromProc;
  // /proc counts in 10 ms clock ticks, and both readings are a moment apart.
  assert.ok(Math.abs(procSeconds - nodeSeconds) < 0.05, `/proc ${procSeconds} s, Node ${nodeSeconds} s`);
});

test("cpuSecondsDuring: the work's result, and the CPU the process used while it ran", async () => {
  // Node's own user+system figure over a window that encloses the one measured from /proc.
  const fromNode = process.cpuUsage();
  const [result, seconds] = await cpuSecondsDuring(process.pid, async () => {
    const deadline = Date.now() + 10_000;
    while (process.cpuUsage(fromNode).user < 200_000 && Date.now() < deadline) Math.sqrt(Math.random());
    return 'done';
  });
  const used = process.cpuUsage(fromNode);
  const nodeSeconds = (used.user + used.system) / 1e6;
  assert.equal(result, 'done');
  assert.ok(nodeSeconds >= 0.2, `the work burnt ${nodeSeconds} s`);
  // /proc counts in 10 ms clock ticks, and both readings are a moment apart.
  assert.ok(Math.abs(seconds - nodeSeconds) < 0.05, `/proc ${seconds} s, Node ${nodeSeconds} s`);
});

test('cpuMicrosPerQuery: 0.5 CPU seconds over 25,000 queries is 20 µs each', () => {
  assert.equal(cpuMicrosPerQuery(0.5, 25_000), 20);
});
