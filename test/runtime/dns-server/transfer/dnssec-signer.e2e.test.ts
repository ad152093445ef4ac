// DNSSEC by a signer DNS engineers already run: the real Knot (knotd) configured by
// knotSignerConfig() as a TSIG-signed secondary of the real etcdns server, signing what it
// receives, and the real Unbound validating through it with the zone's DS as trust anchor.
// etcdns itself stays unsigned. Answers validate (AD), an NXDOMAIN is proved, BIND's
// dnssec-verify accepts the signed zone, a record written to etcd is signed and answered
// validated within seconds (etcdns NOTIFYs Knot), and a ZSK rollover on short lifetimes loses
// no validation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { knotSignerConfig } from '../../../../src/constructs/dnssec/knot-signer-config.ts';
import { dig, type DigResult } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer } from '../../../support/etcdns-server.ts';
import { freePort } from '../../../support/ports.ts';
import { startProcess, stopAll, waitFor, type ManagedProcess } from '../../../support/process.ts';
import type { ResolverHandle } from '../../../support/resolver.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { tool } from '../../../support/tools.ts';
import { transferArgs, writeKeyFile, type TsigKeySpec } from '../../../support/tsig-key.ts';
import { startUnbound } from '../../../support/unbound.ts';

const run = promisify(execFile);
const ZONE = 'example.org.';
const KEY: TsigKeySpec = {
  name: 'signer.example.test',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns dnssec signer test secret').toString('base64'),
};
/** Short lifetimes, so a ZSK rollover runs within the test (Knot waits propagation + TTLs between steps). */
const POLICY = {
  zskLifetime: '20s',
  propagationDelay: '1s',
  dnskeyTtl: '2s',
  zoneMaxTtl: '2s',
  rrsigLifetime: '3h',
  rrsigRefresh: '1h',
};

let etcd: EtcdHandle;
let knot: { port: number; config: string; process: ManagedProcess };
let unbound: ResolverHandle;
let anchors: string[];
let etcdnsPort: number;
const figures: string[] = [];

after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

const put = (path: string, value: object) =>
  etcd
    .client()
    .put(`/skydns/org/example/${path}`)
    .value(JSON.stringify({ ttl: 1, ...value }));

/** A question through the validating Unbound. */
const resolve = (name: string, type = 'A') =>
  dig({ server: unbound.address, port: unbound.port, name, type, extra: ['+recurse', '+dnssec'], timeoutSeconds: 2 });

const validated = (r: DigResult) => r.flags.includes('ad');

before(async () => {
  etcd = await startEtcd();
  await put('dns/ns/ns1', { host: '127.0.0.1' });
  await put('www', { host: '192.0.2.10' });
  await etcd
    .client()
    .put('/skydns/net/example/dns/ns/ns1')
    .value(JSON.stringify({ host: '127.0.0.1' }));
  const dir = tempDir('dnssec-signer');
  const keyFile = writeKeyFile(dir, KEY);
  const knotKey = join(dir, 'knot-tsig.conf');
  writeFileSync(knotKey, `key:\n  - id: ${KEY.name}\n    algorithm: ${KEY.algorithm}\n    secret: ${KEY.secret}\n`);
  const knotPort = await freePort();
  const etcdns = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: [ZONE, 'example.net.'],
    args: transferArgs([knotPort], keyFile),
  });
  etcdnsPort = etcdns.port;
  const config = join(dir, 'knot.conf');
  writeFileSync(
    config,
    knotSignerConfig({
      zones: [ZONE],
      listen: `127.0.0.1@${knotPort}`,
      storage: dir,
      rundir: dir,
      primary: { address: '127.0.0.1', port: etcdns.port },
      tsig: { id: KEY.name, file: knotKey },
      policy: POLICY,
      transferAllow: ['127.0.0.1'],
    }),
  );
  const started = performance.now();
  knot = { port: knotPort, config, process: startProcess('knotd-signer', tool('knotd'), ['-c', config]) };
  await waitFor(
    'the signed zone on Knot',
    async () => {
      const r = await dig({ port: knotPort, name: ZONE, type: 'SOA', extra: ['+dnssec'], timeoutSeconds: 1 });
      return r.answer.some((a) => a.type === 'RRSIG') || undefined;
    },
    30_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${knot.process.logs().slice(-3000)}`);
  });
  figures.push(`etcdns zone -> signed on Knot ${Math.round(performance.now() - started)} ms`);
  // The DS the parent would publish: Unbound's trust anchor.
  const { stdout } = await run(tool('keymgr'), ['-c', config, ZONE, 'ds']);
  anchors = stdout
    .split('\n')
    .filter((l) => / DS /.test(l))
    .map((a) => a.trim());
  assert.ok(anchors.length > 0, stdout);
  unbound = await startUnbound({
    address: '127.0.0.1',
    port: await freePort(),
    stubZones: [{ name: ZONE, addresses: [{ address: '127.0.0.1', port: knotPort }] }],
    rootHint: '127.0.0.2',
    trustAnchors: anchors,
  });
});

test('Knot accepts each shape of the generated configuration (knotc conf-check)', async () => {
  const dir = tempDir('knot-conf-check');
  const tsig = join(dir, 'tsig.conf');
  writeFileSync(tsig, `key:\n  - id: xfr\n    algorithm: hmac-sha256\n    secret: ${KEY.secret}\n`);
  const shapes = {
    defaults: {},
    everything: {
      tsig: { id: 'xfr', file: tsig },
      transferAllow: ['192.0.2.0/24', '127.0.0.1'],
      notify: ['192.0.2.53@53'],
      policy: { nsec3: false, algorithm: 'ed25519' as const, kskLifetime: '365d', ...POLICY },
    },
  };
  for (const [name, shape] of Object.entries(shapes)) {
    const file = join(dir, `${name}.conf`);
    const text = knotSignerConfig({
      zones: [ZONE, 'example.net.'],
      listen: '127.0.0.1@53',
      storage: dir,
      rundir: dir,
      primary: { address: '127.0.0.1', port: 5353 },
      ...shape,
    });
    writeFileSync(file, text);
    const checked = await run(tool('knotc'), ['-c', file, 'conf-check']).catch((e: { stderr: string }) => e);
    assert.ok(!('code' in checked), `${name}: ${checked.stderr}\n${text}`);
  }
});

test('an answer through the validating resolver is validated (AD), its RRSIG made by the signer', async () => {
  const r = await resolve('www.example.org');
  assert.equal(r.status, 'NOERROR', r.raw);
  assert.ok(validated(r), r.raw);
  assert.ok(
    r.answer.some((a) => a.type === 'A' && a.data === '192.0.2.10'),
    r.raw,
  );
  assert.ok(
    r.answer.some((a) => a.type === 'RRSIG'),
    r.raw,
  );
});

test("the control: a resolver given a DS that is not the key's answers SERVFAIL (bogus) for the signed zone", async () => {
  const wrong = anchors.map((a) => a.replace(/[0-9A-F]$/i, (d) => (d.toUpperCase() === '0' ? '1' : '0')));
  assert.notDeepEqual(wrong, anchors);
  const bogus = await startUnbound({
    address: '127.0.0.1',
    port: await freePort(),
    // Ready when its first stub zone resolves: an unsigned zone no anchor covers, straight from etcdns.
    stubZones: [
      { name: 'example.net.', addresses: [{ address: '127.0.0.1', port: etcdnsPort }] },
      { name: ZONE, addresses: [{ address: '127.0.0.1', port: knot.port }] },
    ],
    rootHint: '127.0.0.2',
    trustAnchors: wrong,
  });
  const r = await dig({ server: bogus.address, port: bogus.port, name: 'www.example.org', extra: ['+recurse'] });
  assert.equal(r.status, 'SERVFAIL', r.raw);
  assert.equal(r.answer.length, 0, r.raw);
  await bogus.stop();
});

test('a name that does not exist is NXDOMAIN, proved (AD, with NSEC3 records)', async () => {
  const r = await resolve('nope.example.org');
  assert.equal(r.status, 'NXDOMAIN', r.raw);
  assert.ok(validated(r), r.raw);
  assert.ok(
    r.authority.some((a) => a.type === 'NSEC3'),
    r.raw,
  );
});

test("the signed zone passes BIND's dnssec-verify", async () => {
  const { stdout: zone } = await run(tool('dig'), [
    '@127.0.0.1',
    '-p',
    String(knot.port),
    ZONE,
    'AXFR',
    '+nocmd',
    '+nostats',
  ]);
  const file = join(tempDir('signed-zone'), 'example.org.zone');
  writeFileSync(file, zone);
  const { stdout, stderr } = await run(tool('dnssec-verify'), ['-o', ZONE, file]);
  assert.match(stdout + stderr, /Zone fully signed/, stdout + stderr);
});

test('a record written to etcd is signed by Knot within seconds, and answered validated', async () => {
  const started = performance.now();
  await put('new', { host: '192.0.2.20' });
  // Asked of the signer until it has it: a resolver asked earlier would cache the NXDOMAIN.
  await waitFor(
    'new.example.org signed on Knot',
    async () => {
      const r = await dig({ port: knot.port, name: 'new.example.org', extra: ['+dnssec'], timeoutSeconds: 1 });
      return r.answer.some((a) => a.type === 'RRSIG') && r.answer.some((a) => a.data === '192.0.2.20') ? r : undefined;
    },
    20_000,
    50,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n--- knotd ---\n${knot.process.logs().slice(-3000)}`);
  });
  figures.push(`etcd write -> signed answer on Knot ${Math.round(performance.now() - started)} ms`);
  const r = await resolve('new.example.org');
  assert.equal(r.status, 'NOERROR', r.raw);
  assert.ok(validated(r), r.raw);
  assert.ok(
    r.answer.some((a) => a.data === '192.0.2.20'),
    r.raw,
  );
});

test('a ZSK rollover (20 s lifetime) loses no validation', async () => {
  const zskTags = async () => {
    const r = await dig({ port: knot.port, name: ZONE, type: 'DNSKEY', extra: ['+multiline'], timeoutSeconds: 1 });
    return r.raw
      .split('\n')
      .filter((l) => /ZSK; alg = .*; key id = (\d+)/.test(l))
      .map((l) => /key id = (\d+)/.exec(l)![1]!)
      .sort();
  };
  const first = await zskTags();
  assert.ok(first.length > 0, 'a ZSK signs');
  let queries = 0;
  const failures: string[] = [];
  const seen = new Set(first);
  const deadline = Date.now() + 90_000;
  let done = false;
  while (Date.now() < deadline && !done) {
    for (const name of ['www.example.org', 'nope.example.org']) {
      queries++;
      const r = await resolve(name);
      const want = name.startsWith('www') ? 'NOERROR' : 'NXDOMAIN';
      if (r.status !== want || !validated(r))
        failures.push(`${new Date().toISOString()} ${name} ${r.status} ${r.flags}`);
    }
    const tags = await zskTags();
    for (const t of tags) seen.add(t);
    // Done once one ZSK alone signs and another seen before is retired: a rollover ran to its end.
    done = tags.length === 1 && [...seen].some((t) => !tags.includes(t));
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(done, `a ZSK rollover completed within 90 s (keys seen: ${[...seen].join(', ')})`);
  assert.deepEqual(failures, [], `${failures.length} of ${queries} answers not validated during the rollover`);
  figures.push(`ZSK rollover (keys ${[...seen].join(', ')}): ${queries} validated answers, 0 lost`);
});
