// Runs the real nsupdate (BIND 9's bind9-dnsutils) against a server on loopback: one UPDATE,
// TSIG-signed with a key given as BIND's -y, over UDP or TCP (-v). nsupdate says an rcode only when
// the update failed ("update failed: REFUSED"); NOERROR otherwise.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keyStatement, type TsigKeySpec } from './tsig-key.ts';

const run = promisify(execFile);

export interface NsupdateOptions {
  port: number;
  zone: string;
  /** nsupdate commands between `zone` and `send`: "update add ...", "prereq nxdomain ...". */
  commands: string[];
  key?: TsigKeySpec;
  tcp?: boolean;
}

export interface NsupdateResult {
  /** The rcode of the answer (NOERROR when nsupdate reports no failure). */
  rcode: string;
  output: string;
}

export async function nsupdate(o: NsupdateOptions): Promise<NsupdateResult> {
  // check-names off: nsupdate would refuse an A record at a name with "_" itself, before etcdns sees it.
  const script = [`server 127.0.0.1 ${o.port}`, 'check-names off', `zone ${o.zone}`, ...o.commands, 'send', ''].join(
    '\n',
  );
  const args = [
    '-t',
    '5',
    ...(o.tcp ? ['-v'] : []),
    ...(o.key ? ['-y', `${o.key.algorithm}:${o.key.name}:${o.key.secret}`] : []),
  ];
  const child = run('nsupdate', args, { timeout: 20_000 });
  child.child.stdin!.end(script);
  let output: string;
  try {
    const { stdout, stderr } = await child;
    output = stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    output = `${err.stdout ?? ''}${err.stderr ?? ''}` || err.message;
  }
  const failed = /update failed: (\w+)/.exec(output);
  return {
    rcode: failed ? failed[1]! : /error|fail|timed out/i.test(output) ? `error: ${output.trim()}` : 'NOERROR',
    output,
  };
}

/** A server config file (`--config`) in `dir` turning updates on: the keys in a key file beside it, and `update`'s other fields. */
export function updateConfigFile(dir: string, keys: TsigKeySpec[], update: Record<string, unknown>): string {
  const keyFile = join(dir, 'update.key');
  writeFileSync(keyFile, keys.map(keyStatement).join('\n'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ update: { keyFile, ...update } }));
  return file;
}
