// `etcdns controller --once` against the real kube-apiserver and etcd: exactly one sync, and an
// exit code that says how it went.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { freePort } from '../../support/ports.ts';
import { stopAll } from '../../support/process.ts';
import { syncOnceAndStop } from '../../../src/runtime/controller/controller-command.ts';
import { parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';
import { assembleController } from '../../../src/runtime/controller/controller-process.ts';
import { EtcdStore } from '../../../src/runtime/controller/store/etcd-store.ts';
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
  // One audit line per write: who (owner, identity), what (key, value) and why (the object).
  const audits = output
    .split('\n')
    .filter((l) => l.includes('"audit":true'))
    .map((l) => JSON.parse(l) as { owner: string; identity: string; op: string; key: string; object: string });
  assert.deepEqual(audits.map((a) => a.key).sort(), [...keys].sort());
  for (const a of audits) {
    assert.equal(a.owner, 'once');
    assert.ok(a.identity, JSON.stringify(a));
    assert.equal(a.op, 'create');
    assert.match(a.object, /^service\/default\/web[123]$/);
  }
  // Again, with nothing to do: still one sync, still 0.
  const again = await runOnce({ kubeconfigFile, etcdEndpoints: etcd.endpoints, ownerId: 'once' });
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.doesNotMatch(again.stdout + again.stderr, /changes applied/);
});

test('--once whose sync fails (etcd unreachable) exits non-zero', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const run = await runOnce({ kubeconfigFile, etcdEndpoints: [closed], ownerId: 'once' });
  assert.notEqual(run.code, 0, run.stdout + run.stderr);
  const line = (run.stdout + run.stderr).split('\n').find((l) => l.includes('"etcd unavailable; retrying"'));
  // The logged Error keeps its stack, not just its message.
  const error = (JSON.parse(line ?? '{}') as { error?: { message?: string; stack?: string } }).error;
  assert.match(error?.stack ?? '', /\n\s+at /, line);
});

test('--once whose guarded writes meet a concurrent writer: the rest is applied, the names are logged, exit code 1', async () => {
  // The command has no pause between plan and transaction for a second process to use, so this
  // runs the command's --once path in this process and puts the second writer there: it creates
  // one of the keys the plan creates, just before the guarded transaction.
  const { config } = parseControllerOptions(
    [
      '--kubeconfig',
      kubeconfigFile,
      '--etcd',
      etcd.endpoints.join(','),
      '--owner-id',
      'race',
      '--prefix',
      '/skydns-race',
    ],
    {},
  );
  const theirs = '{"host":"192.0.2.99","owner":"someone-else"}';
  const writer = etcd.client();
  const apply = EtcdStore.prototype.apply;
  let taken: { name: string; key: string } | undefined;
  EtcdStore.prototype.apply = async function (plan) {
    taken = plan.creates[0]!;
    await writer.put(taken.key).value(theirs);
    return apply.call(this, plan);
  };
  const lines: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = function (chunk: string | Uint8Array, ...rest: unknown[]) {
    lines.push(...String(chunk).split('\n'));
    return (write as (...a: unknown[]) => boolean).call(process.stderr, chunk, ...rest);
  } as typeof process.stderr.write;
  let code: number;
  try {
    code = await syncOnceAndStop(assembleController(config, { dryRun: false, leaderElection: false }));
  } finally {
    EtcdStore.prototype.apply = apply;
    process.stderr.write = write;
  }
  assert.equal(code, 1);
  const warning = lines
    .filter((l) => l.startsWith('{"time"'))
    .map((l) => JSON.parse(l) as { msg: string; names?: string[] })
    .find((l) => /changed concurrently/.test(l.msg));
  assert.equal(warning?.msg, 'names changed concurrently; their changes were not applied');
  assert.deepEqual(warning?.names, [taken!.name]);
  assert.equal(await writer.get(taken!.key).string(), theirs, "the other writer's entry is untouched");
  const ours = await writer.getAll().prefix('/skydns-race/').strings();
  assert.equal(Object.values(ours).filter((v) => v.includes('"owner":"race"')).length, 2, JSON.stringify(ours));
});
