// The real dig asking for a zone transfer (AXFR over TCP, optionally TSIG-signed with -y, from a
// chosen source address with -b): the records it printed, and its raw output for messages.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { DigRecord } from './dig.ts';
import { tool } from './tools.ts';

const run = promisify(execFile);

export interface AxfrQuery {
  port: number;
  zone: string;
  /** "hmac-sha256:name:base64secret", as dig -y takes it. */
  key?: string;
  /** Source address (dig -b). */
  source?: string;
  /** "AXFR" (default), or "IXFR=<serial>". */
  type?: string;
}

export interface AxfrResult {
  records: DigRecord[];
  raw: string;
}

export async function digAxfr(q: AxfrQuery): Promise<AxfrResult> {
  const args = [
    '@127.0.0.1',
    '-p',
    String(q.port),
    ...(q.key ? ['-y', q.key] : []),
    ...(q.source ? ['-b', q.source] : []),
    q.zone,
    q.type ?? 'AXFR',
    '+time=5',
    '+tries=1',
  ];
  const { stdout, stderr } = await run(tool('dig'), args, { timeout: 20_000 }).catch(
    (e: { stdout?: string; stderr?: string; message: string }) => {
      if (e.stdout !== undefined) return { stdout: e.stdout, stderr: e.stderr ?? '' };
      throw new Error(`dig ${args.join(' ')} failed: ${e.message}`);
    },
  );
  const records: DigRecord[] = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith(';') || line.trim() === '') continue;
    const m = /^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (m) records.push({ name: m[1]!, ttl: Number(m[2]), class: m[3]!, type: m[4]!, data: m[5]!.trim() });
  }
  return { records, raw: stdout + stderr };
}
