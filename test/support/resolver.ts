// What the recursive resolvers the tests start (unbound.ts, bind-resolver.ts) share: their
// options, handle and start. Each is put in front of authoritative servers on loopback with stub
// zones, the root's hints fake (a loopback address nothing answers on), so no question ever
// leaves this host; ready when it resolves a question of its first stub zone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertLocalRoute } from './cluster-host.ts';
import { dig } from './dig.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';

export interface StubZone {
  /** Apex, e.g. "example.org.". */
  name: string;
  /** The zone's servers: loopback addresses, on port 53 unless given. */
  addresses: { address: string; port?: number }[];
}

export interface ResolverOptions {
  /** Its loopback address: it also sends its questions from there. */
  address: string;
  port: number;
  stubZones: StubZone[];
  /** The address the fake root hints give (nothing should answer there). */
  rootHint: string;
}

export interface ResolverHandle {
  address: string;
  port: number;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export interface ResolverProgram {
  name: string;
  command: string;
  /** Its configuration, given its directory and the root hints file in it. */
  config(dir: string, rootHints: string): string;
  args(configFile: string): string[];
}

export async function startResolver(program: ResolverProgram, o: ResolverOptions): Promise<ResolverHandle> {
  for (const a of [o.address, o.rootHint, ...o.stubZones.flatMap((z) => z.addresses.map((s) => s.address))])
    assertLocalRoute(a);
  const dir = tempDir(program.name);
  const rootHints = join(dir, 'root.hints');
  writeFileSync(rootHints, `. 3600000 NS a.root-servers.test.\na.root-servers.test. 3600000 A ${o.rootHint}\n`);
  const configFile = join(dir, `${program.name}.conf`);
  writeFileSync(configFile, program.config(dir, rootHints));
  const proc = startProcess(program.name, program.command, program.args(configFile));
  const zone = o.stubZones[0]!.name;
  await waitReady(proc, `resolving ${zone}`, async () => {
    const q = { server: o.address, port: o.port, name: zone, type: 'SOA', extra: ['+recurse'], timeoutSeconds: 1 };
    return (await dig(q)).status === 'NOERROR';
  });
  return { address: o.address, port: o.port, process: proc, stop: () => proc.stop() };
}
