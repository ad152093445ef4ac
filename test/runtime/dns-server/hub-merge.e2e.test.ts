// A hub's DNS server merging two member clusters (issue 34), all real: one etcd (the hub's, TLS
// with client certificates and authentication on: each spoke logs in as its cluster's user, whose
// role reaches only its prefix; the hub's server as a user that may only read), two
// kube-apiservers (clusters dc1 and dc2), a real controller per cluster writing under its own
// prefix with its lease key, the real etcdns server as the hub, and dig asking from different
// loopback source addresses (the clusters' sites). Then dc2's controller is killed (SIGKILL: its
// lease expires): its records leave the answers within lease TTL + grace, dc1's stay, no query
// fails, the name only dc2 published is answered stale; etcd keeps every key; dc2 back: its
// records return.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { promisify } from 'node:util';
import { controllerKubeconfig, startController, type ControllerHandle } from '../controller/controller-harness.ts';
import { dig, digRepeated } from '../../support/dig.ts';
import { digAxfr } from '../../support/dig-axfr.ts';
import { makeTestPki, type TestPki } from '../../support/certificates.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { enableHubAuth, type HubEtcdUsers } from '../../support/hub-etcd-users.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { stopAll } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

const LEASE_SECONDS = 3;
const GRACE_SECONDS = 2;
const ZONES = ['all.test', 'fail.test', 'pref.test', 'alone.test', 'weight.test'];
const SITE = { dc1: '127.0.0.2', dc2: '127.0.0.3', none: '127.0.0.1' };
const ADDRESS = { dc1: '10.1.0.7', dc2: '10.2.0.7' };
const HUB = {
  clusters: [
    { name: 'dc1', siteCidrs: [`${SITE.dc1}/32`] },
    { name: 'dc2', siteCidrs: [`${SITE.dc2}/32`] },
  ],
  graceSeconds: GRACE_SECONDS,
  zones: [
    { zone: 'fail.test', policy: 'failover', order: ['dc2', 'dc1'] },
    { zone: 'pref.test', policy: 'prefer' },
    { zone: 'alone.test', policy: 'prefer', prefer: 'alone' },
    { zone: 'weight.test', policy: 'weighted', weights: { dc1: 3, dc2: 1 } },
  ],
};

/** A name's own policy, set on the objects (src/skydns/name-policy.ts), by the name it is set for. */
const NAME_POLICIES: Record<string, Record<string, string>> = {
  'first-dc2': { 'etcdns.io/hub-policy': 'failover', 'etcdns.io/hub-order': 'dc2.dc1' },
  'own-site': { 'etcdns.io/hub-policy': 'prefer-alone' },
};

type Cluster = 'dc1' | 'dc2';
let etcd: EtcdHandle;
let pki: TestPki;
let users: HubEtcdUsers;
const kubeconfigs = {} as Record<Cluster, string>;
const controllers = {} as Record<Cluster, ControllerHandle>;
const kubes = {} as Record<Cluster, KubeHandle>;
let hub: EtcdnsServerHandle;

function startSpoke(cluster: Cluster): Promise<ControllerHandle> {
  return startController({
    kubeconfigFile: kubeconfigs[cluster],
    etcdEndpoints: [etcd.endpoint],
    ownerId: cluster,
    identity: `${cluster}-a`,
    args: [
      '--cluster',
      cluster,
      '--cluster-lease-seconds',
      String(LEASE_SECONDS),
      ...users.asUser(`cluster-${cluster}`),
    ],
  });
}

/** The hub's DNS server with its config file, logged in as its etcd user. */
let startHub: (config: string) => Promise<EtcdnsServerHandle>;
let hubConfig: string;

/** The A records of a name as the hub answers a client at `source`, in the order given. */
async function addresses(name: string, source = SITE.none): Promise<string[]> {
  const result = await dig({ port: hub.port, name, extra: ['-b', source] });
  assert.equal(result.status, 'NOERROR', `${name} from ${source}: ${result.status}`);
  return result.answer.filter((r) => r.type === 'A').map((r) => r.data);
}

const summary = async () => JSON.parse((await hub.http('/status.json')).body).hub;
/** The hub's explanation of a name (/status.json?name=), as a client at `client` would be answered. */
async function explain(name: string, client?: string) {
  const reply = await hub.http(`/status.json?name=${name}${client ? `&client=${client}` : ''}`);
  assert.equal(reply.status, 200, reply.body);
  return JSON.parse(reply.body).explain;
}
const verdicts = (e: { clusters: { cluster: string; answers: boolean }[] }) =>
  e.clusters.map((c) => [c.cluster, c.answers]);

/** The EndpointSlice of Service "healthy" in a cluster, its one endpoint ready or not (no controller-manager runs). */
async function setEndpointReady(cluster: Cluster, ready: boolean): Promise<void> {
  const api = kubes[cluster].admin.makeApiClient(k8s.DiscoveryV1Api);
  const body: k8s.V1EndpointSlice = {
    addressType: 'IPv4',
    metadata: { name: 'healthy-x', labels: { 'kubernetes.io/service-name': 'healthy' } },
    endpoints: [{ addresses: ['10.244.0.9'], conditions: { ready } }],
    ports: [{ port: 80 }],
  };
  try {
    await api.replaceNamespacedEndpointSlice({ name: 'healthy-x', namespace: 'default', body });
  } catch {
    await api.createNamespacedEndpointSlice({ namespace: 'default', body });
  }
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  pki = makeTestPki(tempDir('hub-pki'), 'etcdns');
  [etcd, kubes.dc1, kubes.dc2] = await Promise.all([
    startEtcd({ tls: pki }),
    startKubeApiserver(),
    startKubeApiserver(),
  ]);
  users = await enableHubAuth(etcd, pki, ['dc1', 'dc2']);
  startHub = (config) =>
    startEtcdnsServer({
      etcdEndpoints: [etcd.endpoint],
      zones: ZONES,
      args: ['--config', config, ...users.asUser('server-hub')],
    });
  for (const cluster of ['dc1', 'dc2'] as const) {
    kubeconfigs[cluster] = await controllerKubeconfig(kubes[cluster]);
    await createLoadBalancerService(kubes[cluster].admin, {
      name: 'web',
      annotations: {
        'external-dns.kubernetes.io/hostname': [...ZONES.map((z) => `www.${z}`), `only-${cluster}.all.test`].join(','),
      },
      addresses: [{ ip: ADDRESS[cluster] }],
    });
    // Names that set their own policy at the hub (in zone all.test, whose own is all).
    for (const [name, policy] of Object.entries(NAME_POLICIES))
      await createLoadBalancerService(kubes[cluster].admin, {
        name,
        annotations: { 'external-dns.kubernetes.io/hostname': `${name}.all.test`, ...policy },
        addresses: [{ ip: ADDRESS[cluster] }],
      });
    // A Service whose name fails over while it has no ready endpoint: dc1's has one, dc2's not.
    await createLoadBalancerService(kubes[cluster].admin, {
      name: 'healthy',
      annotations: { 'external-dns.kubernetes.io/hostname': 'healthy.all.test', 'etcdns.io/hub-health': 'endpoints' },
      addresses: [{ ip: ADDRESS[cluster] }],
    });
    await setEndpointReady(cluster, cluster === 'dc1');
  }
  const config = join(tempDir('hub-config'), 'config.json');
  hubConfig = config;
  writeFileSync(config, JSON.stringify({ hub: HUB, transfer: { allowCidrs: ['127.0.0.0/8'] } }));
  [controllers.dc1, controllers.dc2, hub] = await Promise.all([startSpoke('dc1'), startSpoke('dc2'), startHub(config)]);
  // Both clusters' records and leases are at the hub.
  await waitUntil(
    'both clusters count and answer',
    async () => {
      const s = await summary();
      const both = s.clusters.every((c: { counts: boolean }) => c.counts);
      return both && (await addresses('www.all.test')).length === 2 ? true : undefined;
    },
    30_000,
  );
});
after(async () => {
  users?.root.close();
  await stopAll();
});

const sorted = (a: string[]) => [...a].sort();

test('all: a name both clusters publish answers with both; a name of one cluster with its own', async () => {
  assert.deepEqual(sorted(await addresses('www.all.test')), [ADDRESS.dc1, ADDRESS.dc2]);
  assert.deepEqual(await addresses('only-dc1.all.test'), [ADDRESS.dc1]);
  assert.deepEqual(await addresses('only-dc2.all.test'), [ADDRESS.dc2]);
});

test('failover: the first counting cluster of the order (dc2 before dc1)', async () => {
  assert.deepEqual(await addresses('www.fail.test'), [ADDRESS.dc2]);
});

test("a name's own policy, set by annotations on the objects, wins over its zone's (all)", async () => {
  assert.deepEqual(await addresses('first-dc2.all.test'), [ADDRESS.dc2]);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(await addresses('own-site.all.test', SITE.dc1), [ADDRESS.dc1]);
    assert.deepEqual(await addresses('own-site.all.test', SITE.dc2), [ADDRESS.dc2]);
  }
  assert.deepEqual(sorted(await addresses('own-site.all.test')), [ADDRESS.dc1, ADDRESS.dc2]);
  // The other names of the zone keep its policy.
  assert.deepEqual(sorted(await addresses('www.all.test', SITE.dc1)), [ADDRESS.dc1, ADDRESS.dc2]);
  assert.deepEqual(await transferred('all.test', 'first-dc2.all.test'), [ADDRESS.dc2]);
  const e = await explain('first-dc2.all.test');
  assert.equal(e.policy, "failover (dc2, dc1), set by dc1's entries");
  assert.deepEqual(e.answering, ['dc2']);
});

test('a Service with no ready endpoint (etcdns.io/hub-health): its name fails over to the other cluster, and back', async (t) => {
  await waitUntil(
    "healthy.all.test: dc1's alone",
    async () => ((await addresses('healthy.all.test')).join() === ADDRESS.dc1 ? true : undefined),
    10_000,
  );
  const e = await explain('healthy.all.test');
  assert.deepEqual(e.answering, ['dc1']);
  assert.equal(e.clusters[1].why, 'does not count: no ready endpoint behind its Service (etcdns.io/hub-health)');
  assert.deepEqual(await transferred('all.test', 'healthy.all.test'), [ADDRESS.dc1]);
  const readyAt = Date.now();
  await setEndpointReady('dc2', true);
  const backMs = await waitUntil(
    "healthy.all.test: dc2's back",
    async () => ((await addresses('healthy.all.test')).length === 2 ? Date.now() - readyAt : undefined),
    10_000,
  );
  const gone = Date.now();
  await setEndpointReady('dc1', false);
  const outMs = await waitUntil(
    "healthy.all.test: dc1's out",
    async () => ((await addresses('healthy.all.test')).join() === ADDRESS.dc2 ? Date.now() - gone : undefined),
    10_000,
  );
  t.diagnostic(`endpoint ready -> in the answers ${backMs} ms; not ready -> out ${outMs} ms`);
  // Nobody ready: served stale rather than NXDOMAIN.
  await setEndpointReady('dc2', false);
  await waitUntil(
    'healthy.all.test: stale, both',
    async () => ((await addresses('healthy.all.test')).length === 2 ? true : undefined),
    10_000,
  );
  assert.equal((await explain('healthy.all.test')).stale, true);
  await setEndpointReady('dc1', true);
});

// [policy zone, client, answer in order]
const PREFER_ROWS: [string, keyof typeof SITE, string[]][] = [
  ['pref.test', 'dc1', [ADDRESS.dc1, ADDRESS.dc2]],
  ['pref.test', 'dc2', [ADDRESS.dc2, ADDRESS.dc1]],
  ['alone.test', 'dc1', [ADDRESS.dc1]],
  ['alone.test', 'dc2', [ADDRESS.dc2]],
  ['alone.test', 'none', [ADDRESS.dc1, ADDRESS.dc2]],
];
for (const [zone, client, want] of PREFER_ROWS)
  test(`prefer (${zone}): a client at ${SITE[client]} (${client} site) gets ${want.join(', ')}`, async () => {
    // Twice: the second answer comes from the cache, which keeps one answer per site.
    for (let i = 0; i < 2; i++) assert.deepEqual(await addresses(`www.${zone}`, SITE[client]), want);
  });

test('prefer from no site: both clusters, in any order', async () => {
  assert.deepEqual(sorted(await addresses('www.pref.test')), [ADDRESS.dc1, ADDRESS.dc2]);
});

test('weighted 3:1: each answer is one cluster, dc1 in about three of four over 400 queries', async (t) => {
  const N = 400;
  const answers = await digRepeated({ port: hub.port, name: 'www.weight.test' }, N);
  const drawn = answers.map((a) => a.answer.filter((r) => r.type === 'A').map((r) => r.data));
  assert.ok(
    drawn.every((d) => d.length === 1),
    'one cluster per answer',
  );
  const dc1 = drawn.filter((d) => d[0] === ADDRESS.dc1).length;
  assert.equal(drawn.filter((d) => d[0] === ADDRESS.dc2).length, N - dc1);
  // Binomial(400, 0.75): mean 300, standard deviation 8.7; outside 5 of them by chance once in ~1.7 million runs.
  t.diagnostic(`weighted 3:1: dc1 answered ${dc1} of ${N}`);
  assert.ok(Math.abs(dc1 - 300) <= 43, `dc1 answered ${dc1} of ${N}`);
});

/** The A records of a name in a zone transfer. */
async function transferred(zone: string, name: string): Promise<string[]> {
  const { records } = await digAxfr({ port: hub.port, zone });
  return sorted(records.filter((r) => r.name === `${name}.` && r.type === 'A').map((r) => r.data));
}

test('zone transfers carry the merged zone, by the same rule as the answers', async () => {
  assert.deepEqual(await transferred('all.test', 'www.all.test'), [ADDRESS.dc1, ADDRESS.dc2]);
  assert.deepEqual(await transferred('all.test', 'only-dc2.all.test'), [ADDRESS.dc2]);
  assert.deepEqual(await transferred('fail.test', 'www.fail.test'), [ADDRESS.dc2]);
  // A transfer has no client site: prefer answers as from none.
  assert.deepEqual(await transferred('alone.test', 'www.alone.test'), [ADDRESS.dc1, ADDRESS.dc2]);
  // Nor a draw: weighted answers as all.
  assert.deepEqual(await transferred('weight.test', 'www.weight.test'), [ADDRESS.dc1, ADDRESS.dc2]);
});

test('the status page shows each cluster, its lease age and that it counts', async () => {
  const s = await summary();
  assert.equal(s.graceSeconds, GRACE_SECONDS);
  for (const [i, name] of ['dc1', 'dc2'].entries()) {
    const c = s.clusters[i];
    assert.equal(c.cluster, name);
    assert.equal(c.counts, true);
    assert.equal(c.leased, true);
    assert.equal(typeof c.leaseAgeSeconds, 'number');
    assert.equal(c.goneSeconds, null);
  }
  const metrics = (await hub.http('/metrics')).body;
  assert.equal(metricSum(metrics, 'etcdns_dns_hub_cluster_counts', 'cluster="dc2"'), 1);
});

test('the hub explains a name: who answers it under each policy, and why not', async () => {
  const fail = await explain('www.fail.test');
  assert.deepEqual(fail.answering, ['dc2']);
  assert.deepEqual(verdicts(fail), [
    ['dc1', false],
    ['dc2', true],
  ]);
  assert.match(fail.clusters[0].why, /^failover: dc2 answers ahead of it/);
  const alone = await explain('www.alone.test', SITE.dc1);
  assert.equal(alone.site, 'dc1');
  assert.deepEqual(alone.answering, ['dc1']);
  assert.match(alone.clusters[1].why, /prefer alone: the client's site dc1 answers alone/);
  const only = await explain('only-dc1.all.test');
  assert.deepEqual(verdicts(only), [
    ['dc1', true],
    ['dc2', false],
  ]);
  assert.equal(only.clusters[1].why, 'no entries at the name');
  assert.equal(typeof only.clusters[0].leaseAgeSeconds, 'number');
  // The page shows it as a table; a bad name or one outside the zones: 400 with the reason.
  const page = (await hub.http('/status?name=www.fail.test')).body;
  assert.match(
    page,
    /<td class="name">dc1<\/td><td>1 entry<\/td><td><span class="ok">counts, lease held for \d+ s<\/span><\/td><td><span class="bad">does not answer<\/span><\/td><td>failover: dc2/,
  );
  const bad = await hub.http('/status.json?name=a..b');
  assert.equal(bad.status, 400);
  assert.match(bad.body, /empty label/);
  const outside = await hub.http('/status?name=www.elsewhere.example');
  assert.equal(outside.status, 400);
  assert.match(outside.body, /in none of this server's zones/);
});

const soaSerial = async (zone: string) =>
  Number((await dig({ port: hub.port, name: zone, type: 'SOA' })).answer[0]!.data.split(/\s+/)[2]);

test("dc2's controller killed: its records leave within lease + grace, dc1's stay, no query fails; back: they return", async (t) => {
  const serialBefore = await soaSerial('all.test');
  const keysBefore = await users.root.getAll().prefix('/skydns-clusters/dc2/').keys();
  const killedAt = Date.now();
  controllers.dc2.process.kill('SIGKILL');
  // Within the grace (the lease key gone, dc2 still counting), a write in the zone moves its serial
  // to etcd's revision: dc2's going then moves it past that revision.
  await waitUntil(
    "dc2's lease key gone, dc2 still counting",
    async () => {
      const dc2 = (await summary()).clusters[1];
      return !dc2.leased && dc2.counts ? true : undefined;
    },
    (LEASE_SECONDS + GRACE_SECONDS) * 1000 + 10_000,
  );
  await users.root.put('/skydns-clusters/dc1/test/all/serial-probe/x1').value(JSON.stringify({ host: '10.1.0.99' }));
  // Every query meanwhile answers (addresses() fails on anything but NOERROR) and keeps dc1's record.
  let asked = 0;
  const goneMs = await waitUntil(
    "dc2's records out of the answers",
    async () => {
      const got = await addresses('www.all.test');
      asked += 1;
      assert.ok(got.includes(ADDRESS.dc1), `dc1's record stays: ${got.join(', ')}`);
      return got.length === 1 ? Date.now() - killedAt : undefined;
    },
    (LEASE_SECONDS + GRACE_SECONDS) * 1000 + 10_000,
  );
  // The lease's TTL, the grace and the hub's one-second check, plus etcd's lease expiry slack.
  assert.ok(goneMs <= (LEASE_SECONDS + GRACE_SECONDS + 3) * 1000, `gone after ${goneMs} ms`);
  assert.ok(goneMs >= GRACE_SECONDS * 1000, `not before the grace period: ${goneMs} ms`);
  t.diagnostic(
    `dc2's records left the answers ${goneMs} ms after SIGKILL (lease ${LEASE_SECONDS} s, grace ${GRACE_SECONDS} s); ${asked} queries meanwhile, none failed`,
  );
  assert.deepEqual(await addresses('www.fail.test'), [ADDRESS.dc1]);
  assert.deepEqual(await addresses('first-dc2.all.test'), [ADDRESS.dc1]);
  assert.deepEqual(await addresses('www.alone.test', SITE.dc2), [ADDRESS.dc1]);
  assert.deepEqual(await addresses('www.pref.test', SITE.dc2), [ADDRESS.dc1]);
  for (let i = 0; i < 5; i++) assert.deepEqual(await addresses('www.weight.test'), [ADDRESS.dc1]);
  // A name only dc2 published: served stale rather than NXDOMAIN, and said so.
  assert.deepEqual(await addresses('only-dc2.all.test'), [ADDRESS.dc2]);
  const s = await summary();
  assert.deepEqual(
    s.clusters.map((c: { cluster: string; counts: boolean; leased: boolean }) => [c.cluster, c.counts, c.leased]),
    [
      ['dc1', true, true],
      ['dc2', false, false],
    ],
  );
  assert.ok(s.staleNames.includes('only-dc2.all.test.'), JSON.stringify(s.staleNames));
  // The explanation says why: dc2's lease is gone; the name only dc2 has is answered stale.
  const www = await explain('www.all.test');
  assert.deepEqual(verdicts(www), [
    ['dc1', true],
    ['dc2', false],
  ]);
  assert.match(www.clusters[1].why, /^does not count: lease gone \d+ s ago/);
  assert.equal(typeof www.clusters[1].goneSeconds, 'number');
  const stale = await explain('only-dc2.all.test');
  assert.equal(stale.stale, true);
  assert.deepEqual(stale.answering, ['dc2']);
  assert.match(stale.clusters[1].why, /^answers stale: no contributing cluster counts \(lease gone \d+ s ago\)/);
  // The status page says the same to a person.
  const page = (await hub.http('/status')).body;
  assert.match(page, /<td class="name">dc2<\/td><td><span class="bad">does not count<\/span><\/td><td>gone \d+ s ago/);
  assert.match(page, /<td class="name">dc1<\/td><td><span class="ok">counts<\/span><\/td><td>held for \d+ s/);
  assert.match(page, /Answered stale \(no contributing cluster counts\): only-dc2\.all\.test/);
  assert.ok(metricSum((await hub.http('/metrics')).body, 'etcdns_dns_hub_stale_names') >= 1);
  // The merged zone changed: its serial moved. Nothing was deleted from etcd but the lease key.
  assert.ok((await soaSerial('all.test')) > serialBefore);
  const keysAfter = await users.root.getAll().prefix('/skydns-clusters/dc2/').keys();
  assert.deepEqual(keysAfter.sort(), keysBefore.filter((k) => k !== '/skydns-clusters/dc2/etcdns.lease').sort());
  // dc2's going wrote the hub's serial key, and the zone's serial is that revision: a server
  // started now, whose serials start from etcd's revision, serves none lower.
  const serialAfter = await soaSerial('all.test');
  const mark = (await users.root.get('/etcdns-hub/serial').exec()).kvs[0];
  assert.ok(mark, 'the serial key was written');
  assert.equal(serialAfter, Number(mark.mod_revision));
  const fresh = await startHub(hubConfig);
  const freshSerial = Number(
    (await dig({ port: fresh.port, name: 'all.test', type: 'SOA' })).answer[0]!.data.split(/\s+/)[2],
  );
  assert.ok(freshSerial >= serialAfter, `a server started later: serial ${freshSerial}, before ${serialAfter}`);
  await users.root.delete().key('/skydns-clusters/dc1/test/all/serial-probe/x1');

  const restartedAt = Date.now();
  controllers.dc2 = await startSpoke('dc2');
  await waitUntil(
    "dc2's records back in the answers",
    async () => ((await addresses('www.all.test')).length === 2 ? true : undefined),
    20_000,
  );
  t.diagnostic(`dc2's records back ${Date.now() - restartedAt} ms after its controller was started again`);
  assert.deepEqual(await addresses('www.fail.test'), [ADDRESS.dc2]);
  assert.deepEqual(await addresses('first-dc2.all.test'), [ADDRESS.dc2]);
  assert.equal((await summary()).clusters[1].counts, true);
});

test('a bad hub config fails start-up naming the field', async () => {
  const config = join(tempDir('hub-config'), 'bad.json');
  writeFileSync(config, JSON.stringify({ hub: { ...HUB, zones: [{ zone: 'fail.test', policy: 'failover' }] } }));
  const run = await promisify(execFile)(nodeBin, [
    etcdnsBin,
    'server',
    '--etcd',
    etcd.endpoint,
    '--zone',
    'fail.test',
    '--config',
    config,
  ]).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal(run.code, 2);
  assert.match(run.stderr, /hub\.zones\[0\]\.order \(file .*\): is required with policy "failover"/);
});
