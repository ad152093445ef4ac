// cert-manager for real (issue 35): cert-manager v1.21.2's controllers as a process against a real
// kube-apiserver, Pebble (Let's Encrypt's ACME test server) resolving through `etcdns server` on
// loopback, and an Issuer with the rfc2136 DNS-01 solver pointed at that same etcdns server with a
// TSIG key. No other DNS server takes part.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startCertManager, type CertManagerHandle } from '../../../support/cert-manager.ts';
import { dig } from '../../../support/dig.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { updateConfigFile } from '../../../support/nsupdate.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { startPebble, type PebbleHandle } from '../../../support/pebble.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';

after(stopAll);

const ZONE = 'corp.example';
const NAME = `intranet.${ZONE}`;
const NAMESPACE = 'acme';
const ISSUER = 'pebble';
const TSIG = {
  name: 'acme-update.corp.example',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns cert-manager e2e tsig secret').toString('base64'),
};

let kube: KubeHandle;
let server: EtcdnsServerHandle;
let pebble: PebbleHandle;
let certManager: CertManagerHandle;
let objects: k8s.CustomObjectsApi;

/** Every process's last output, for a failure message. */
const logs = () =>
  [certManager.process, pebble.process, server.process]
    .map((p) => `--- ${p.name} ---\n${p.logs().slice(-3000)}`)
    .join('\n');

/** The Issuer of docs/acme.md, with Pebble's URL and CA and the etcdns server's address. */
const issuer = () => ({
  apiVersion: 'cert-manager.io/v1',
  kind: 'Issuer',
  metadata: { name: ISSUER, namespace: NAMESPACE },
  spec: {
    acme: {
      server: pebble.directoryUrl,
      caBundle: Buffer.from(pebble.caPem).toString('base64'),
      privateKeySecretRef: { name: 'pebble-account-key' },
      solvers: [
        {
          dns01: {
            rfc2136: {
              nameserver: `127.0.0.1:${server.port}`,
              tsigKeyName: TSIG.name,
              tsigAlgorithm: 'HMACSHA256',
              tsigSecretSecretRef: { name: 'etcdns-acme-tsig', key: 'secret' },
            },
          },
        },
      ],
    },
  },
});

before(async () => {
  const [k, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kube = k;
  // The update key may write only TXT at _acme-challenge names under the zone (docs/acme.md).
  const config = updateConfigFile(tempDir('acme-e2e'), [TSIG], { keys: [{ name: TSIG.name, suffixes: [ZONE] }] });
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE], args: ['--config', config] });
  pebble = await startPebble({ dnsServer: `127.0.0.1:${server.port}` });
  certManager = await startCertManager(kube, { dns01Nameservers: [`127.0.0.1:${server.port}`] });
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await core.createNamespacedSecret({
    namespace: NAMESPACE,
    body: { metadata: { name: 'etcdns-acme-tsig' }, stringData: { secret: TSIG.secret } },
  });
  objects = kube.admin.makeApiClient(k8s.CustomObjectsApi);
  await objects.createNamespacedCustomObject({
    group: 'cert-manager.io',
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'issuers',
    body: issuer(),
  });
});

test('the Issuer registers an ACME account with Pebble over TLS verified by its caBundle and becomes Ready', async () => {
  const ready = await waitFor(
    'the Issuer Ready',
    async () => {
      const c = await certManager.ready('issuers', NAMESPACE, ISSUER);
      return c?.status === 'True' ? c : undefined;
    },
    60_000,
    200,
  ).catch((e: Error) => assert.fail(`${e.message}\n${logs()}`));
  assert.equal(ready.reason, 'ACMEAccountRegistered', logs());
  assert.match(pebble.process.logs(), /There are now 1 accounts in memory/, logs());
});

test('a Certificate for a name in the zone becomes Ready through a DNS-01 challenge, and its TXT is gone afterwards', async () => {
  const created = performance.now();
  await objects.createNamespacedCustomObject({
    group: 'cert-manager.io',
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'certificates',
    body: {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'intranet', namespace: NAMESPACE },
      spec: {
        secretName: 'intranet-tls',
        dnsNames: [NAME],
        issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: ISSUER },
        privateKey: { algorithm: 'ECDSA', size: 256 },
      },
    },
  });
  await waitFor(
    'the Certificate Ready',
    async () =>
      (await certManager.ready('certificates', NAMESPACE, 'intranet'))?.status === 'True' ? true : undefined,
    // cert-manager sleeps 60 s after its own DNS check passes, before it asks the CA to validate.
    120_000,
    100,
  ).catch((e: Error) => assert.fail(`${e.message}\n${logs()}`));
  const ms = Math.round(performance.now() - created);
  console.log(`# Certificate created -> Ready: ${ms} ms`);

  // Pebble validated the challenge itself, asking etcdns for the TXT (no PEBBLE_VA_ALWAYS_VALID).
  assert.match(pebble.process.logs(), /authz \S+ set VALID by completed challenge/, logs());
  assert.doesNotMatch(pebble.process.logs(), /VA always returns valid|Skipping real validation/);
  const secret = await kube.admin
    .makeApiClient(k8s.CoreV1Api)
    .readNamespacedSecret({ namespace: NAMESPACE, name: 'intranet-tls' });
  const cert = new X509Certificate(Buffer.from(secret.data!['tls.crt']!, 'base64'));
  assert.equal(cert.subjectAltName, `DNS:${NAME}`);
  assert.match(cert.issuer, /Pebble Intermediate CA/);

  // Both of cert-manager's updates went to etcdns: one added the TXT, one deleted that same entry.
  const applied = server.process
    .logs()
    .split('\n')
    .filter((l) => l.includes('"dns update applied"'))
    .map((l) => JSON.parse(l) as { added: string[]; deleted: string[] });
  assert.equal(applied.length, 2, server.process.logs());
  assert.match(applied[0]!.added[0] ?? '', /^\/skydns\/example\/corp\/intranet\/_acme-challenge\//);
  assert.deepEqual(applied[1]!.deleted, applied[0]!.added);

  // cert-manager cleaned up: the challenge's TXT is no longer answered.
  const txt = await waitFor(
    'the challenge TXT gone',
    async () => {
      const r = await dig({ port: server.port, name: `_acme-challenge.${NAME}`, type: 'TXT' });
      return r.answer.length === 0 ? r : undefined;
    },
    10_000,
    100,
  );
  assert.equal(txt.flags.includes('aa'), true, txt.raw);
});
