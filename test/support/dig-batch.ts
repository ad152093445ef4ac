// Many questions asked of one server by few dig processes (dig -f, one batch file per process),
// parsed per question: a dig per question costs a process start each, and the comparison of
// etcdns with its secondaries asks thousands.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseDig } from './dig-output.ts';
import { dig, type DigResult } from './dig.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

const run = promisify(execFile);

export interface Question {
  name: string;
  type: string;
}

/** The key a batch answer is filed under: "name type" as asked. */
export const questionKey = (q: Question) => `${q.name} ${q.type}`;

/** Questions per dig process; a few processes run at once. */
const CHUNK = 250;
const PARALLEL = 3;

export interface AskOptions {
  /** The server's address; default 127.0.0.1. */
  server?: string;
  /** Recursion desired (a resolver); default off (an authoritative server). */
  recurse?: boolean;
}

const recursion = (o: AskOptions) => (o.recurse ? '+recurse' : '+norecurse');

async function askChunk(port: number, questions: readonly Question[], dir: string, n: number, o: AskOptions) {
  const file = join(dir, `batch-${n}.txt`);
  writeFileSync(file, questions.map((q) => `${q.name} ${q.type}\n`).join(''));
  // Three UDP tries, as the interop test: a datagram lost on a busy machine is not a difference.
  const args = [`@${o.server ?? '127.0.0.1'}`, '-p', String(port), recursion(o), '+time=2', '+tries=3', '-f', file];
  const { stdout } = await run(tool('dig'), args, { timeout: (questions.length * 6 + 10) * 1000, maxBuffer: 1 << 28 });
  // Each answer starts with dig's banner naming the question.
  const blocks = stdout.split(/\n(?=; <<>> DiG )/).filter((b) => b.includes('<<>> DiG'));
  if (blocks.length !== questions.length) {
    throw new Error(`dig -f answered ${blocks.length} of ${questions.length} questions:\n${stdout.slice(-2000)}`);
  }
  return blocks.map((block) => parseDig(block));
}

/** Every question's answer from the server on 127.0.0.1:port (or o.server), by questionKey; no answer at all throws. */
export async function digMany(
  port: number,
  questions: readonly Question[],
  o: AskOptions = {},
): Promise<Map<string, DigResult>> {
  const dir = tempDir('dig-batch');
  const chunks: Question[][] = [];
  for (let i = 0; i < questions.length; i += CHUNK) chunks.push(questions.slice(i, i + CHUNK));
  const out = new Map<string, DigResult>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < chunks.length; i = next++) {
      const answers = await askChunk(port, chunks[i]!, dir, i, o);
      for (const [j, q] of chunks[i]!.entries()) {
        let a = answers[j]!;
        // Rarely (2 in 20,000 here) dig -f prints a message without QR, its own query: asked again alone.
        for (let again = 0; again < 3 && !a.flags.includes('qr'); again++) {
          a = await dig({ server: o.server, port, name: q.name, type: q.type, tries: 3, extra: [recursion(o)] });
        }
        if (!a.status || !a.flags.includes('qr'))
          throw new Error(`no answer from port ${port} to ${questionKey(q)}:\n${a.raw}`);
        out.set(questionKey(q), a);
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return out;
}
