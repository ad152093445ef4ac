// The real CoreDNS (built from the Go module proxy) with a given Corefile on a loopback port.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dig } from './dig.ts';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface CoreDnsHandle {
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * `corefile` receives the DNS port and returns the Corefile text; it should bind 127.0.0.1.
 * Ready when `readinessName` (a name inside a served zone) gets any answer over UDP.
 */
export async function startCoreDns(corefile: (port: number) => string, readinessName = '.'): Promise<CoreDnsHandle> {
  const port = await freePort();
  const dir = tempDir('coredns');
  const file = join(dir, 'Corefile');
  writeFileSync(file, corefile(port));
  const proc = startProcess('coredns', tool('coredns'), ['-conf', file], { cwd: dir });
  await waitReady(proc, 'answering', async () => {
    const r = await dig({ port, name: readinessName, type: 'SOA', timeoutSeconds: 1 });
    return r.status !== '';
  });
  return { port, process: proc, stop: () => proc.stop() };
}

/**
 * A Corefile serving `zones` from etcd at `endpoints` (the setup the seed tutorials deploy); over
 * TLS with a client certificate and as an etcd user when given.
 */
export function etcdCorefile(opts: {
  zones: string[];
  endpoints: string[];
  prefix?: string;
  cacheSeconds?: number;
  tls?: { cert: string; key: string; ca: string };
  credentials?: { username: string; password: string };
}) {
  return (port: number) =>
    // Every zone of the server block needs the port; a bare zone would listen on port 53.
    `${opts.zones.map((z) => `${z}:${port}`).join(' ')} {
  bind 127.0.0.1
  etcd ${opts.zones.join(' ')} {
    path ${opts.prefix ?? '/skydns'}
    endpoint ${opts.endpoints.join(' ')}
${opts.tls ? `    tls ${opts.tls.cert} ${opts.tls.key} ${opts.tls.ca}\n` : ''}${opts.credentials ? `    credentials ${opts.credentials.username} ${opts.credentials.password}\n` : ''}  }
${opts.cacheSeconds ? `  cache ${opts.cacheSeconds}\n` : ''}  errors
}
`;
}
