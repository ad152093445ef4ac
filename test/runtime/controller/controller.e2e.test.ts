// End to end: the real kube-apiserver, etcd, our DNS server and `etcdns controller` (two
// replicas, the construct's RBAC), checked with dig.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { answerData, dig } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createIngress } from '../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { controllerKubeconfig, runPlan, startController, type ControllerHandle } from './controller-harness.ts';

const A = 'external-dns.alpha.kubernetes.io/';
const OWNER = 'e2e';
const OTHER_KEY = '/skydns/org/example/other/aaaaaaaa';
const HAND_KEY = '/skydns/org/example/hand';

let kube: KubeHandle;
let etcd: EtcdHandle;
let kv: Etcd3;
let server: EtcdnsServerHandle;
let kubeconfig: string;
let core: k8s.CoreV1Api;
let replicas: ControllerHandle[] = [];
const seeded = new Map<string, string>();

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  kv = etcd.client();
  await kv.put(OTHER_KEY).value('{"host":"192.0.2.50","owner":"someone-else"}');
  await kv.put(HAND_KEY).value('{"host":"192.0.2.60"}');
  for (const key of [OTHER_KEY, HAND_KEY]) seeded.set(key, (await kv.get(key).exec()).kvs[0]!.mod_revision);
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
  core = kube.admin.makeApiClient(k8s.CoreV1Api);
  for (const [name, ip, unschedulable] of [
    ['n1', '203.0.113.1', false],
    ['n2', '203.0.113.2', false],
    ['n3', '203.0.113.3', true],
  ] as const) {
    const node = await core.createNode({ body: { metadata: { name }, spec: { unschedulable } } });
    node.status = {
      addresses: [
        { type: 'InternalIP', address: `10.0.0.${name.slice(1)}` },
        { type: 'ExternalIP', address: ip },
      ],
    };
    await core.replaceNodeStatus({ name, body: node });
  }
  kubeconfig = await controllerKubeconfig(kube);
  replicas.push(
    await startController({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: etcd.endpoints,
      ownerId: OWNER,
      identity: 'a',
      args: ['--domain-filter', 'example.org', '--resync-seconds', '2'],
    }),
  );
});
after(stopAll);

const q = (name: string, type = 'A') => dig({ port: server.port, name, type });
const eventually = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000) =>
  waitFor(what, check, timeoutMs, 50);
async function answers(name: string, type: string, want: string[]): Promise<void> {
  await eventually(`${type} ${name} = ${want.join(',')}`, async () => {
    const got = answerData(await q(name, type), type);
    return JSON.stringify(got) === JSON.stringify([...want].sort()) ? true : undefined;
  }).catch(async (e: Error) => {
    throw new Error(
      `${e.message}; last answer: ${JSON.stringify(answerData(await q(name, type), type))}\n${replicas.map((r) => r.process.logs().slice(-2000)).join('\n')}`,
    );
  });
}
async function nxdomain(name: string): Promise<void> {
  await eventually(`${name} NXDOMAIN`, async () => ((await q(name)).status === 'NXDOMAIN' ? true : undefined));
}
async function keysUnder(prefix: string): Promise<Record<string, string>> {
  return kv.getAll().prefix(prefix).strings();
}

function service(name: string, spec: k8s.V1ServiceSpec, annotations: Record<string, string>): k8s.V1Service {
  return {
    metadata: { name, namespace: 'default', annotations },
    spec: { ports: [{ port: 80, protocol: 'TCP' }], ...spec },
  };
}
/** Sets status.loadBalancer the way a load-balancer controller does. */
async function setLoadBalancer(name: string, ips: string[]): Promise<void> {
  const svc = await core.readNamespacedService({ name, namespace: 'default' });
  svc.status = { loadBalancer: { ingress: ips.map((ip) => ({ ip })) } };
  await core.replaceNamespacedServiceStatus({ name, namespace: 'default', body: svc });
}
/** How many times a replica collected a full load's garbage (after its first full sync, after a reload of its etcd copy). */
function loadCollections(c: ControllerHandle): number {
  return c.process
    .logs()
    .split('\n')
    .filter((l) => l.includes('"full sync done: garbage collected"')).length;
}
async function eventsFor(name: string): Promise<k8s.CoreV1Event[]> {
  return (await core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })).items;
}

test('LoadBalancer Service: records appear, an IP change leaves nothing stale, delete removes them', async () => {
  await core.createNamespacedService({
    namespace: 'default',
    body: service('web', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'web.example.org', [`${A}ttl`]: '60' }),
  });
  await setLoadBalancer('web', ['10.9.0.1']);
  await answers('web.example.org', 'A', ['10.9.0.1']);
  assert.equal((await q('web.example.org')).answer[0]!.ttl, 60);

  await setLoadBalancer('web', ['10.9.0.2', '10.9.0.3']);
  await answers('web.example.org', 'A', ['10.9.0.2', '10.9.0.3']);
  const entries = Object.values(await keysUnder('/skydns/org/example/web/')).map(
    (v) => JSON.parse(v) as { host: string; owner: string; resource: string },
  );
  assert.deepEqual(entries.map((e) => e.host).sort(), ['10.9.0.2', '10.9.0.3']);
  assert.ok(entries.every((e) => e.owner === OWNER && e.resource === 'service/default/web'));

  await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
  await nxdomain('web.example.org');
  assert.deepEqual(await keysUnder('/skydns/org/example/web'), {});
});

test('every Service type and an Ingress', async () => {
  const np = await core.createNamespacedService({
    namespace: 'default',
    body: service('np', { type: 'NodePort' }, { [`${A}hostname`]: 'np.example.org' }),
  });
  await core.createNamespacedService({
    namespace: 'default',
    body: service(
      'ext',
      { type: 'ExternalName', externalName: 'upstream.example.net' },
      { [`${A}hostname`]: 'ext.example.org' },
    ),
  });
  const internal = await core.createNamespacedService({
    namespace: 'default',
    body: service('int', { type: 'ClusterIP' }, { [`${A}internal-hostname`]: 'int.example.org' }),
  });
  await core.createNamespacedService({
    namespace: 'default',
    body: service('db', { clusterIP: 'None' }, { [`${A}hostname`]: 'db.example.org' }),
  });
  await kube.admin.makeApiClient(k8s.DiscoveryV1Api).createNamespacedEndpointSlice({
    namespace: 'default',
    body: {
      metadata: { name: 'db-1', labels: { 'kubernetes.io/service-name': 'db' } },
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['10.1.0.1'], hostname: 'db-0', conditions: { ready: true } },
        { addresses: ['10.1.0.2'], hostname: 'db-1', conditions: { ready: true } },
        { addresses: ['10.1.0.3'], conditions: { ready: false } },
      ],
    },
  });
  await createIngress(kube.admin, {
    name: 'site',
    spec: { rules: [{ host: 'site.example.org' }], tls: [{ hosts: ['secure.example.org'] }] },
    addresses: [{ ip: '10.9.1.1' }],
  });

  await answers('np.example.org', 'A', ['203.0.113.1', '203.0.113.2']);
  // Written as external-dns writes it (priority 0, weight 50); served as SkyDNS reads it (0 means 10, weights scaled to 100).
  await answers('_np._tcp.np.example.org', 'SRV', [`10 100 ${np.spec!.ports![0]!.nodePort} np.example.org.`]);
  await answers('ext.example.org', 'CNAME', ['upstream.example.net.']);
  await answers('int.example.org', 'A', [internal.spec!.clusterIP!]);
  await answers('db.example.org', 'A', ['10.1.0.1', '10.1.0.2']);
  await answers('db-0.db.example.org', 'A', ['10.1.0.1']);
  await answers('site.example.org', 'A', ['10.9.1.1']);
  await answers('secure.example.org', 'A', ['10.9.1.1']);
});

test('bad input skips only that name and is recorded as an Event', async () => {
  await core.createNamespacedService({
    namespace: 'default',
    body: service(
      'mixed',
      { type: 'LoadBalancer' },
      { [`${A}hostname`]: 'fine.example.org,not_ok!.example.org,out.other.org' },
    ),
  });
  await setLoadBalancer('mixed', ['10.9.2.1']);
  await answers('fine.example.org', 'A', ['10.9.2.1']);
  const reasons = await eventually('events on mixed', async () => {
    const r = (await eventsFor('mixed')).map((e) => e.reason).sort();
    return r.length >= 2 ? r : undefined;
  });
  assert.deepEqual(reasons, ['HostnameNotInDomain', 'InvalidHostname']);
});

test("another owner's and hand-written records are untouched", async () => {
  await core.createNamespacedService({
    namespace: 'default',
    body: service('intruder', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'hand.example.org' }),
  });
  await setLoadBalancer('intruder', ['10.9.3.1']);
  const events = await eventually('NameOwnedByOthers event', async () => {
    const e = await eventsFor('intruder');
    return e.some((x) => x.reason === 'NameOwnedByOthers') ? e : undefined;
  });
  assert.ok(events.length >= 1);
  assert.deepEqual(answerData(await q('hand.example.org'), 'A'), ['192.0.2.60']);
  assert.deepEqual(answerData(await q('other.example.org'), 'A'), ['192.0.2.50']);
  for (const [key, rev] of seeded) assert.equal((await kv.get(key).exec()).kvs[0]?.mod_revision, rev, key);
});

test('a resync with nothing changed writes nothing', async () => {
  await answers('fine.example.org', 'A', ['10.9.2.1']);
  const before = (await kv.get('/nothing').exec()).header.revision;
  const syncs = await replicas[0]!.metric('etcdns_controller_syncs_total');
  const collections = loadCollections(replicas[0]!);
  await eventually('two more syncs', async () =>
    (await replicas[0]!.metric('etcdns_controller_syncs_total')) >= syncs + 2 ? true : undefined,
  );
  assert.equal((await kv.get('/nothing').exec()).header.revision, before);
  // The first full sync collected the start's garbage; a periodic resync is not a load.
  assert.ok(collections >= 1);
  assert.equal(loadCollections(replicas[0]!), collections);
  assert.ok((await replicas[0]!.metric('etcdns_controller_syncs_total', 'result="unchanged"')) >= 2);
});

test('`etcdns plan` prints nothing to do when in sync, and the change when not', async () => {
  const plan = () =>
    runPlan({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: [etcd.endpoint],
      ownerId: OWNER,
      args: ['--domain-filter', 'example.org'],
    });
  const inSync = await plan();
  assert.equal(inSync.code, 0, inSync.stderr);
  assert.match(inSync.stdout, /0 to create, 0 to update, 0 to delete/);
  const key = Object.keys(await keysUnder('/skydns/org/example/fine/'))[0]!;
  // Remove a record behind the controller's back, with the controller stopped so it cannot repair it first.
  await replicas[0]!.process.kill('SIGSTOP');
  try {
    await kv.delete().key(key);
    const drift = await plan();
    assert.equal(drift.code, 3);
    assert.match(drift.stdout, new RegExp(`fine\\.example\\.org\\.\\n  \\+ ${key} \\{"host":"10\\.9\\.2\\.1"`));
    assert.match(drift.stdout, /1 to create, 0 to update, 0 to delete/);
  } finally {
    replicas[0]!.process.kill('SIGCONT');
  }
  await eventually('repaired', async () => ((await kv.get(key).string()) ? true : undefined));
});

test('two replicas: only the leader writes, and a standby takes over when it dies', async () => {
  const b = await startController({
    kubeconfigFile: kubeconfig,
    etcdEndpoints: etcd.endpoints,
    ownerId: OWNER,
    identity: 'b',
    args: ['--domain-filter', 'example.org', '--resync-seconds', '2'],
  });
  replicas.push(b);
  assert.equal(await replicas[0]!.metric('etcdns_controller_leader'), 1);
  assert.equal(await b.metric('etcdns_controller_leader'), 0);
  assert.match((await b.http('/readyz')).body, /standby/);

  replicas[0]!.process.kill('SIGKILL');
  await replicas[0]!.process.exited;
  await setLoadBalancer('mixed', ['10.9.2.2']);
  await answers('fine.example.org', 'A', ['10.9.2.2']);
  assert.equal(await b.metric('etcdns_controller_leader'), 1);
  replicas = [b];
});

test('a controller restart loses and duplicates nothing', async () => {
  const beforeRestart = await kv.getAll().prefix('/skydns/').exec();
  await replicas[0]!.stop();
  // A change made while no controller runs is picked up by the next one.
  await core.createNamespacedService({
    namespace: 'default',
    body: service('late', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'late.example.org' }),
  });
  await setLoadBalancer('late', ['10.9.4.1']);
  replicas = [
    await startController({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: etcd.endpoints,
      ownerId: OWNER,
      identity: 'c',
      args: ['--domain-filter', 'example.org', '--resync-seconds', '2'],
    }),
  ];
  await answers('late.example.org', 'A', ['10.9.4.1']);
  const afterRestart = await kv.getAll().prefix('/skydns/').exec();
  const rev = (kvs: typeof afterRestart.kvs) =>
    new Map(kvs.map((x) => [x.key.toString(), `${x.mod_revision} ${x.value.toString()}`]));
  const was = rev(beforeRestart.kvs);
  const now = rev(afterRestart.kvs);
  for (const [key, value] of was) assert.equal(now.get(key), value, `${key} changed across the restart`);
  const added = [...now.keys()].filter((k) => !was.has(k));
  assert.equal(added.length, 1);
  assert.match(added[0]!, /^\/skydns\/org\/example\/late\/[0-9a-f]{8}$/);
});

test('etcd unavailable: the controller stays up, reports not ready, and catches up', async () => {
  const c = replicas[0]!;
  const collections = loadCollections(c);
  await etcd.stop();
  await setLoadBalancer('late', ['10.9.4.2']);
  await eventually('not ready', async () => ((await c.http('/readyz')).status === 503 ? true : undefined), 30_000);
  assert.ok(c.process.running());
  assert.ok((await c.metric('etcdns_controller_errors_total', 'kind="etcd"')) >= 1);
  await etcd.start();
  kv = etcd.client();
  await eventually(
    'written after etcd is back',
    async () =>
      Object.values(await keysUnder('/skydns/org/example/late/')).some((v) => v.includes('10.9.4.2'))
        ? true
        : undefined,
    30_000,
  );
  await answers('late.example.org', 'A', ['10.9.4.2']);
  await eventually('ready again', async () => ((await c.http('/readyz')).status === 200 ? true : undefined), 30_000);
  // The etcd copy was read again, and the full sync after it collected that load's garbage.
  assert.ok(loadCollections(c) > collections, c.process.logs().slice(-3000));
});

test('the controller runs with its V8 memory flags (one re-execution, same PID)', () => {
  const argv = readFileSync(`/proc/${replicas[0]!.process.pid}/cmdline`, 'utf8').split('\0');
  for (const flag of ['--optimize-for-size', '--max-semi-space-size=4', '--no-memory-reducer'])
    assert.ok(argv.includes(flag), `${flag} not in ${argv.join(' ')}`);
});
