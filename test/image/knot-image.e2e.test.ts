// The DNSSEC signer's Knot image, for real: scripts/knot-image.sh assembles it with buildah, then
// podman runs what DnssecSigner synthesizes, as its pod runs it (user 65532, read-only root, no
// capabilities; the mounts of the StatefulSet): the init step resolves the etcdns Service's name
// into Knot's primary (here the name is in the container's /etc/hosts, pointing at the real
// etcdns server on the host's loopback), then knotd with the ConfigMap's configuration takes the
// zone over TSIG, signs it, and answers signed; a record written to etcd is signed within the
// refresh interval; `keymgr ds` in the container gives the DS that BIND's dnssec-dsfromkey
// computes from the DNSKEY answered; the signed zone passes dnssec-verify; a restarted container
// on the same data volume signs with the same keys.
// The one change to the synthesized objects: Knot listens on a free loopback port, not the pod's
// 5353 (the container shares the host's network). Skipped, naming the error, only where buildah
// or podman cannot run at all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { NONROOT_IDENTITY } from '../../src/constructs/base/workload.ts';
import { answerData, dig } from '../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { startEtcdnsServer } from '../support/etcdns-server.ts';
import { podmanUnavailable, restrictedRunArgs } from '../support/podman.ts';
import { freePort } from '../support/ports.ts';
import { GiveUp, startProcess, stopAll, waitFor, type ManagedProcess } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { repoRoot, tool } from '../support/tools.ts';
import { transferArgs, writeKeyFile, type TsigKeySpec } from '../support/tsig-key.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const run = promisify(execFile);
const USER = `${NONROOT_IDENTITY.runAsUser}:${NONROOT_IDENTITY.runAsGroup}`;
const ZONE = 'example.org.';
const KEY: TsigKeySpec = {
  name: 'signer.example.org',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns knot image test secret').toString('base64'),
};

/** What DnssecSigner synthesizes for a one-view stack signing example.org. */
const objects = synthObjects({
  zones: [{ name: 'example.org' }],
  dnssec: {
    podCidrs: ['10.244.0.0/16'],
    refreshInterval: '2s',
    tsig: { secretName: 'signer-tsig', keyName: KEY.name },
    secondaries: { allowCidrs: ['127.0.0.1/32'] },
  },
}) as Json[];
const set = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'etcdns-dnssec-signer')!;
const pod = set.spec.template.spec as Json;
const [init] = pod.initContainers as Json[];
const [knot] = pod.containers as Json[];
const knotConf = String(
  objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-dnssec-signer')!.data['knot.conf'],
);
const env = (name: string) => (init!.env as Json[]).find((e) => e.name === name)!.value as string;
const mountOf = (name: string) => (knot!.volumeMounts as Json[]).find((m) => m.name === name)!.mountPath as string;

const skip = await podmanUnavailable();

describe('the Knot image runs the DnssecSigner pod', { skip }, () => {
  let etcd: EtcdHandle;
  let image: string;
  let port: number;
  let etcdnsPort: number;
  const dirs = { run: '', data: '', config: '', tsig: '' };
  const containers: string[] = [];
  let signer: ManagedProcess | undefined;
  const figures: string[] = [];

  const put = (path: string, host: string) =>
    etcd
      .client()
      .put(`/skydns/org/example/${path}`)
      .value(JSON.stringify({ ttl: 60, host }));

  /** knotd as the StatefulSet's container runs it, on the pod's volumes (host directories here). */
  async function startSigner(): Promise<ManagedProcess> {
    const name = `etcdns-knot-test-${process.pid}-${containers.length}`;
    containers.push(name);
    const started = performance.now();
    const knotd = startProcess('knotd-image', 'podman', [
      ...(await restrictedRunArgs(USER)),
      '--rm',
      '--name',
      name,
      '-v',
      `${join(dirs.config, 'knot.conf')}:${mountOf('config')}:ro`,
      '-v',
      `${dirs.data}:${mountOf('data')}`,
      '-v',
      `${dirs.run}:${mountOf('run')}`,
      '-v',
      `${dirs.tsig}:${mountOf('tsig')}:ro`,
      // The pod's emptyDir.
      '--mount',
      `type=tmpfs,destination=${mountOf('tmp')}`,
      image,
      ...(knot!.command as string[]),
    ]);
    await waitFor(
      'the zone signed by knotd in the container',
      async () => {
        if (!knotd.running()) throw new GiveUp('knotd exited');
        const r = await dig({ port, name: ZONE, type: 'SOA', extra: ['+dnssec'], timeoutSeconds: 1 });
        return r.answer.some((a) => a.type === 'RRSIG') || undefined;
      },
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${knotd.logs().slice(-3000)}`);
    });
    figures.push(`container start -> signed SOA ${Math.round(performance.now() - started)} ms`);
    return knotd;
  }

  const dnskeyTags = async () => {
    const r = await dig({ port, name: ZONE, type: 'DNSKEY', extra: ['+multiline'], timeoutSeconds: 2 });
    return [...r.raw.matchAll(/key id = (\d+)/g)].map((m) => m[1]!).sort();
  };

  before(async () => {
    image = (
      await run('bash', [join(repoRoot, 'scripts', 'knot-image.sh')], { cwd: repoRoot, timeout: 300_000 }).catch(
        (e: { stderr?: string; message: string }) => {
          throw new Error(`scripts/knot-image.sh failed: ${e.message}\n${e.stderr ?? ''}`);
        },
      )
    ).stdout.trim();
    etcd = await startEtcd();
    await put('dns/ns/ns1', '127.0.0.1');
    await put('www', '192.0.2.10');
    const dir = tempDir('knot-image');
    for (const d of Object.keys(dirs) as (keyof typeof dirs)[]) {
      dirs[d] = join(dir, d);
      mkdirSync(dirs[d]);
      chownSync(dirs[d], NONROOT_IDENTITY.runAsUser, NONROOT_IDENTITY.runAsGroup);
    }
    // The Secret's two keys: the BIND file etcdns reads, the Knot file knotd includes.
    const bindKey = writeKeyFile(dir, KEY);
    writeFileSync(
      join(dirs.tsig, 'knot.key'),
      `key:\n  - id: ${KEY.name}\n    algorithm: ${KEY.algorithm}\n    secret: ${KEY.secret}\n`,
      { mode: 0o644 },
    );
    const etcdns = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: [ZONE],
      args: transferArgs([], bindKey),
    });
    etcdnsPort = etcdns.port;
    port = await freePort();
    assert.match(knotConf, /listen: 0\.0\.0\.0@5353/);
    writeFileSync(join(dirs.config, 'knot.conf'), knotConf.replace('0.0.0.0@5353', `127.0.0.1@${port}`), {
      mode: 0o644,
    });
  });

  after(async () => {
    console.log(`# figures: ${figures.join('; ')}`);
    for (const name of containers) await run('podman', ['rm', '--force', '--time', '2', name]).catch(() => {});
    await stopAll();
  });

  test("the image: Knot's version, user 65532", async () => {
    const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{.Config.User}}|{{.Size}}', image]);
    const [user, size] = stdout.trim().split('|');
    assert.equal(user, USER);
    assert.equal(
      image,
      `localhost/knot:${set.metadata.labels['app.kubernetes.io/version']}`,
      'the tag DnssecSigner runs',
    );
    figures.push(`${image} ${(Number(size) / 1e6).toFixed(1)} MB`);
  });

  test("the init step resolves the Service's name into Knot's primary, with the TSIG key", async () => {
    const { stdout } = await run('podman', [
      ...(await restrictedRunArgs(USER)),
      '--rm',
      // The Service's name, as the cluster DNS would answer it: the host's loopback here.
      '--add-host',
      `${env('PRIMARY_SERVICE')}:127.0.0.1`,
      '-e',
      `PRIMARY_SERVICE=${env('PRIMARY_SERVICE')}`,
      // The Service's port 53 is the etcdns server's free port here.
      '-e',
      `PRIMARY_PORT=${etcdnsPort}`,
      '-e',
      `TSIG_KEY=${env('TSIG_KEY')}`,
      '-v',
      `${dirs.run}:${(init!.volumeMounts as Json[])[0]!.mountPath}`,
      image,
      ...(init!.command as string[]),
    ]);
    assert.match(stdout, /primary etcdns-server-internal: 127\.0\.0\.1/);
    const { stdout: conf } = await run('cat', [join(dirs.run, 'primary.conf')]);
    assert.equal(conf, `remote:\n  - id: etcdns\n    address: 127.0.0.1@${etcdnsPort}\n    key: ${KEY.name}\n`);
  });

  test('the init step fails, saying why, while the name has no address', async () => {
    const failed = await run('podman', [
      ...(await restrictedRunArgs(USER)),
      '--rm',
      '-e',
      'PRIMARY_SERVICE=no-such-service.invalid',
      '-e',
      'PRIMARY_PORT=53',
      '-e',
      'TSIG_KEY=',
      '-v',
      `${tempDir('knot-init')}:/run/knot`,
      image,
      ...(init!.command as string[]),
    ]).catch((e: { code: number; stderr: string }) => e);
    assert.ok('code' in failed && failed.code === 1, JSON.stringify(failed));
    assert.match(failed.stderr, /no address for no-such-service\.invalid yet/);
  });

  test('knotd takes the zone over TSIG and answers it signed', async () => {
    signer = await startSigner();
    const r = await dig({ port, name: 'www.example.org', extra: ['+dnssec'] });
    assert.deepEqual(answerData(r, 'A'), ['192.0.2.10'], r.raw);
    assert.ok(
      r.answer.some((a) => a.type === 'RRSIG'),
      r.raw,
    );
    assert.ok(r.flags.includes('aa'), r.raw);
  });

  test('a record written to etcd is signed within the refresh interval (2 s)', async () => {
    const started = performance.now();
    await put('new', '192.0.2.20');
    await waitFor(
      'new.example.org signed',
      async () => {
        const r = await dig({ port, name: 'new.example.org', extra: ['+dnssec'], timeoutSeconds: 1 });
        return answerData(r, 'A').includes('192.0.2.20') && r.answer.some((a) => a.type === 'RRSIG') ? r : undefined;
      },
      15_000,
      100,
    );
    const ms = Math.round(performance.now() - started);
    figures.push(`etcd write -> signed answer ${ms} ms`);
    // The refresh interval, a second of etcdns's own and Knot's IXFR and signing.
    assert.ok(ms < 6_000, `${ms} ms`);
  });

  test("`keymgr ds` in the container gives the DS of the DNSKEY answered (BIND's dnssec-dsfromkey)", async () => {
    const { stdout } = await run('podman', ['exec', containers.at(-1)!, 'keymgr', '-c', mountOf('config'), ZONE, 'ds']);
    const ds = (text: string, digestType: string) =>
      text
        .split('\n')
        .filter((l) => / DS /.test(l))
        .map((l) => l.trim().split(/\s+/).slice(-4))
        .filter((f) => f[2] === digestType)
        .map((f) => f.join(' ').toUpperCase());
    const keys = await dig({ port, name: ZONE, type: 'DNSKEY', timeoutSeconds: 2 });
    const file = join(tempDir('knot-ds'), 'dnskey');
    writeFileSync(file, keys.raw);
    const { stdout: computed } = await run(tool('dnssec-dsfromkey'), ['-2', '-f', file, ZONE]);
    assert.ok(ds(computed, '2').length > 0, computed);
    assert.deepEqual(ds(stdout, '2'), ds(computed, '2'), `keymgr:\n${stdout}\ndnssec-dsfromkey:\n${computed}`);
  });

  test("the signed zone, transferred from the container, passes BIND's dnssec-verify", async () => {
    const { stdout: zone } = await run(tool('dig'), [
      '@127.0.0.1',
      '-p',
      String(port),
      ZONE,
      'AXFR',
      '+nocmd',
      '+nostats',
    ]);
    const file = join(tempDir('knot-image-zone'), 'example.org.zone');
    writeFileSync(file, zone);
    const { stdout, stderr } = await run(tool('dnssec-verify'), ['-o', ZONE, file]);
    assert.match(stdout + stderr, /Zone fully signed/, stdout + stderr);
  });

  test('a new container on the same data volume signs with the same keys', async () => {
    const before = await dnskeyTags();
    assert.ok(before.length >= 2, `a KSK and a ZSK: ${before.join(', ')}`);
    await run('podman', ['stop', '--time', '10', containers.at(-1)!]);
    await signer!.exited;
    signer = await startSigner();
    assert.deepEqual(await dnskeyTags(), before);
  });
});
