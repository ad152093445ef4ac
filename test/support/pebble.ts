// A real Pebble (Let's Encrypt's ACME test server, built by scripts/setup-test-env.sh) on loopback.
// Its validation authority resolves through the DNS server it is given (`-dnsserver`) and checks
// every challenge for real: PEBBLE_VA_ALWAYS_VALID is never set; PEBBLE_VA_NOSLEEP=1 only drops
// its random 0-15 s wait before a validation. It serves ACME over TLS with its test certificate
// for 127.0.0.1, signed by the CA in `caPem` (.cache/pebble-certs/, from Pebble's module).
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { repoRoot, tool } from './tools.ts';

const certs = (...path: string[]) => join(repoRoot, '.cache', 'pebble-certs', ...path);

export interface PebbleHandle {
  /** https://127.0.0.1:PORT/dir, the ACME directory. */
  directoryUrl: string;
  /** The CA (PEM) that signed Pebble's TLS certificate: what an ACME client must trust. */
  caPem: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startPebble(o: { dnsServer: string }): Promise<PebbleHandle> {
  const dir = tempDir('pebble');
  const [port, management, httpPort, tlsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const config = join(dir, 'pebble.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: certs('localhost', 'cert.pem'),
        privateKey: certs('localhost', 'key.pem'),
        // Where it would reach HTTP-01 and TLS-ALPN-01 responders: unused ports, DNS-01 only here.
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const proc = startProcess('pebble', tool('pebble'), ['-config', config, '-dnsserver', o.dnsServer], {
    // No nonce rejected on purpose (by default 5 % are, to exercise clients' badNonce retries): the
    // time to Ready then measures the DNS-01 path only.
    env: { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_VA_ALWAYS_VALID: undefined },
  });
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  const caPem = readFileSync(certs('pebble.minica.pem'), 'utf8');
  await waitReady(proc, 'serving its directory', () => servesDirectory(directoryUrl, caPem), 30_000);
  return { directoryUrl, caPem, process: proc, stop: () => proc.stop() };
}

/** The directory answers 200 over TLS verified against `ca` (fetch cannot take a CA of its own). */
const servesDirectory = (url: string, ca: string) =>
  new Promise<boolean>((resolve) => {
    // Pebble answers 400 to a request without a User-Agent, as RFC 8555 section 6.1 asks.
    const req = get(url, { ca, timeout: 1000, headers: { 'user-agent': 'etcdns-tests' } }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
