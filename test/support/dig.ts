// Runs the real dig against a server on loopback and parses its answer.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tool } from './tools.ts';

const run = promisify(execFile);

export interface DigRecord {
  name: string;
  ttl: number;
  class: string;
  type: string;
  /** RDATA as dig prints it, e.g. "10.0.0.1" or "10 20 8080 srv.example.org.". */
  data: string;
}

export interface DigResult {
  status: string;
  flags: string[];
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** The raw dig output, for assertion messages. */
  raw: string;
}

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

const SECTION = /^;; (ANSWER|AUTHORITY|ADDITIONAL) SECTION:$/;

function parseRecord(line: string): DigRecord | undefined {
  const m = /^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
  if (!m) return undefined;
  return { name: m[1]!, ttl: Number(m[2]), class: m[3]!, type: m[4]!, data: m[5]!.trim() };
}

export function parseDig(raw: string): DigResult {
  const result: DigResult = { status: '', flags: [], answer: [], authority: [], additional: [], raw };
  let section: DigRecord[] | undefined;
  for (const line of raw.split('\n')) {
    const header = /status: ([A-Z]+)/.exec(line);
    if (header) result.status = header[1]!;
    const flags = /^;; flags: ([^;]*);/.exec(line);
    if (flags) result.flags = flags[1]!.trim().split(/\s+/);
    const s = SECTION.exec(line);
    if (s) {
      section = s[1] === 'ANSWER' ? result.answer : s[1] === 'AUTHORITY' ? result.authority : result.additional;
      continue;
    }
    if (line.trim() === '') {
      section = undefined;
      continue;
    }
    if (section && !line.startsWith(';')) {
      const record = parseRecord(line);
      if (record) section.push(record);
    }
  }
  return result;
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
