// Our own DNS server, `etcdns server`, started as users start it (bin/etcdns.js on the
// project's Node), on loopback ports; ready when /readyz says so (first full load done).
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
}

export interface EtcdnsServerHandle {
  port: number;
  httpPort: number;
  process: ManagedProcess;
  /** GET on the HTTP edge, e.g. "/metrics". */
  http(path: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
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
  const proc = startProcess('etcdns-server', nodeBin, etcdnsServerArgs(o, port, httpPort), { env: o.env });
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
