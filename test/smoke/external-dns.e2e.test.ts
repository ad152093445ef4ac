// Smoke test: the real external-dns (CoreDNS provider) reads a Service from the real
// kube-apiserver and writes its records into a real etcd in the SkyDNS layout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { runExternalDns } from '../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { stopAll } from '../support/process.ts';

let kube: KubeHandle;
let records: EtcdHandle;
before(async () => {
  [kube, records] = await Promise.all([startKubeApiserver(), startEtcd()]);
});
after(stopAll);

test('external-dns --once publishes a LoadBalancer Service into etcd', async () => {
  await createLoadBalancerService(kube.admin, {
    name: 'nginx-frontend',
    // v0.22 reads only this prefix by default; the alpha one needs --annotation-prefix.
    annotations: { 'external-dns.kubernetes.io/hostname': 'nginx.example.org' },
    addresses: [{ ip: '10.9.176.213' }],
  });

  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: records.endpoints,
    args: [
      '--source=service',
      '--domain-filter=example.org',
      '--txt-owner-id=smoke',
      '--registry=txt',
      '--policy=sync',
    ],
  });

  const written = await records.client().getAll().prefix('/skydns/').strings();
  const address = Object.entries(written).filter(([k]) => /^\/skydns\/org\/example\/nginx\/[0-9a-f]{8}$/.test(k));
  assert.equal(address.length, 1, `one address child entry, got ${JSON.stringify(written)}`);
  assert.equal(JSON.parse(address[0]![1]).host, '10.9.176.213');
  const ownership = Object.entries(written).filter(([k]) => k.startsWith('/skydns/org/example/a-nginx/'));
  assert.equal(ownership.length, 1, 'the TXT registry entry');
  assert.match(
    JSON.parse(ownership[0]![1]).text,
    /heritage=external-dns,external-dns\/owner=smoke,external-dns\/resource=service\/default\/nginx-frontend/,
  );
});
