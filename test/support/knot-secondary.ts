// The real Knot DNS (knotd) as a secondary of one zone: it transfers the zone from a primary on
// loopback (or a pod on the cluster check's bridge), signed with a TSIG key, and keeps it in a
// temporary directory (never the system ones).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface KnotSecondaryOptions {
  /** One zone or several, all from the same primary. */
  zone: string | readonly string[];
  primaryPort: number;
  key: { name: string; algorithm: string; secret: string };
  /** Its DNS port, when the primary must know it first (to NOTIFY it); a free one otherwise. */
  port?: number;
  /** Where it listens, and the primary's address (the NOTIFYs' source): 127.0.0.1 unless told (a pod). */
  listen?: string;
  primaryAddress?: string;
  /** The address it asks the primary from (Knot's `via`); the system's choice unless told. */
  source?: string;
  /**
   * A catalog zone (RFC 9432) from the same primary (`catalog-role: interpret`): its member zones
   * are added and removed as the catalog says, each from a template with the same primary and key.
   */
  catalogZone?: string;
}

export interface KnotSecondaryHandle {
  port: number;
  config: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export function knotSecondaryConfig(dir: string, port: number, o: KnotSecondaryOptions): string {
  return `server:
    rundir: ${dir}
    listen: ${o.listen ?? '127.0.0.1'}@${port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: ${dir}
log:
  - target: stderr
    any: info
key:
  - id: ${o.key.name}
    algorithm: ${o.key.algorithm}
    secret: ${o.key.secret}
remote:
  - id: primary
    address: ${o.primaryAddress ?? '127.0.0.1'}@${o.primaryPort}
${o.source ? `    via: ${o.source}\n` : ''}    key: ${o.key.name}
acl:
  - id: notify-from-primary
    address: ${o.primaryAddress ?? '127.0.0.1'}
    key: ${o.key.name}
    action: notify
${
  o.catalogZone
    ? `template:
  - id: catalog-member
    storage: ${dir}
    file: member-%s.zone
${SECONDARY}
`
    : ''
}zone:
${(typeof o.zone === 'string' ? [o.zone] : o.zone)
  .map(
    (zone, i) => `  - domain: ${zone}
    storage: ${dir}
    file: secondary-${i}.zone
${SECONDARY}
`,
  )
  .join('')}${
    o.catalogZone
      ? `  - domain: ${o.catalogZone}
    storage: ${dir}
    file: catalog.zone
${SECONDARY}
    catalog-role: interpret
    catalog-template: catalog-member
`
      : ''
  }`;
}

/** How every zone it holds is kept: from the primary, NOTIFY from it, in memory and the journal only. */
const SECONDARY = `    master: primary
    acl: notify-from-primary
    zonefile-sync: -1
    zonefile-load: none
    journal-content: none`;

/** Started; the caller waits for the zone (a SOA answer) with its own deadline. */
export async function startKnotSecondary(o: KnotSecondaryOptions): Promise<KnotSecondaryHandle> {
  const port = o.port ?? (await freePort());
  const dir = tempDir('knot-secondary');
  const config = join(dir, 'knot.conf');
  writeFileSync(config, knotSecondaryConfig(dir, port, o));
  const proc = startProcess('knotd-secondary', tool('knotd'), ['-c', config]);
  return { port, config, process: proc, stop: () => proc.stop() };
}
