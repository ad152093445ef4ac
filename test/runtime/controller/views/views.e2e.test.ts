// Split horizon end to end: the real kube-apiserver and etcd, `etcdns controller` with an internal
// and an external view (the construct's RBAC, from the controller tests' harness), and two
// `etcdns server` processes, one per view prefix, checked with dig.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { privateAddressKind } from '../../../../src/runtime/controller/views/private-address.ts';
import type { ViewConfig } from '../../../../src/config/view-config.ts';
import { controllerKubeconfig, runPlan, startController, type ControllerHandle } from '../controller-harness.ts';
import { answerData, dig } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { createIngress } from '../../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const OWNER = 'views-e2e';
const dir = tempDir('views-e2e');
const external = (to: string): ViewConfig => ({
  name: 'external',
  prefix: '/skydns-external',
  zones: ['example.org'],
  exposure: 'external',
  selection: { mode: 'opt-in', ingressClasses: ['public'] },
  rules: [{ name: 'lb-to-public', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to } } }],
});
function configFile(name: string, to: string): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ views: [{ name: 'internal', prefix: '/skydns' }, external(to)] }));
  return file;
}
const BEFORE = configFile('before', '203.0.113.0/24');
const AFTER = configFile('after', '198.51.100.0/24');

let kube: KubeHandle;
let etcd: EtcdHandle;
let kv: Etcd3;
let inside: EtcdnsServerHandle;
let outside: EtcdnsServerHandle;
let kubeconfig: string;
let core: k8s.CoreV1Api;
let controller: ControllerHandle;

const controllerArgs = (file: string) => ['--config', file, '--domain-filter', 'example.org', '--resync-seconds', '2'];

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kv = etcd.client();
  [inside, outside] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'], prefix: '/skydns' }),
    startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: ['example.org'],
      prefix: '/skydns-external',
      // The tests poll one name many times a second from one address: rate limiting, on by
      // default for an external view, would rightly drop some of those (rate-limit.e2e.test.ts).
      args: ['--exposure', 'external', '--rate-limit', '0'],
    }),
  ]);
  core = kube.admin.makeApiClient(k8s.CoreV1Api);
  kubeconfig = await controllerKubeconfig(kube);
  controller = await startController({
    kubeconfigFile: kubeconfig,
    etcdEndpoints: etcd.endpoints,
    ownerId: OWNER,
    identity: 'a',
    args: controllerArgs(BEFORE),
  });
});
after(stopAll);

const q = (server: EtcdnsServerHandle, name: string, type = 'A') => dig({ port: server.port, name, type });
async function answers(server: EtcdnsServerHandle, name: string, want: string[]): Promise<void> {
  await waitFor(
    `${name} = ${want.join(',')} on port ${server.port}`,
    async () => (JSON.stringify(answerData(await q(server, name), 'A')) === JSON.stringify(want) ? true : undefined),
    15_000,
    50,
  ).catch(async (e: Error) => {
    const last = await q(server, name);
    throw new Error(
      `${e.message}; last: ${last.status} ${JSON.stringify(answerData(last, 'A'))}\n${controller.process.logs().slice(-3000)}`,
    );
  });
}

/** An Ingress of `cls` for `host` whose load balancer got `ip`, as an ingress controller reports it. */
async function ingress(name: string, cls: string, host: string, ip: string): Promise<void> {
  await createIngress(kube.admin, { name, spec: { ingressClassName: cls, rules: [{ host }] }, addresses: [{ ip }] });
}

test('an Ingress resolves to its internal address inside and to the rewritten global address outside', async () => {
  await ingress('shop', 'public', 'shop.example.org', '10.9.176.213');
  await ingress('wiki', 'internal', 'wiki.example.org', '10.9.176.20');
  await answers(inside, 'shop.example.org', ['10.9.176.213']);
  await answers(outside, 'shop.example.org', ['203.0.113.213']);
  await answers(inside, 'wiki.example.org', ['10.9.176.20']);
  // Not opted in: the outside does not know the name at all.
  assert.equal((await q(outside, 'wiki.example.org')).status, 'NXDOMAIN');

  // Each view's entries carry the same ownership (owner, resource); rules touched only the host.
  const entries = Object.values(await kv.getAll().prefix('/skydns-external/org/example/shop/').strings()).map(
    (v) => JSON.parse(v) as Record<string, unknown>,
  );
  assert.deepEqual(entries, [
    { host: '203.0.113.213', targetstrip: 1, owner: OWNER, resource: 'ingress/default/shop' },
  ]);

  const debug = JSON.parse((await controller.http('/debug/views?name=shop.example.org')).body) as {
    views: { view: string; answers: { target: string }[]; decisions: { rule?: string }[] }[];
  };
  assert.deepEqual(
    debug.views.map((v) => [v.view, v.answers.map((a) => a.target), v.decisions.map((d) => d.rule ?? '-')]),
    [
      ['internal', ['10.9.176.213'], ['-']],
      ['external', ['203.0.113.213'], ['lb-to-public']],
    ],
  );
});

test('nothing private leaks to the external view; the refusal is an Event', async () => {
  // Opted in, but its address is outside the mapped network: a private address the outside must not see.
  await ingress('admin', 'public', 'admin.example.org', '192.168.7.7');
  await answers(inside, 'admin.example.org', ['192.168.7.7']);
  await waitFor(
    'PrivateAddressRefused event',
    async () => {
      const events = await core.listNamespacedEvent({
        namespace: 'default',
        fieldSelector: 'involvedObject.name=admin',
      });
      return events.items.find((e) => e.reason === 'PrivateAddressRefused');
    },
    15_000,
    100,
  ).then((event) =>
    assert.match(event.message ?? '', /192\.168\.7\.7 of admin\.example\.org\. is a private \(RFC 1918\)/),
  );
  assert.equal((await q(outside, 'admin.example.org')).status, 'NXDOMAIN');

  // Everything under the external prefix, and everything the external server answers, is public.
  const stored = await kv.getAll().prefix('/skydns-external/').strings();
  assert.ok(Object.keys(stored).length > 0);
  for (const [key, value] of Object.entries(stored)) {
    const host = (JSON.parse(value) as { host?: string }).host ?? '';
    assert.equal(privateAddressKind(host), undefined, `${key} = ${value}`);
  }
  for (const name of ['shop', 'wiki', 'admin'].map((n) => `${n}.example.org`)) {
    for (const address of answerData(await q(outside, name), 'A'))
      assert.equal(privateAddressKind(address), undefined, `${name} -> ${address} from the external server`);
  }
});

test('`etcdns plan --view external` shows the change a new rule makes, and only that view', async () => {
  const plan = (view: string) =>
    runPlan({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: [etcd.endpoint],
      ownerId: OWNER,
      args: [...controllerArgs(AFTER).slice(0, 4), '--view', view],
    });
  const out = await plan('external');
  assert.equal(out.code, 3, out.stderr);
  assert.match(out.stdout, /^# view external\n/);
  assert.match(
    out.stdout,
    /shop\.example\.org\.\n {2}\+ \/skydns-external\/org\/example\/shop\/[0-9a-f]{8} \{"host":"198\.51\.100\.213"/,
  );
  assert.match(out.stdout, / {2}- \/skydns-external\/org\/example\/shop\/[0-9a-f]{8} \{"host":"203\.0\.113\.213"/);
  assert.match(out.stdout, /1 to create, 0 to update, 1 to delete/);
  assert.doesNotMatch(out.stdout, /view internal/);
  const unknown = await plan('dmz');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--view "dmz" is not a configured view \(internal, external\)/);
});

test('changing a rule re-plans without a gap: every answer outside is the old or the new address', async (t) => {
  const seen = new Map<string, number>();
  let stop = false;
  let polls = 0;
  // Bounded: at most 30 s or 3,000 queries, sequential, to the external server on loopback.
  const deadline = Date.now() + 30_000;
  const poller = (async () => {
    while (!stop && Date.now() < deadline && polls < 3000) {
      const r = await q(outside, 'shop.example.org');
      polls += 1;
      const key = `${r.status} ${answerData(r, 'A').join(',')}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  // A config change rolls the controller: the new replica starts, the old one stops and hands over the Lease.
  const next = await startController({
    kubeconfigFile: kubeconfig,
    etcdEndpoints: etcd.endpoints,
    ownerId: OWNER,
    identity: 'b',
    args: controllerArgs(AFTER),
  });
  await controller.stop();
  controller = next;
  try {
    await answers(outside, 'shop.example.org', ['198.51.100.213']);
    // Keep polling a little after the switch: the new answer stays.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    stop = true;
    await poller;
  }
  t.diagnostic(`${polls} queries during the change: ${JSON.stringify([...seen])}`);
  assert.ok(polls > 20, `polled ${polls} times`);
  const allowed = new Set(['NOERROR 203.0.113.213', 'NOERROR 198.51.100.213']);
  assert.deepEqual(
    [...seen.keys()].filter((k) => !allowed.has(k)),
    [],
    JSON.stringify([...seen]),
  );
  assert.ok(seen.has('NOERROR 198.51.100.213'));
  // The inside never moved.
  await answers(inside, 'shop.example.org', ['10.9.176.213']);
});
