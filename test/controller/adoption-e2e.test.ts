// Migration from external-dns: records the real external-dns (CoreDNS provider, TXT registry)
// wrote are taken over with --adopt-external-dns-owner; the name keeps resolving throughout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { answerData, dig } from '../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../support/etcdns-server.ts';
import { runExternalDns } from '../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../support/process.ts';
import { controllerKubeconfig, startController } from './controller-harness.ts';

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
  assert.deepEqual(answerData(await dig({ port: server.port, name: 'nginx.example.org' }), 'A'), ['10.9.176.213']);

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
});
