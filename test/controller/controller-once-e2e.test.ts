// `etcdns controller --once` against the real kube-apiserver and etcd: exactly one sync, and an
// exit code that says how it went.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { freePort } from '../support/ports.ts';
import { stopAll } from '../support/process.ts';
import { controllerKubeconfig, runOnce } from './controller-harness.ts';

const N = 'external-dns.kubernetes.io/';
let kube: KubeHandle;
let etcd: EtcdHandle;
let kubeconfigFile: string;

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kubeconfigFile = await controllerKubeconfig(kube);
  for (const i of [1, 2, 3])
    await createLoadBalancerService(kube.admin, {
      name: `web${i}`,
      annotations: { [`${N}hostname`]: `web${i}.example.org` },
      addresses: [{ ip: `10.9.0.${i}` }],
    });
});
after(stopAll);

test('--once into an empty prefix: one sync that applies the changes, exit code 0', async () => {
  const run = await runOnce({ kubeconfigFile, etcdEndpoints: etcd.endpoints, ownerId: 'once' });
  const output = run.stdout + run.stderr;
  assert.equal(run.code, 0, output);
  assert.equal(output.match(/changes applied/g)?.length, 1, output);
  assert.doesNotMatch(output, /changed concurrently/);
  const keys = await etcd.client().getAll().prefix('/skydns/org/example/').keys();
  assert.equal(keys.length, 3, keys.join('\n'));
  // Again, with nothing to do: still one sync, still 0.
  const again = await runOnce({ kubeconfigFile, etcdEndpoints: etcd.endpoints, ownerId: 'once' });
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.doesNotMatch(again.stdout + again.stderr, /changes applied/);
});

test('--once whose sync fails (etcd unreachable) exits non-zero', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const run = await runOnce({ kubeconfigFile, etcdEndpoints: [closed], ownerId: 'once' });
  assert.notEqual(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /etcd unavailable/);
});
