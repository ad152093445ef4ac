// Runs dnsperf (bounded by -l, against loopback only) and reads its report.
import { spawn } from 'node:child_process';

export interface DnsperfOptions {
  port: number;
  queryFile: string;
  seconds: number;
  clients: number;
  /** Fixed rate (-Q); absent: as fast as the server answers. */
  rate?: number;
  /** Maximum outstanding queries (-q). */
  outstanding?: number;
  /** Per-query latencies (-v); needed for percentiles, so only for fixed-rate runs. */
  perQuery?: boolean;
  /** CPU list for taskset, e.g. "1"; absent: unpinned. */
  cpus?: string;
}

export interface DnsperfResult {
  sent: number;
  completed: number;
  lost: number;
  qps: number;
  /** Response code -> count, e.g. { NOERROR: 9000, NXDOMAIN: 1000 }. */
  rcodes: Record<string, number>;
  averageLatency: number;
  /** Seconds, one per answered query, only with perQuery. */
  latencies: number[];
}

export function dnsperfArgs(o: DnsperfOptions): string[] {
  const args = ['-s', '127.0.0.1', '-p', String(o.port), '-d', o.queryFile, '-l', String(o.seconds)];
  args.push('-c', String(o.clients));
  if (o.outstanding !== undefined) args.push('-q', String(o.outstanding));
  if (o.rate !== undefined) args.push('-Q', String(o.rate));
  if (o.perQuery) args.push('-v');
  return args;
}

export async function runDnsperf(dnsperf: string, o: DnsperfOptions): Promise<DnsperfResult> {
  const [cmd, args] = o.cpus ? ['taskset', ['-c', o.cpus, dnsperf, ...dnsperfArgs(o)]] : [dnsperf, dnsperfArgs(o)];
  // -l bounds the load; the kill timer only guards against a dnsperf that never returns.
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: (o.seconds + 30) * 1000 });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const text = Buffer.concat(out).toString();
  if (code !== 0) throw new Error(`dnsperf exited with ${code}: ${Buffer.concat(err).toString()}${text.slice(-2000)}`);
  return parseDnsperf(text);
}

function field(text: string, label: string): number {
  const m = new RegExp(`^\\s*${label}:\\s+([0-9.]+)`, 'm').exec(text);
  if (!m) throw new Error(`dnsperf output has no "${label}"`);
  return Number(m[1]);
}

export function parseDnsperf(text: string): DnsperfResult {
  const rcodes: Record<string, number> = {};
  const codes = /^\s*Response codes:\s+(.*)$/m.exec(text)?.[1] ?? '';
  for (const m of codes.matchAll(/([A-Z]+) (\d+) \(/g)) rcodes[m[1]!] = Number(m[2]);
  const latencies: number[] = [];
  // -v prints "> NOERROR www.example.org A 0.000163" per answered query.
  for (const m of text.matchAll(/^> [A-Z]+ \S+ \S+ ([0-9.]+)$/gm)) latencies.push(Number(m[1]));
  return {
    sent: field(text, 'Queries sent'),
    completed: field(text, 'Queries completed'),
    lost: field(text, 'Queries lost'),
    qps: field(text, 'Queries per second'),
    rcodes,
    averageLatency: field(text, 'Average Latency \\(s\\)'),
    latencies,
  };
}
