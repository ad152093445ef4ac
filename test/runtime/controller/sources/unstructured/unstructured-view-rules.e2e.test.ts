// View rules naming a kind the unstructured source reads, against the real kube-apiserver and
// etcd: the kind is known only once discovery named it at start-up, so a rule may name it (and
// matches that kind's records only), and a kind discovery did not name fails start-up naming
// the field.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startEtcd, type EtcdHandle } from '../../../../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../../../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../../../support/kube-objects.ts';
import { stopAll } from '../../../../support/process.ts';
import { tempDir } from '../../../../support/temp-dir.ts';
import { controllerKubeconfig, runOnce } from '../../controller-harness.ts';

const N = 'external-dns.kubernetes.io/';
let kube: KubeHandle;
let etcd: EtcdHandle;
let kubeconfigFile: string;

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kubeconfigFile = await controllerKubeconfig(kube, ['service', 'unstructured'], false, ['configmaps.v1']);
  await createLoadBalancerService(kube.admin, {
    name: 'web',
    annotations: { [`${N}hostname`]: 'web.example.org' },
    addresses: [{ ip: '10.9.0.1' }],
  });
  await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespacedConfigMap({
    namespace: 'default',
    body: {
      metadata: { name: 'vm', annotations: { [`${N}hostname`]: 'vm.example.org', [`${N}target`]: '10.9.0.2' } },
    },
  });
});
after(stopAll);

/** `--once` with a config file whose one view drops the records of the rule's kinds. */
async function onceWithRuleKinds(ownerId: string, kinds: string[]) {
  const file = join(tempDir('rule-kinds'), 'controller.json');
  writeFileSync(
    file,
    JSON.stringify({
      sources: ['service', 'unstructured'],
      unstructuredResources: ['configmaps.v1'],
      views: [
        {
          name: 'internal',
          prefix: `/${ownerId}`,
          rules: [{ name: 'no-cm', match: { kinds }, action: { drop: true } }],
        },
      ],
    }),
  );
  const run = await runOnce({ kubeconfigFile, etcdEndpoints: etcd.endpoints, ownerId, args: ['--config', file] });
  // Each record's key, without the entry's child (".../web/657f30da" is web's).
  const keys = (await etcd.client().getAll().prefix(`/${ownerId}/`).keys()).map((k) => k.replace(/\/[^/]+$/, ''));
  return { ...run, output: run.stdout + run.stderr, keys: keys.sort() };
}

test("a rule naming the discovered kind (configmap) matches that kind's records only", async () => {
  const run = await onceWithRuleKinds('kinds', ['configmap']);
  assert.equal(run.code, 0, run.output);
  assert.deepEqual(run.keys, ['/kinds/org/example/web']);
  // The control: a rule naming another kind keeps the ConfigMap's record.
  const control = await onceWithRuleKinds('control', ['ingress']);
  assert.equal(control.code, 0, control.output);
  assert.deepEqual(control.keys, ['/control/org/example/vm', '/control/org/example/web']);
});

test('a rule naming a kind discovery did not name fails start-up, naming the field', async () => {
  const run = await onceWithRuleKinds('typo', ['configmapp']);
  assert.notEqual(run.code, 0, run.output);
  assert.match(
    run.output,
    /views\[0\]\.rules\[0\]\.match\.kinds\[0\]: must be one of .*\(sources: unstructured\); discovery named ConfigMap/,
  );
  assert.deepEqual(run.keys, []);
});
