// Migration from external-dns: records the real external-dns (CoreDNS provider, TXT registry)
// wrote are taken over with --adopt-external-dns-owner, for Services, routes and DNSEndpoints;
// the names keep resolving throughout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { answerData, dig, waitForAnswer } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { runExternalDns } from '../../../support/external-dns.ts';
import {
  createDnsEndpoint,
  createGateway,
  createRoute,
  installDnsEndpointCrd,
  installGatewayApiCrds,
} from '../../../support/gateway-api.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { controllerKubeconfig, startController } from '../controller-harness.ts';

let kube: KubeHandle;
let etcd: EtcdHandle;
let kv: Etcd3;
let server: EtcdnsServerHandle;

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kv = etcd.client();
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
});
after(stopAll);

test('external-dns records are rewritten into our layout, its ownership entries removed, without a gap', async () => {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name: 'nginx-frontend', annotations: { 'external-dns.kubernetes.io/hostname': 'nginx.example.org' } },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    },
  });
  const svc = await core.readNamespacedService({ name: 'nginx-frontend', namespace: 'default' });
  svc.status = { loadBalancer: { ingress: [{ ip: '10.9.176.213' }] } };
  await core.replaceNamespacedServiceStatus({ name: 'nginx-frontend', namespace: 'default', body: svc });
  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: etcd.endpoints,
    args: [
      '--source=service',
      '--domain-filter=example.org',
      '--txt-owner-id=legacy',
      '--registry=txt',
      '--policy=sync',
    ],
  });
  const theirs = await kv.getAll().prefix('/skydns/').strings();
  assert.ok(
    Object.keys(theirs).some((k) => k.startsWith('/skydns/org/example/a-nginx/')),
    JSON.stringify(theirs),
  );
  // external-dns --once returns when etcd has its write; the server applies it from its watch a moment later.
  await waitForAnswer({ port: server.port, name: 'nginx.example.org' }, ['10.9.176.213'], 30_000);

  // Ask the name all the time while the controller takes over: it must never stop answering.
  let gaps = 0;
  let asked = 0;
  let asking = true;
  const watcher = (async () => {
    while (asking) {
      const r = await dig({ port: server.port, name: 'nginx.example.org' });
      asked += 1;
      if (JSON.stringify(answerData(r, 'A')) !== '["10.9.176.213"]') gaps += 1;
    }
  })();
  const controller = await startController({
    kubeconfigFile: await controllerKubeconfig(kube),
    etcdEndpoints: etcd.endpoints,
    ownerId: 'etcdns',
    args: ['--domain-filter', 'example.org', '--adopt-external-dns-owner', 'legacy'],
  });
  const ours = await waitFor('taken over', async () => {
    const all = await kv.getAll().prefix('/skydns/').strings();
    const values = Object.values(all).map((v) => JSON.parse(v) as { owner?: string; text?: string });
    return values.length === 1 && values[0]!.owner === 'etcdns' ? all : undefined;
  });
  asking = false;
  await watcher;
  const [key, value] = Object.entries(ours)[0]!;
  assert.match(key, /^\/skydns\/org\/example\/nginx\/[0-9a-f]{8}$/);
  assert.deepEqual(JSON.parse(value), {
    host: '10.9.176.213',
    targetstrip: 1,
    owner: 'etcdns',
    resource: 'service/default/nginx-frontend',
  });
  assert.ok(asked > 5, `${asked} queries during the takeover`);
  assert.equal(gaps, 0);
  assert.ok((await controller.metric('etcdns_controller_changes_applied_total', 'op="delete"')) >= 2);
  await controller.stop();
});

test('external-dns records of a route and a DNSEndpoint are taken over too, without a gap', async () => {
  const etcd2 = await startEtcd();
  const kv2 = etcd2.client();
  const server2 = await startEtcdnsServer({ etcdEndpoints: etcd2.endpoints, zones: ['example.org'] });
  await installGatewayApiCrds(kube.admin);
  await installDnsEndpointCrd(kube.admin);
  const all = { namespaces: { from: 'All' } };
  await createGateway(kube.admin, {
    name: 'gw',
    namespace: 'default',
    addresses: ['10.9.176.80'],
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80, hostname: '*.example.org', allowedRoutes: all }],
  });
  await createRoute(kube.admin, {
    kind: 'HTTPRoute',
    name: 'shop',
    namespace: 'default',
    hostnames: ['shop.example.org'],
    parents: [{ name: 'gw' }],
  });
  await createDnsEndpoint(kube.admin, {
    name: 'static',
    namespace: 'default',
    endpoints: [
      { dnsName: 'static.example.org', recordType: 'A', targets: ['192.0.2.10'] },
      { dnsName: 'verify.example.org', recordType: 'TXT', targets: ['token=abc'] },
    ],
  });
  const sources = ['gateway-httproute', 'crd'];
  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: etcd2.endpoints,
    args: [
      ...sources.map((s) => `--source=${s}`),
      '--managed-record-types=A',
      '--managed-record-types=TXT',
      '--domain-filter=example.org',
      '--txt-owner-id=legacy',
      '--registry=txt',
      '--policy=sync',
    ],
  });
  const questions: [string, string, string[]][] = [
    ['shop.example.org', 'A', ['10.9.176.80']],
    ['static.example.org', 'A', ['192.0.2.10']],
    ['verify.example.org', 'TXT', ['"token=abc"']],
  ];
  const answered = async () => {
    const wrong: string[] = [];
    for (const [name, type, want] of questions)
      if (JSON.stringify(answerData(await dig({ port: server2.port, name, type }), type)) !== JSON.stringify(want))
        wrong.push(`${name} ${type}`);
    return wrong;
  };
  for (const [name, type, want] of questions) await waitForAnswer({ port: server2.port, name, type }, want, 30_000);

  let gaps: string[] = [];
  let rounds = 0;
  let asking = true;
  const watcher = (async () => {
    while (asking) {
      gaps = [...gaps, ...(await answered())];
      rounds += 1;
    }
  })();
  let ours: { owner?: string; resource?: string }[];
  try {
    await startController({
      kubeconfigFile: await controllerKubeconfig(kube, ['gateway-httproute', 'crd']),
      etcdEndpoints: etcd2.endpoints,
      ownerId: 'etcdns',
      args: [
        ...sources.flatMap((s) => ['--source', s]),
        '--domain-filter',
        'example.org',
        '--adopt-external-dns-owner',
        'legacy',
      ],
    });
    ours = await waitFor('taken over', async () => {
      const values = Object.values(await kv2.getAll().prefix('/skydns/').strings()).map(
        (v) => JSON.parse(v) as { owner?: string; resource?: string },
      );
      return values.length === 3 && values.every((v) => v.owner === 'etcdns') ? values : undefined;
    }).catch(async (e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(await kv2.getAll().prefix('/skydns/').strings())}`);
    });
  } finally {
    asking = false;
    await watcher;
  }
  assert.deepEqual(ours.map((v) => v.resource).sort(), [
    'crd/default/static',
    'crd/default/static',
    'httproute/default/shop',
  ]);
  assert.ok(rounds > 3, `${rounds} rounds of questions during the takeover`);
  assert.deepEqual(gaps, []);
});
