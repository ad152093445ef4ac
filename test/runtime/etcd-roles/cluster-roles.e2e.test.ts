// Least privilege between member clusters (issue 34), on a real etcd serving TLS with client
// certificates and authentication on: the hub's roles Job, as the constructs render it for
// clusters dc1 and dc2, run as `etcdns etcd-roles`; then cluster dc1's user writes, deletes and
// leases under its own prefix and is refused (permission denied) under dc2's, a sibling's and
// the plain /skydns prefix, one row per operation; the hub's server user reads every cluster's
// prefix and may write none, and the real etcdns server with the hub's rendered config answers
// from it. The real controller with the config the SpokeStack renders publishes under its
// prefix, where CoreDNS's etcd plugin and etcdns answer it; told another cluster's name, etcd
// refuses it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Etcd3, EtcdPermissionDeniedError } from 'etcd3';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import type { ClusterProps } from '../../../src/constructs/etcd/member-clusters.ts';
import { synthObjects, synthSpokeObjects } from '../../../src/constructs/synth-stack.ts';
import { controllerKubeconfig, runOnce } from '../controller/controller-harness.ts';
import { makeTestPki, type TestPki } from '../../support/certificates.ts';
import { etcdCorefile, startCoreDns } from '../../support/coredns.ts';
import { answerData, dig } from '../../support/dig.ts';
import { etcdCredentials, etcdLoginArgs, startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { freePort } from '../../support/ports.ts';
import { stopAll } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DC1: ClusterProps = { name: 'dc1', suffixes: ['dc1.example.org'] };
const DC2: ClusterProps = { name: 'dc2', suffixes: ['dc2.example.org'] };
const PASSWORDS: Record<string, string> = {
  root: 'root-secret',
  controller: 'controller-secret',
  'server-internal': 'internal-secret',
  'cluster-dc1': 'dc1-secret',
  'cluster-dc2': 'dc2-secret',
};
const HUB: DnsStackProps = {
  zones: [{ name: 'example.org' }],
  etcd: { tls: { serverSecret: 'etcd-server-tls', clientSecret: 'etcd-client-tls' } },
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [DC1, DC2],
};
/** The hub's server user (its password under the key "server-internal"). */
const HUB_SERVER = 'etcdns-server-internal';

let pki: TestPki;
let etcd: EtcdHandle;
let kube: KubeHandle;
let kubeconfigFile: string;
let secrets: string;
const clients: Etcd3[] = [];

/** The Job's and the spoke's mount paths, pointed at this test's files. */
const localPaths = (text: string) =>
  text
    .replaceAll('/etc/etcdns/etcd-tls/ca.crt', pki.caCert)
    .replaceAll('/etc/etcdns/etcd-tls/tls.crt', pki.serverCert)
    .replaceAll('/etc/etcdns/etcd-tls/tls.key', pki.serverKey)
    .replaceAll('/etc/etcdns/etcd-users', secrets)
    .replaceAll('/etc/etcdns/etcd-auth/password', join(secrets, 'cluster-dc1'))
    .replaceAll('/etc/etcdns/etcd-auth/', `${secrets}/`);

const as = (user: string) => {
  const client = new Etcd3({
    hosts: etcd.endpoint,
    credentials: etcdCredentials(pki),
    auth: { username: user, password: PASSWORDS[user.replace(/^etcdns-/, '')]! },
  });
  clients.push(client);
  return client;
};

before(async () => {
  pki = makeTestPki(tempDir('clusters-pki'), 'etcdns');
  [etcd, kube] = await Promise.all([startEtcd({ tls: pki }), startKubeApiserver()]);
  kubeconfigFile = await controllerKubeconfig(kube);
  secrets = tempDir('cluster-users');
  for (const [key, password] of Object.entries(PASSWORDS)) writeFileSync(join(secrets, key), `${password}\n`);
});
after(async () => {
  for (const c of clients) c.close();
  await stopAll();
});

test("the hub's rendered roles Job creates one user per cluster and switches authentication on", async () => {
  const objects = synthObjects(HUB) as Json[];
  const rendered = objects.find((o) => o.kind === 'Job')!.spec.template.spec.containers[0].args as string[];
  const args = rendered.map((a) => (a === 'https://etcdns-etcd:2379' ? etcd.endpoint : localPaths(a)));
  const { stderr } = await promisify(execFile)(nodeBin, [etcdnsBin, ...args]);
  for (const line of [
    'role cluster-dc1: Readwrite on [/skydns-clusters/dc1/, /skydns-clusters/dc10)',
    'role cluster-dc2: Readwrite on [/skydns-clusters/dc2/, /skydns-clusters/dc20)',
    `role ${HUB_SERVER}: Read on [/skydns-clusters/, /skydns-clusters0)`,
    `role ${HUB_SERVER}: Readwrite on [/etcdns-hub/, /etcdns-hub0)`,
    'user cluster-dc1: role cluster-dc1 granted',
    'authentication enabled',
  ])
    assert.ok(stderr.includes(`etcd-roles: ${line}\n`), `${line}\n${stderr}`);
  const permissions = await as('root').role('cluster-dc1').permissions();
  assert.deepEqual(
    permissions.map((p) => [p.permission, p.range.start.toString(), p.range.end.toString()]),
    [['Readwrite', '/skydns-clusters/dc1/', '/skydns-clusters/dc10']],
  );
  const server = await as('root').role(HUB_SERVER).permissions();
  assert.deepEqual(server.map((p) => [p.permission, p.range.start.toString(), p.range.end.toString()]).sort(), [
    ['Read', '/skydns-clusters/', '/skydns-clusters0'],
    ['Read', '/skydns/', '/skydns0'],
    ['Readwrite', '/etcdns-hub/', '/etcdns-hub0'],
  ]);
});

type Op = 'write' | 'delete' | 'lease' | 'revoke-lease' | 'read';
const VALUE = '{"host":"192.0.2.1"}';

/** Attempts `op` on `key` as `user`; a refused write or delete leaves root's key as it was. */
async function attempt(op: Op, key: string, user: string): Promise<'ok' | 'denied'> {
  const root = as('root');
  const dc1 = as(user);
  const denied = (e: unknown) => {
    if (e instanceof EtcdPermissionDeniedError) return 'denied' as const;
    throw e;
  };
  const seeded = `{"host":"198.51.100.${Math.floor(Math.random() * 250)}"}`;
  await root.put(key).value(seeded);
  let result: 'ok' | 'denied';
  let cleanup = async () => {};
  if (op === 'write')
    result = await dc1
      .put(key)
      .value(VALUE)
      .then(() => 'ok' as const, denied);
  else if (op === 'delete')
    result = await dc1
      .delete()
      .key(key)
      .then(() => 'ok' as const, denied);
  else if (op === 'read')
    result = await dc1
      .get(key)
      .string()
      .then(() => 'ok' as const, denied);
  else if (op === 'lease') {
    // A lease is the user's own; attaching a key to it is a write of that key.
    const lease = dc1.lease(60, { autoKeepAlive: false });
    result = await lease
      .put(key)
      .value(VALUE)
      .then(() => 'ok' as const, denied);
    cleanup = () => lease.revoke().catch(() => undefined);
  } else {
    // Revoking a lease deletes its keys: refused unless the user may delete every one of them.
    const lease = root.lease(60, { autoKeepAlive: false });
    await lease.put(key).value(seeded);
    const id = await lease.grant();
    result = await dc1.leaseClient.leaseRevoke({ ID: id }).then(() => 'ok' as const, denied);
    cleanup = () => lease.revoke().catch(() => undefined);
  }
  const after = await root.get(key).string();
  await cleanup();
  if (result === 'denied') assert.equal(after, seeded, `${key} untouched after the refusal`);
  else if (op === 'write' || op === 'lease') assert.equal(after, VALUE);
  else if (op === 'delete' || op === 'revoke-lease') assert.equal(after, null);
  else assert.equal(after, seeded);
  return result;
}

const OWN = '/skydns-clusters/dc1/org/example/dc1/rows/1a2b3c4d';
// operation, key, expected (as cluster-dc1)
const ROWS: [Op, string, 'ok' | 'denied'][] = [
  ['write', OWN, 'ok'],
  ['delete', OWN, 'ok'],
  ['lease', OWN, 'ok'],
  ['revoke-lease', OWN, 'ok'],
  ['read', OWN, 'ok'],
  ['write', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'denied'],
  ['delete', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'denied'],
  ['lease', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'denied'],
  ['revoke-lease', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'denied'],
  ['read', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'denied'],
  ['write', '/skydns-clusters/dc10/org/example/www', 'denied'],
  ['write', '/skydns-clusters/dc1', 'denied'],
  ['write', '/skydns/org/example/www/1a2b3c4d', 'denied'],
  ['delete', '/skydns/org/example/www/1a2b3c4d', 'denied'],
  ['lease', '/skydns/org/example/www/1a2b3c4d', 'denied'],
  ['revoke-lease', '/skydns/org/example/www/1a2b3c4d', 'denied'],
];
for (const [op, key, expected] of ROWS)
  test(`cluster-dc1: ${op} ${key} -> ${expected}`, async () => {
    assert.equal(await attempt(op, key, 'cluster-dc1'), expected);
  });

// operation, key, expected (as the hub's server user): it reads every cluster, writes none.
const SERVER_ROWS: [Op, string, 'ok' | 'denied'][] = [
  ['read', OWN, 'ok'],
  ['read', '/skydns-clusters/dc2/org/example/dc2/rows/1a2b3c4d', 'ok'],
  ['write', OWN, 'denied'],
  ['delete', OWN, 'denied'],
  ['lease', OWN, 'denied'],
  ['revoke-lease', OWN, 'denied'],
];
for (const [op, key, expected] of SERVER_ROWS)
  test(`${HUB_SERVER}: ${op} ${key} -> ${expected}`, async () => {
    assert.equal(await attempt(op, key, HUB_SERVER), expected);
  });

test("the real etcdns server with the hub's rendered config, as its rendered user, answers a cluster's name", async () => {
  await as('root').put('/skydns-clusters/dc1/org/example/dc1/hubweb/1a2b3c4d').value('{"host":"192.0.2.44"}');
  const objects = synthObjects(HUB) as Json[];
  const rendered = JSON.parse(
    localPaths(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === HUB_SERVER)!.data['config.json']),
  ) as Json;
  // Each cluster's suffixes are its claims, which the hub checks.
  assert.deepEqual(rendered.hub, {
    clusters: [
      { name: 'dc1', suffixes: ['dc1.example.org'] },
      { name: 'dc2', suffixes: ['dc2.example.org'] },
    ],
  });
  const file = join(tempDir('hub-config'), 'config.json');
  // The pod's own settings (drain, snapshot, listen) stay out: the helper gives its loopback ones.
  writeFileSync(
    file,
    JSON.stringify({ etcd: rendered.etcd, zones: rendered.zones, prefix: rendered.prefix, hub: rendered.hub }),
  );
  const server = await startEtcdnsServer({
    etcdEndpoints: [etcd.endpoint],
    zones: ['example.org'],
    args: ['--config', file],
  });
  try {
    assert.deepEqual(answerData(await dig({ port: server.port, name: 'hubweb.dc1.example.org' }), 'A'), ['192.0.2.44']);
  } finally {
    await server.stop();
  }
});

test('cluster-dc1 cannot delete every cluster at once: a range over /skydns-clusters/ is refused', async () => {
  await as('root').put('/skydns-clusters/dc2/org/example/dc2/keep').value(VALUE);
  await assert.rejects(as('cluster-dc1').delete().prefix('/skydns-clusters/').exec(), EtcdPermissionDeniedError);
  assert.equal(await as('root').get('/skydns-clusters/dc2/org/example/dc2/keep').string(), VALUE);
});

/** The controller config the SpokeStack renders for `cluster`, its paths and endpoint this test's. */
async function spokeConfig(cluster: ClusterProps): Promise<string> {
  const objects = synthSpokeObjects({
    cluster,
    hub: { endpoints: ['https://etcd.hub.example.org:2379'], tlsSecret: 'hub-etcd-tls', passwordSecret: 'hub-etcd' },
  }) as Json[];
  const rendered = JSON.parse(
    localPaths(objects.find((o) => o.kind === 'ConfigMap')!.data['config.json'] as string),
  ) as Json;
  const file = join(tempDir('spoke-config'), 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...rendered,
      etcd: { ...rendered.etcd, endpoints: [etcd.endpoint] },
      httpListen: `127.0.0.1:${await freePort()}`,
    }),
  );
  return file;
}

test("the real controller with the spoke's rendered config writes under its cluster's prefix, where CoreDNS and etcdns answer it", async () => {
  await createLoadBalancerService(kube.admin, {
    name: 'web',
    annotations: { 'external-dns.kubernetes.io/hostname': 'web.dc1.example.org,web.dc2.example.org' },
    addresses: [{ ip: '10.9.0.7' }],
  });
  const run = await runOnce({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    // The harness passes --owner-id, which wins over the config's (the same: the cluster's name).
    ownerId: 'dc1',
    args: ['--config', await spokeConfig(DC1)],
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const root = as('root');
  const written = await root.getAll().prefix('/skydns-clusters/dc1/org/example/dc1/web/').strings();
  assert.equal(Object.keys(written).length, 1, JSON.stringify(written));
  assert.match(Object.values(written)[0]!, /"host":"10\.9\.0\.7".*"owner":"dc1"/);
  // Only the cluster's suffixes: the other name of the Service is nobody's here.
  assert.deepEqual(await root.getAll().prefix('/skydns-clusters/dc2/org/example/dc2/web/').keys(), []);
  assert.deepEqual(await root.getAll().prefix('/skydns/org/example/dc1/web/').keys(), []);

  const coredns = await startCoreDns(
    etcdCorefile({
      zones: ['example.org'],
      endpoints: [etcd.endpoint],
      prefix: '/skydns-clusters/dc1',
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert },
      credentials: { username: 'cluster-dc1', password: PASSWORDS['cluster-dc1']! },
    }),
    'example.org',
  );
  const server = await startEtcdnsServer({
    etcdEndpoints: [etcd.endpoint],
    zones: ['example.org'],
    prefix: '/skydns-clusters/dc1',
    args: etcdLoginArgs(pki, 'cluster-dc1', join(secrets, 'cluster-dc1')),
  });
  try {
    for (const port of [coredns.port, server.port])
      assert.deepEqual(answerData(await dig({ port, name: 'web.dc1.example.org' }), 'A'), ['10.9.0.7'], `port ${port}`);
  } finally {
    await server.stop();
    await coredns.stop();
  }
});

test("the controller given dc2's name with dc1's credentials is refused by etcd and writes nothing", async () => {
  const file = await spokeConfig(DC1);
  const config = JSON.parse(readFileSync(file, 'utf8')) as Json;
  writeFileSync(file, JSON.stringify({ ...config, cluster: 'dc2', domainFilter: ['example.org'] }));
  const run = await runOnce({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    ownerId: 'dc2',
    args: ['--config', file],
  });
  assert.notEqual(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /permission denied/);
  const dc2 = await as('root').getAll().prefix('/skydns-clusters/dc2/').strings();
  assert.deepEqual(
    Object.entries(dc2).filter(([, value]) => value.includes('10.9.0.7')),
    [],
  );
});
