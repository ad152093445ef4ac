// The drain after SIGTERM (issue 31 point 4) against a real kube-apiserver, with the server's
// ServiceAccount, Role and RoleBinding as dist/dev has them and a real token: `etcdns server`,
// sent SIGTERM, says not ready at once and keeps answering while an EndpointSlice of its Service
// lists its address as ready or serving, then --drain-seconds after it is neither, then
// until queries stop arriving (a proxy late to follow); the maximum bounds the wait; without API
// access (here: a namespace its Role does not reach) it answers for the fixed drain instead, as
// outside Kubernetes; a pool's primary watches its workers' counts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../../src/environments/index.ts';
import { dig } from '../../support/dig.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { serverSideApply } from '../../support/server-side-apply.ts';

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

/**
 * The Service's one EndpointSlice, with this pod ready, terminating while its probe still says
 * serving, or terminating and not serving, and another pod ready.
 */
async function writeSlice(ours: 'ready' | 'terminating-serving' | 'terminating'): Promise<void> {
  const body: k8s.V1EndpointSlice = {
    metadata: { name: SLICE, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': SERVER } },
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: [POD_IP],
        conditions:
          ours === 'ready'
            ? { ready: true, serving: true, terminating: false }
            : { ready: false, serving: ours === 'terminating-serving', terminating: true },
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
 * Asks every 200 ms for `ms` or until the process exits. `answered`: the rcodes of the queries sent
 * before the server logged the end of its drain (each must be answered).
 */
async function askFor(s: EtcdnsServerHandle, ms: number): Promise<string[]> {
  const asked: { at: number; rcode: string }[] = [];
  let exited = false;
  void s.process.exited.then(() => (exited = true));
  const until = Date.now() + ms;
  while (!exited && Date.now() < until) {
    const at = Date.now();
    const r = await dig({ port: s.port, name: 'www.example.org', timeoutSeconds: 1 }).catch(() => undefined);
    asked.push({ at, rcode: r?.status ?? '' });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const over = /^\{"time":"([^"]+)","level":"info","msg":"drain over, closing the sockets"/m.exec(s.process.logs());
  // A query sent as the sockets close may go unanswered: that is the end of the drain, not a loss in it.
  const closing = over ? Date.parse(over[1]!) - 50 : Infinity;
  return asked.filter((q) => q.at < closing).map((q) => q.rcode);
}

/** When the process exits (ms since the epoch). */
async function exitTime(s: EtcdnsServerHandle): Promise<number> {
  await s.process.exited;
  return Date.now();
}

async function notReadySoon(s: EtcdnsServerHandle): Promise<void> {
  await waitFor(
    '/readyz 503 after SIGTERM',
    async () => ((await s.http('/readyz')).status === 503 ? true : undefined),
    2000,
  );
}

/**
 * SIGTERM, then asks for `askMs` (all answered, at least `atLeast`), then stops asking, as a proxy
 * that moved on would: the exit must come within [fromMs, toMs) of the signal.
 */
async function drainsFor(
  s: EtcdnsServerHandle,
  o: { askMs: number; fromMs: number; toMs: number; atLeast: number },
): Promise<void> {
  const signalled = Date.now();
  s.process.kill('SIGTERM');
  await notReadySoon(s);
  const answered = await askFor(s, o.askMs);
  const took = (await exitTime(s)) - signalled;
  assert.ok(took >= o.fromMs && took < o.toMs, `exited ${took} ms after SIGTERM`);
  assert.ok(answered.length >= o.atLeast, `asked ${answered.length} times during the drain`);
  assert.deepEqual(
    answered.filter((r) => r !== 'NOERROR'),
    [],
  );
}

describe('with a real kube-apiserver', () => {
  before(startApi);

  test('after SIGTERM: not ready at once, answers while the EndpointSlice lists it as ready, then while queries still arrive, exits once they stop', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs(NAMESPACE, ['--drain-max-seconds', '60', '--drain-seconds', '1']));
    const signalled = Date.now();
    s.process.kill('SIGTERM');
    await notReadySoon(s);
    const listedPart = await askFor(s, 3000);
    assert.ok(s.process.running(), 'still running 3 s after SIGTERM while listed as ready');
    // Not ready but still serving (the kubelet's probe has not failed yet): kube-proxy keeps the
    // UDP flows it sent here, so the drain goes on.
    await writeSlice('terminating-serving');
    const servingPart = await askFor(s, 2000);
    assert.ok(s.process.running(), 'still running while listed as serving');
    // The address leaves with the request (the slice is written anew); the queries go on for 3 s
    // more, as through a proxy that applies the change late.
    const left = Date.now();
    await writeSlice('terminating');
    const latePart = await askFor(s, 3000);
    assert.ok(s.process.running(), 'still running while queries arrive, 2 s past --drain-seconds');
    const stopped = Date.now();
    const exitedAt = await exitTime(s);
    const answered = [...listedPart, ...servingPart, ...latePart];
    assert.ok(answered.length >= 20, `asked ${answered.length} times`);
    assert.deepEqual(
      answered.filter((r) => r !== 'NOERROR'),
      [],
      'every query until the exit answered',
    );
    // The quiet second (default 1), a poll, the sockets' close.
    const afterStop = exitedAt - stopped;
    assert.ok(afterStop >= 500 && afterStop < 3000, `exited ${afterStop} ms after the queries stopped`);
    assert.match(s.process.logs(), /EndpointSlices no longer list this pod as ready/);
    assert.match(s.process.logs(), /queries still arriving, answering until they stop/);
    process.stdout.write(
      `# drain: ${answered.length} queries answered, none lost, in the ${exitedAt - signalled} ms from SIGTERM to exit; the address left at ${left - signalled} ms; exit ${afterStop} ms after the queries stopped\n`,
    );
  });

  test('the drain maximum bounds the wait when the address stays listed', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs(NAMESPACE, ['--drain-max-seconds', '3']));
    await drainsFor(s, { askMs: 10_000, fromMs: 2800, toMs: 6000, atLeast: 5 });
    assert.match(s.process.logs(), /still listed as ready or serving at the drain maximum/);
  });

  test('without API access (a namespace its Role does not reach): the fixed drain, then until the queries stop', async () => {
    await writeSlice('ready');
    const s = await server(drainArgs('default', ['--drain-max-seconds', '60', '--drain-seconds', '2']));
    // Asked for 4 s, past the fixed 2: answered until the queries stop and a quiet second more.
    await drainsFor(s, { askMs: 4000, fromMs: 4800, toMs: 7500, atLeast: 10 });
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
    const s = await server(['--drain-service', SERVER, '--drain-seconds', '3'], etcd.endpoints);
    // The queries stop after half a second: quiet long before the fixed time's end, no wait beyond it.
    await drainsFor(s, { askMs: 500, fromMs: 2800, toMs: 4500, atLeast: 2 });
    assert.match(s.process.logs(), /draining for a fixed time/);
    assert.doesNotMatch(s.process.logs(), /queries still arriving/);
  });

  test('a pool of workers: the primary drains until its workers report no more queries', async () => {
    const s = await server(['--workers', '2', '--drain-service', SERVER, '--drain-seconds', '1'], etcd.endpoints);
    // Asked for 4 s past the fixed 1: the workers' counts (reported each second) keep it open.
    await drainsFor(s, { askMs: 4000, fromMs: 4800, toMs: 8500, atLeast: 10 });
    assert.match(s.process.logs(), /queries still arriving, answering until they stop/);
  });

  test('--drain-quiet-seconds 0: the fixed drain only, whatever still arrives', async () => {
    const s = await server(
      ['--drain-service', SERVER, '--drain-seconds', '2', '--drain-quiet-seconds', '0'],
      etcd.endpoints,
    );
    await drainsFor(s, { askMs: 10_000, fromMs: 1800, toMs: 4000, atLeast: 5 });
  });

  test('no drain configured: SIGTERM closes at once, as before', async () => {
    const s = await server([], etcd.endpoints);
    const signalled = Date.now();
    s.process.kill('SIGTERM');
    await s.process.exited;
    assert.ok(Date.now() - signalled < 2000, `exited ${Date.now() - signalled} ms after SIGTERM`);
  });
});
