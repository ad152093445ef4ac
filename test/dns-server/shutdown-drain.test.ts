// The drain after SIGTERM (issue 31 point 4) against a real kube-apiserver, with the server's
// ServiceAccount, Role and RoleBinding as dist/dev has them and a real token: `etcdns server`,
// sent SIGTERM, says not ready at once and keeps answering while an EndpointSlice of its Service
// lists its address as ready, and exits --drain-seconds after the address is marked terminating;
// the maximum bounds the wait; without API access (here: a namespace its Role does not reach) it
// answers for the fixed drain instead, as outside Kubernetes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../src/environments/index.ts';
import { dig } from '../support/dig.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../support/etcdns-server.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../support/process.ts';
import { serverSideApply } from '../support/server-side-apply.ts';

after(stopAll);

const NAMESPACE = 'etcdns';
const SERVER = 'etcdns-server-internal';
const POD_IP = '10.244.0.7';
const SLICE = `${SERVER}-x1`;

let kube: KubeHandle;
let kubeconfig: string;
let discovery: k8s.DiscoveryV1Api;

async function startApi(): Promise<void> {
  kube = await startKubeApiserver();
  await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // The server's access exactly as synthesized for dist/dev.
  const access = synthObjects(ENVIRONMENTS.dev!).filter(
    (o) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind) && o.metadata?.name === SERVER,
  );
  assert.equal(access.length, 3);
  for (const o of access) await serverSideApply(kube.admin, o, { dryRun: false, fieldManager: 'etcdns-test' });
  kubeconfig = kube.writeKubeconfig(await kube.asServiceAccount(NAMESPACE, SERVER));
  discovery = kube.admin.makeApiClient(k8s.DiscoveryV1Api);
  await kube.etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
}

/** The Service's one EndpointSlice, with this pod ready or terminating and another pod ready. */
async function writeSlice(ours: 'ready' | 'terminating'): Promise<void> {
  const body: k8s.V1EndpointSlice = {
    metadata: { name: SLICE, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': SERVER } },
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: [POD_IP],
        conditions:
          ours === 'ready'
            ? { ready: true, serving: true, terminating: false }
            : { ready: false, serving: false, terminating: true },
      },
      { addresses: ['10.244.0.8'], conditions: { ready: true, serving: true, terminating: false } },
    ],
    ports: [{ name: 'dns-udp', port: 5353, protocol: 'UDP' }],
  };
  await discovery.deleteNamespacedEndpointSlice({ name: SLICE, namespace: NAMESPACE }).catch(() => undefined);
  await discovery.createNamespacedEndpointSlice({ namespace: NAMESPACE, body });
}

function server(args: string[], etcdEndpoints = kube.etcd.endpoints): Promise<EtcdnsServerHandle> {
  return startEtcdnsServer({ etcdEndpoints, zones: ['example.org'], args });
}

const drainArgs = (namespace: string, more: string[]) => [
  '--drain-service',
  SERVER,
  '--pod-ip',
  POD_IP,
  '--pod-namespace',
  namespace,
  '--kubeconfig',
  kubeconfig,
  ...more,
];

/**
 * Asks every 200 ms until the process exits. `answered`: the rcodes of the queries sent before the
 * server logged the end of its drain (each must be answered); `exitedAt`: when it exited.
 */
async function askUntilExit(s: EtcdnsServerHandle): Promise<{ answered: string[]; exitedAt: number }> {
  const asked: { at: number; rcode: string }[] = [];
  let exitedAt = 0;
  void s.process.exited.then(() => (exitedAt = Date.now()));
  while (!exitedAt) {
    const at = Date.now();
    const r = await dig({ port: s.port, name: 'www.example.org', timeoutSeconds: 1 }).catch(() => undefined);
    asked.push({ at, rcode: r?.status ?? '' });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const over = /^\{"time":"([^"]+)","level":"info","msg":"drain over, closing the sockets"/m.exec(s.process.logs());
  assert.ok(over, 'the server logged the end of its drain');
  // A query sent as the sockets close may go unanswered: that is the end of the drain, not a loss in it.
  const closing = Date.parse(over[1]!) - 50;
  return { answered: asked.filter((q) => q.at < closing).map((q) => q.rcode), exitedAt };
}

async function notReadySoon(s: EtcdnsServerHandle): Promise<void> {
  await waitFor(
    '/readyz 503 after SIGTERM',
    async () => ((await s.http('/readyz')).status === 503 ? true : undefined),
    2000,
  );
}

/**
 * SIGTERM, then asks until the exit: it must come within [fromMs, toMs) of the signal, with at
 * least `atLeast` queries answered meanwhile and none lost.
 */
async function drainsFor(s: EtcdnsServerHandle, fromMs: number, toMs: number, atLeast: number): Promise<void> {
  const signalled = Date.now();
  s.process.kill('SIGTERM');
  await notReadySoon(s);
  const { answered, exitedAt } = await askUntilExit(s);
  const took = exitedAt - signalled;
  assert.ok(took >= fromMs && took < toMs, `exited ${took} ms after SIGTERM`);
  assert.ok(answered.length >= atLeast, `asked ${answered.length} times during the drain`);
  assert.deepEqual(
    answered.filter((r) => r !== 'NOERROR'),
    [],
  );
}

describe('with a real kube-apiserver', () => {
  before(startApi);

  test('after SIGTERM: not ready at once, answers while the EndpointSlice lists it as ready, exits soon after it does not', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs(NAMESPACE, ['--drain-max-seconds', '60', '--drain-seconds', '1']));
    const signalled = Date.now();
    s.process.kill('SIGTERM');
    await notReadySoon(s);
    const asking = askUntilExit(s);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.ok(s.process.running(), 'still running 3 s after SIGTERM while listed as ready');
    // The address leaves with the request (the slice is written anew).
    const left = Date.now();
    await writeSlice('terminating');
    const { answered, exitedAt } = await asking;
    assert.ok(answered.length >= 10, `asked ${answered.length} times`);
    assert.deepEqual(
      answered.filter((r) => r !== 'NOERROR'),
      [],
      'every query until the exit answered',
    );
    const afterLeft = exitedAt - left;
    // --drain-seconds 1 after the address left, a poll, the sockets' close.
    assert.ok(afterLeft >= 1000 && afterLeft < 4000, `exited ${afterLeft} ms after the address left`);
    assert.match(s.process.logs(), /EndpointSlices no longer list this pod as ready/);
    process.stdout.write(
      `# drain: ${answered.length} queries answered, none lost, in the ${exitedAt - signalled} ms from SIGTERM to exit; exit ${afterLeft} ms after the address left\n`,
    );
  });

  test('the drain maximum bounds the wait when the address stays listed', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs(NAMESPACE, ['--drain-max-seconds', '3']));
    await drainsFor(s, 2800, 6000, 5);
    assert.match(s.process.logs(), /still listed as ready at the drain maximum/);
  });

  test('without API access (a namespace its Role does not reach): the fixed drain, answering all the while', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs('default', ['--drain-max-seconds', '60', '--drain-seconds', '2']));
    await drainsFor(s, 1800, 5000, 3);
    assert.match(s.process.logs(), /cannot read the EndpointSlices, draining for a fixed time instead/);
    assert.match(s.process.logs(), /403/);
  });
});

describe('outside Kubernetes', () => {
  let etcd: EtcdHandle;
  before(async () => {
    etcd = await startEtcd();
    await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
  });

  test('no pod address or namespace given: the fixed drain from SIGTERM, answering all the while', async () => {
    const s = await server(['--drain-service', SERVER, '--drain-seconds', '2'], etcd.endpoints);
    await drainsFor(s, 1800, 5000, 3);
    assert.match(s.process.logs(), /draining for a fixed time/);
  });

  test('no drain configured: SIGTERM closes at once, as before', async () => {
    const s = await server([], etcd.endpoints);
    const signalled = Date.now();
    s.process.kill('SIGTERM');
    await s.process.exited;
    assert.ok(Date.now() - signalled < 2000, `exited ${Date.now() - signalled} ms after SIGTERM`);
  });
});
