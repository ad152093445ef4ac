// The real Knot DNS (Debian's knotd) serving static zone files on a loopback port, with its own
// configuration, run and database directories in a temporary directory (never the system ones).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dig } from './dig.ts';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface KnotZone {
  /** Apex, e.g. "example.org.". */
  name: string;
  /** Zone file text (RFC 1035 master file). */
  text: string;
}

export interface KnotHandle {
  address: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export interface KnotOptions {
  zones: KnotZone[];
  /** UDP worker threads; default 1 (the benchmark compares single-core servers). */
  udpWorkers?: number;
  /** Where it listens; default 127.0.0.1 on a free port (a delegation's server: its own loopback address, port 53). */
  address?: string;
  port?: number;
}

export function knotConfig(dir: string, address: string, port: number, o: KnotOptions): string {
  const zones = o.zones
    .map((z, i) => `  - domain: ${z.name}\n    file: ${join(dir, `zone-${i}.zone`)}\n    journal-content: none\n`)
    .join('');
  return `server:
    rundir: ${dir}
    listen: ${address}@${port}
    udp-workers: ${o.udpWorkers ?? 1}
    tcp-workers: 1
    background-workers: 1
database:
    storage: ${dir}
log:
  - target: stderr
    any: warning
zone:
${zones}`;
}

/** Ready when the first zone's SOA is answered (the zone is loaded). */
export async function startKnot(o: KnotOptions): Promise<KnotHandle> {
  if (o.zones.length === 0) throw new Error('startKnot: at least one zone is required');
  const address = o.address ?? '127.0.0.1';
  const port = o.port ?? (await freePort());
  const dir = tempDir('knot');
  o.zones.forEach((z, i) => writeFileSync(join(dir, `zone-${i}.zone`), z.text));
  const conf = join(dir, 'knot.conf');
  writeFileSync(conf, knotConfig(dir, address, port, o));
  const proc = startProcess('knotd', tool('knotd'), ['-c', conf]);
  await waitReady(proc, 'serving its zone', async () => {
    const r = await dig({ server: address, port, name: o.zones[0]!.name, type: 'SOA', timeoutSeconds: 1 });
    return r.status === 'NOERROR' && r.answer.length > 0;
  });
  return { address, port, process: proc, stop: () => proc.stop() };
}
