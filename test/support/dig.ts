// Runs the real dig against a server on loopback and parses its answer.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseDig, type DigResult } from './dig-output.ts';
import { waitFor } from './process.ts';
import { tool } from './tools.ts';

export type { DigRecord, DigResult } from './dig-output.ts';

const run = promisify(execFile);

export interface DigQuery {
  server?: string;
  port: number;
  name: string;
  type?: string;
  tcp?: boolean;
  /** Extra dig options, e.g. ["+bufsize=512", "+norecurse"]. */
  extra?: string[];
  timeoutSeconds?: number;
  /** UDP tries, each waiting timeoutSeconds (1 unless told): for tests that compare content, not loss. */
  tries?: number;
}

export async function dig(q: DigQuery): Promise<DigResult> {
  const seconds = q.timeoutSeconds ?? 2;
  const tries = q.tries ?? 1;
  const args = [
    `@${q.server ?? '127.0.0.1'}`,
    '-p',
    String(q.port),
    q.name,
    q.type ?? 'A',
    '+norecurse',
    `+time=${seconds}`,
    `+tries=${tries}`,
    ...(q.tcp ? ['+tcp'] : []),
    ...(q.extra ?? []),
  ];
  const { stdout } = await run(tool('dig'), args, { timeout: (seconds * tries + 3) * 1000 }).catch(
    (e: { stdout?: string; message: string }) => {
      // dig exits 9 on "no servers could be reached"; its output still says why.
      if (e.stdout) return { stdout: e.stdout };
      throw new Error(`dig ${args.join(' ')} failed: ${e.message}`);
    },
  );
  return parseDig(stdout);
}

/**
 * The same question asked `times` times by one dig process (one query after another, each its
 * own message; over TCP each its own connection): many answers without a process per answer.
 */
export async function digRepeated(q: DigQuery, times: number): Promise<DigResult[]> {
  const seconds = q.timeoutSeconds ?? 2;
  const one = [q.name, q.type ?? 'A', '+norecurse', `+time=${seconds}`, '+tries=1', ...(q.tcp ? ['+tcp'] : [])];
  const args = [`@${q.server ?? '127.0.0.1'}`, '-p', String(q.port)];
  for (let i = 0; i < times; i++) args.push(...one, ...(q.extra ?? []));
  const { stdout } = await run(tool('dig'), args, { timeout: (seconds * times + 5) * 1000, maxBuffer: 64 << 20 });
  const results = stdout.split(';; Got answer:').slice(1).map(parseDig);
  if (results.length !== times) throw new Error(`dig answered ${results.length} of ${times} queries: ${stdout}`);
  return results;
}

/** The data of the answer records of one type, sorted: the usual thing a test compares. */
export function answerData(result: DigResult, type: string): string[] {
  return result.answer
    .filter((r) => r.type === type)
    .map((r) => r.data)
    .sort();
}

/**
 * Asks until the answer data of the question's type equals `want` (a server applies an etcd write
 * from its watch a moment after it is made); fails with the last answer.
 */
export async function waitForAnswer(q: DigQuery, want: string[], timeoutMs = 5000): Promise<void> {
  const type = q.type ?? 'A';
  let last: string[] = [];
  await waitFor(
    `${q.name} ${type} -> ${want.join(',') || '(nothing)'}`,
    async () => {
      last = answerData(await dig(q), type);
      return JSON.stringify(last) === JSON.stringify(want) ? true : undefined;
    },
    timeoutMs,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last answer: ${JSON.stringify(last)}`);
  });
}
