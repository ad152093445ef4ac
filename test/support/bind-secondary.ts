// The real BIND 9 (named) as a secondary of one or more zones: it transfers them from a primary on
// loopback, TSIG-signed when a key is given, keeps them in a temporary directory (never the system
// ones) and is driven with its own rndc key on its own control port. Authoritative only and
// loopback only: no recursion, no NOTIFY sent, IPv4 127.0.0.1, every source address 127.0.0.1.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertLocalRoute } from './cluster-host.ts';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';
import { keyStatement, type TsigKeySpec } from './tsig-key.ts';

const run = promisify(execFile);

export interface BindSecondaryOptions {
  /** One zone or several (e.g. a forward zone and its reverse zone), all from the same primary. */
  zone: string | readonly string[];
  primaryPort: number;
  key?: TsigKeySpec;
  /** Its DNS port, when the caller needs it before the start (to tell the primary whom to NOTIFY). */
  port?: number;
  /**
   * `minimal-responses yes`: no NS set and glue beside positive answers, as etcdns and Knot answer
   * (BIND's default adds them to non-recursive queries); negative answers and referrals are alike.
   */
  minimalResponses?: boolean;
  /**
   * A catalog zone (RFC 9432) from the same primary: its member zones are added and removed as
   * the catalog says (`catalog-zones`, checked at most every second), with the same primary and key.
   */
  catalogZone?: string;
}

export interface BindSecondaryHandle {
  port: number;
  config: string;
  process: ManagedProcess;
  logs(): string;
  /** rndc refresh, each zone: asks the primary's SOA now and transfers (IXFR first) when its serial is newer. */
  refresh(): Promise<void>;
  /** rndc retransfer, each zone: transfers the whole zone again, whatever the serials. */
  retransfer(): Promise<void>;
  stop(): Promise<void>;
}

interface Ports {
  port: number;
  controlPort: number;
}

/** Zone names as named.conf and rndc take them (no trailing dot). */
const zoneNames = (o: BindSecondaryOptions) =>
  (typeof o.zone === 'string' ? [o.zone] : o.zone).map((z) => z.replace(/\.$/, ''));

/** The options that keep every file named writes in `dir` (never the system's). */
export function namedFiles(dir: string): string {
  return `    directory "${dir}";
    pid-file "${join(dir, 'named.pid')}";
    lock-file "${join(dir, 'named.lock')}";
    session-keyfile "${join(dir, 'session.key')}";
    managed-keys-directory "${dir}";`;
}

export function bindSecondaryConfig(dir: string, ports: Ports, rndcKey: TsigKeySpec, o: BindSecondaryOptions): string {
  const keyed = o.key ? ` key "${o.key.name}"` : '';
  const primaries = `primaries port ${o.primaryPort} { 127.0.0.1${keyed}; }`;
  const catalog = o.catalogZone?.replace(/\.$/, '');
  const zones = [...zoneNames(o), ...(catalog ? [catalog] : [])].map(
    (zone) => `zone "${zone}" {
    type secondary;
    // NOTIFY is accepted from a primary's address, whatever its source port: no allow-notify.
    ${primaries};
    file "${zone}.db";
    masterfile-format text;
};
`,
  );
  return `options {
${namedFiles(dir)}
    listen-on port ${ports.port} { 127.0.0.1; };
    listen-on-v6 { none; };
    // Authoritative only: nothing is resolved, so nothing is ever asked of the root servers.
    recursion no;
    dnssec-validation no;
    // The NOTIFYs a secondary sends by default would go to the zone's NS names' addresses.
    notify no;
    request-ixfr yes;
    query-source address 127.0.0.1;
    transfer-source 127.0.0.1;
    notify-source 127.0.0.1;
    allow-query { 127.0.0.1; };
    allow-transfer { none; };
    automatic-interface-scan no;
${o.minimalResponses ? '    minimal-responses yes;\n' : ''}${
    catalog
      ? `    allow-new-zones yes;
    catalog-zones { zone "${catalog}" default-${primaries} zone-directory "${dir}" min-update-interval 1; };
`
      : ''
  }};
${o.key ? keyStatement(o.key) : ''}
${keyStatement(rndcKey)}
controls { inet 127.0.0.1 port ${ports.controlPort} allow { 127.0.0.1; } keys { "${rndcKey.name}"; }; };
${zones.join('')}`;
}

export function rndcConfig(controlPort: number, rndcKey: TsigKeySpec): string {
  return `${keyStatement(rndcKey)}
options { default-key "${rndcKey.name}"; default-server 127.0.0.1; default-port ${controlPort}; };
`;
}

/** Started and its control channel answering; the caller waits for the zone with its own deadline. */
export async function startBindSecondary(o: BindSecondaryOptions): Promise<BindSecondaryHandle> {
  // Everything named sends goes to 127.0.0.1: make sure that stays on this host.
  assertLocalRoute('127.0.0.1');
  const port = o.port ?? (await freePort());
  const controlPort = await freePort();
  const dir = tempDir('bind-secondary');
  const rndcKey = { name: 'rndc-key', algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };
  const config = join(dir, 'named.conf');
  const rndcConf = join(dir, 'rndc.conf');
  writeFileSync(config, bindSecondaryConfig(dir, { port, controlPort }, rndcKey, o));
  writeFileSync(rndcConf, rndcConfig(controlPort, rndcKey));
  // -g: foreground, logging to stderr; -4: IPv4 only; -n 1: one worker (the machine is shared).
  // No -u: it runs as the caller, and writes only in its temporary directory.
  const proc = startProcess('named-secondary', tool('named'), ['-g', '-4', '-n', '1', '-c', config]);
  const rndc = async (...args: string[]) => {
    await run(tool('rndc'), ['-c', rndcConf, ...args], { timeout: 10_000 });
  };
  await waitReady(proc, 'controllable (rndc status)', () =>
    rndc('status').then(
      () => true,
      () => false,
    ),
  );
  const eachZone = async (command: string) => {
    for (const zone of zoneNames(o)) await rndc(command, zone);
  };
  return {
    port,
    config,
    process: proc,
    logs: () => proc.logs(),
    refresh: () => eachZone('refresh'),
    retransfer: () => eachZone('retransfer'),
    stop: () => proc.stop(),
  };
}
