// Our own DNS server, `etcdns server`, started as users start it (bin/etcdns.js on the
// project's Node), on loopback ports; ready when /readyz says so (first full load done).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { etcdnsBin, nodeBin } from './tools.ts';

export interface EtcdnsServerOptions {
  etcdEndpoints: string[];
  zones: string[];
  prefix?: string;
  /** More flags, e.g. ["--workers", "2"] or ["--lookup", "subtree"]. */
  args?: string[];
  env?: Record<string, string>;
  /** The `etcdns` script to run; default this repository's bin/etcdns.js (e.g. an installed package's). */
  bin?: string;
  /** Where it answers DNS; default 127.0.0.1 on a free port (behind resolvers: its own loopback address, port 53). */
  address?: string;
  port?: number;
  /** Run under faketime with this offset ("+10m"): a server whose clock is that far off. */
  clockOffset?: string;
}

export interface EtcdnsServerHandle {
  port: number;
  httpPort: number;
  process: ManagedProcess;
  /** GET on the HTTP edge, e.g. "/metrics". */
  http(path: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/** Debian's libfaketime (package faketime), whatever the architecture's library directory. */
function libfaketime(): string {
  for (const dir of readdirSync('/usr/lib')) {
    const file = join('/usr/lib', dir, 'faketime', 'libfaketime.so.1');
    if (existsSync(file)) return file;
  }
  throw new Error('libfaketime.so.1 not found: run scripts/setup-test-env.sh (Debian package faketime)');
}

export function etcdnsServerArgs(o: EtcdnsServerOptions, port: number, httpPort: number): string[] {
  return [
    o.bin ?? etcdnsBin,
    'server',
    '--etcd',
    o.etcdEndpoints.join(','),
    ...o.zones.flatMap((z) => ['--zone', z]),
    '--listen',
    `${o.address ?? '127.0.0.1'}:${port}`,
    '--http-listen',
    `127.0.0.1:${httpPort}`,
    ...(o.prefix ? ['--prefix', o.prefix] : []),
    ...(o.args ?? []),
  ];
}

export async function startEtcdnsServer(o: EtcdnsServerOptions, timeoutMs = 30_000): Promise<EtcdnsServerHandle> {
  const port = o.port ?? (await freePort());
  const httpPort = await freePort();
  // libfaketime preloaded into node itself: the faketime command forks and waits, so stopping it
  // by PID would leave the server running.
  const clock = o.clockOffset ? { LD_PRELOAD: libfaketime(), FAKETIME: o.clockOffset } : {};
  const proc = startProcess('etcdns-server', nodeBin, etcdnsServerArgs(o, port, httpPort), {
    env: { ...o.env, ...clock },
  });
  const http = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${httpPort}${path}`, { signal: AbortSignal.timeout(2000) });
    return { status: res.status, body: await res.text() };
  };
  await waitReady(
    proc,
    'ready',
    async () => {
      try {
        return (await http('/readyz')).status === 200;
      } catch {
        return false;
      }
    },
    timeoutMs,
  );
  return { port, httpPort, process: proc, http, stop: () => proc.stop() };
}
