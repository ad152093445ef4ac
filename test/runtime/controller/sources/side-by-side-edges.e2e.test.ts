// Side by side with the real external-dns v0.22 on the edge sources: the same Contour HTTPProxies,
// OpenShift Routes (the real CRDs: Contour v1.33.6's, openshift/api's), Nodes and Pods in one
// kube-apiserver, their statuses set through /status as Contour, a router and the kubelet would;
// external-dns (CoreDNS provider, TXT registry) writes one etcd, our controller another, each read
// by our DNS server. Every name is asked of both: the answers must be the same except for the
// differences listed, each with its reason (docs/sources.md says the same). Then a Node with only
// a Hostname address: external-dns exits without publishing anything, etcdns skips that Node.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { SourceKind } from '../../../../src/config/source-kinds.ts';
import { answerData, dig } from '../../../support/dig.ts';
import { installEdgeCrds } from '../../../support/crds.ts';
import { createHttpProxy, createNode, createOpenShiftRoute, createPod } from '../../../support/edge-objects.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { runExternalDns } from '../../../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { stopAll } from '../../../support/process.ts';
import {
  assertBothAnswer,
  compareAnswers,
  externalDnsRegistryNames,
  syncBoth,
} from '../../../support/side-by-side-steps.ts';
import { controllerKubeconfig, runOnce } from '../controller-harness.ts';

const H = 'external-dns.kubernetes.io/'; // external-dns v0.22 reads only this prefix by default
const SOURCES: SourceKind[] = ['contour-httpproxy', 'openshift-route', 'node', 'pod'];
const POD_DOMAIN = 'pods.example.org';
const TYPES = ['A', 'AAAA', 'CNAME', 'TXT'];

let kube: KubeHandle;
let ours: EtcdnsServerHandle;
let theirs: EtcdnsServerHandle;
let oursEtcd: EtcdHandle;
let theirsEtcd: EtcdHandle;

/** The names both must publish identically, by source: "name TYPE" -> targets. */
const SAME: Record<string, Record<string, string[]>> = {
  'contour-httpproxy': {
    'web.example.org. A': ['10.9.1.1'],
    'dual.example.org. A': ['10.9.1.2'],
    'dual.example.org. AAAA': ['2001:db8:9::2'],
    'cname.example.org. CNAME': ['lb.example.net.'],
    'fqdn.example.org. A': ['10.9.1.3'],
    'extra.example.org. A': ['10.9.1.3'],
    'target.example.org. A': ['192.0.2.50'],
  },
  'openshift-route': {
    'route.example.org. CNAME': ['router-default.apps.example.net.'],
    'second.example.org. CNAME': ['router-internal.apps.example.net.'],
    'route-target.example.org. A': ['192.0.2.60'],
    'route-alias.example.org. CNAME': ['router-default.apps.example.net.'],
  },
  node: {
    'n1.nodes.example.org. A': ['203.0.113.11'],
    'n2.nodes.example.org. A': ['10.8.0.2'],
    'n2.nodes.example.org. AAAA': ['fd00:8::2'],
    'n4.nodes.example.org. A': ['192.0.2.44'],
  },
  pod: {
    'hn-internal.pods.example.org. A': ['10.8.0.1'],
    'hn.pods.example.org. A': ['203.0.113.11'],
    'hn.pods.example.org. AAAA': ['fd00:8::1'],
    'app.pods.example.org. A': ['10.244.0.5'],
    'hostnet.pods.example.org. A': ['10.8.0.1'],
    'regular.pods.example.org. A': ['10.244.0.5'],
    'pinned.pods.example.org. A': ['192.0.2.70'],
    'pinned-name.pods.example.org. A': ['192.0.2.70'],
    'mixed.pods.example.org. A': ['10.244.0.5'],
  },
};
/** Names neither publishes: not admitted, unschedulable, no virtualhost. */
const ABSENT: Record<string, string[]> = {
  'contour-httpproxy': [],
  'openshift-route': ['refused.example.org.'],
  node: ['n3.nodes.example.org.'],
  pod: [],
};
/**
 * Why the answers differ, by name ("name": every type; "name TYPE": that type). Each reason is in
 * docs/sources.md, in the section of its source.
 */
const EXPECTED_DIFFERENCES: Record<string, string> = {
  // It keeps the hostname as written in the key, where no query finds it; etcdns lower-cases it.
  'mixed-proxy.example.org.': 'capitalised hostname',
  'shop.example.org.': 'capitalised hostname',
  'mixed-pod.pods.example.org.': 'capitalised hostname',
  // A pod without an IP yet: it writes a CNAME with an empty target; etcdns publishes nothing.
  'waiting.pods.example.org.': 'empty CNAME for a pod without an IP',
  'pending.pods.example.org.': 'empty CNAME for a pod without an IP',
};
/** The lower-case names etcdns publishes where external-dns keeps the case: "name TYPE" -> targets. */
const OURS_ONLY: Record<string, string[]> = {
  'mixed-proxy.example.org. A': ['10.9.1.1'],
  'shop.example.org. CNAME': ['router-default.apps.example.net.'],
  'mixed-pod.pods.example.org. A': ['10.244.0.5'],
};

const figures: string[] = [];

before(async () => {
  kube = await startKubeApiserver();
  const [etcdOurs, etcdTheirs] = await Promise.all([startEtcd(), startEtcd()]);
  [oursEtcd, theirsEtcd] = [etcdOurs, etcdTheirs];
  const zones = ['example.org'];
  [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcdOurs.endpoints, zones }),
    startEtcdnsServer({ etcdEndpoints: etcdTheirs.endpoints, zones }),
  ]);
  await installEdgeCrds(kube.admin, 'contour', 'openshift');
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  for (const name of ['web', 'edge']) {
    await core.createNamespace({ body: { metadata: { name } } });
    await core.createNamespacedServiceAccount({ namespace: name, body: { metadata: { name: 'default' } } });
  }

  // contour-httpproxy
  const proxy = (o: Omit<Parameters<typeof createHttpProxy>[1], 'namespace'>) =>
    createHttpProxy(kube.admin, { namespace: 'web', ...o });
  await proxy({ name: 'web', fqdn: 'web.example.org', addresses: ['10.9.1.1'] });
  await proxy({ name: 'dual', fqdn: 'dual.example.org', addresses: ['10.9.1.2', '2001:db8:9::2'] });
  await proxy({ name: 'cname', fqdn: 'cname.example.org', addresses: ['lb.example.net'] });
  await proxy({
    name: 'annotated',
    fqdn: 'fqdn.example.org',
    addresses: ['10.9.1.3'],
    annotations: { [`${H}hostname`]: 'extra.example.org', [`${H}ttl`]: '60' },
  });
  await proxy({
    name: 'target',
    fqdn: 'target.example.org',
    addresses: ['10.9.1.4'],
    annotations: { [`${H}target`]: '192.0.2.50' },
  });
  await proxy({ name: 'included', addresses: ['10.9.1.5'] });
  await proxy({
    name: 'mixed',
    addresses: ['10.9.1.1'],
    annotations: { [`${H}hostname`]: 'Mixed-Proxy.Example.org' },
  });

  // openshift-route
  const route = (o: Omit<Parameters<typeof createOpenShiftRoute>[1], 'namespace'>) =>
    createOpenShiftRoute(kube.admin, { namespace: 'web', ...o });
  const defaultRouter = { routerName: 'default', canonicalHostname: 'router-default.apps.example.net' };
  await route({
    name: 'route',
    host: 'route.example.org',
    routers: [defaultRouter],
    annotations: { [`${H}hostname`]: 'route-alias.example.org' },
  });
  await route({
    name: 'second',
    host: 'second.example.org',
    routers: [
      { ...defaultRouter, admitted: false },
      { routerName: 'internal', canonicalHostname: 'router-internal.apps.example.net' },
    ],
  });
  await route({ name: 'refused', host: 'refused.example.org', routers: [{ ...defaultRouter, admitted: false }] });
  await route({
    name: 'route-target',
    host: 'route-target.example.org',
    routers: [defaultRouter],
    annotations: { [`${H}target`]: '192.0.2.60' },
  });
  await route({ name: 'shop', host: 'Shop.example.org', routers: [defaultRouter] });

  // node
  await createNode(kube.admin, {
    name: 'n1.nodes.example.org',
    addresses: [
      ['InternalIP', '10.8.0.1'],
      ['InternalIP', 'fd00:8::1'],
      ['ExternalIP', '203.0.113.11'],
      ['Hostname', 'n1'],
    ],
  });
  await createNode(kube.admin, {
    name: 'n2.nodes.example.org',
    addresses: [
      ['InternalIP', '10.8.0.2'],
      ['InternalIP', 'fd00:8::2'],
    ],
  });
  await createNode(kube.admin, {
    name: 'n3.nodes.example.org',
    addresses: [['ExternalIP', '203.0.113.13']],
    unschedulable: true,
  });
  await createNode(kube.admin, {
    name: 'n4.nodes.example.org',
    addresses: [['InternalIP', '10.8.0.4']],
    annotations: { [`${H}target`]: '192.0.2.44' },
  });

  // pod (every pod also gets <name>.pods.example.org through --pod-source-domain)
  const pod = (o: Omit<Parameters<typeof createPod>[1], 'namespace' | 'nodeName'>) =>
    createPod(kube.admin, { namespace: 'edge', nodeName: 'n1.nodes.example.org', ...o });
  await pod({
    name: 'hostnet',
    hostNetwork: true,
    ip: '10.8.0.1',
    annotations: { [`${H}internal-hostname`]: 'hn-internal.pods.example.org', [`${H}hostname`]: 'hn.pods.example.org' },
  });
  await pod({ name: 'regular', ip: '10.244.0.5', annotations: { [`${H}internal-hostname`]: 'app.pods.example.org' } });
  await pod({ name: 'pending', annotations: { [`${H}internal-hostname`]: 'waiting.pods.example.org' } });
  await pod({
    name: 'pinned',
    ip: '10.244.0.6',
    annotations: { [`${H}internal-hostname`]: 'pinned-name.pods.example.org', [`${H}target`]: '192.0.2.70' },
  });
  await pod({
    name: 'mixed',
    ip: '10.244.0.5',
    annotations: { [`${H}internal-hostname`]: 'Mixed-Pod.pods.example.org' },
  });

  figures.push(
    ...(await syncBoth({
      kubeconfigFile: kube.kubeconfigFile,
      oursEtcd: etcdOurs,
      theirsEtcd: etcdTheirs,
      sources: SOURCES,
      domains: ['example.org'],
      types: TYPES,
      shared: [`--pod-source-domain=${POD_DOMAIN}`],
      // etcdns reads as its ClusterRole allows: exactly what the four sources need.
      oursKubeconfigFile: await controllerKubeconfig(kube, SOURCES),
    })),
  );
});
after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

const splitKey = (key: string) => key.split(' ') as [string, string];

for (const source of SOURCES)
  test(`${source}: the names external-dns publishes, etcdns publishes with the same targets; the same names are left out`, async () => {
    for (const [key, want] of Object.entries(SAME[source]!)) {
      const [name, type] = splitKey(key);
      await assertBothAnswer({ ours, theirs }, name, type, want);
    }
    for (const name of ABSENT[source]!)
      for (const server of [ours, theirs])
        assert.equal((await dig({ port: server.port, name })).status, 'NXDOMAIN', name);
  });

test('etcdns publishes capitalised hostnames lower-case, and nothing for a pod without an IP', async () => {
  for (const [key, want] of Object.entries(OURS_ONLY)) {
    const [name, type] = splitKey(key);
    assert.deepEqual(answerData(await dig({ port: ours.port, name, type }), type), want, key);
  }
  for (const name of ['waiting.pods.example.org.', 'pending.pods.example.org.'])
    assert.equal((await dig({ port: ours.port, name })).status, 'NXDOMAIN', name);
});

test('every name, every type: the same answers as external-dns except the listed differences', async () => {
  const registry = await externalDnsRegistryNames(theirsEtcd);
  const names = (source: string) => [
    ...new Set([...Object.keys(SAME[source]!).map((k) => splitKey(k)[0]), ...ABSENT[source]!]),
  ];
  const differing = Object.keys(EXPECTED_DIFFERENCES);
  const result = await compareAnswers({
    ours,
    theirs,
    types: TYPES,
    expected: EXPECTED_DIFFERENCES,
    registry,
    groups: [
      ...SOURCES.map((s): [string, string[]] => [s, names(s)]),
      ['differences', differing],
      ['registry', [...registry].sort()],
    ],
  });
  figures.push(...result.figures);
  assert.deepEqual(result.unexpected, {}, JSON.stringify(result.unexpected, null, 2));
  assert.deepEqual(
    differing.filter((k) => !result.seen.has(k)),
    [],
    'each listed difference still shows',
  );
});

test('a Node with only a Hostname address: external-dns publishes nothing of any source; etcdns skips that Node alone', async () => {
  await createNode(kube.admin, { name: 'bad.nodes.example.org', addresses: [['Hostname', 'bad']] });
  await createHttpProxy(kube.admin, {
    name: 'later',
    namespace: 'web',
    fqdn: 'later.example.org',
    addresses: ['10.9.1.9'],
  });
  await assert.rejects(
    runExternalDns({
      kubeconfigFile: kube.kubeconfigFile,
      etcdEndpoints: theirsEtcd.endpoints,
      args: [
        ...SOURCES.map((s) => `--source=${s}`),
        '--domain-filter=example.org',
        `--pod-source-domain=${POD_DOMAIN}`,
        '--txt-owner-id=theirs',
        '--registry=txt',
        '--policy=sync',
      ],
    }),
    /could not find node address/,
  );
  const once = await runOnce({
    kubeconfigFile: await controllerKubeconfig(kube, SOURCES),
    etcdEndpoints: [oursEtcd.endpoint],
    ownerId: 'ours',
    args: [
      ...SOURCES.flatMap((s) => ['--source', s]),
      ...['--domain-filter', 'example.org', '--pod-source-domain', POD_DOMAIN],
    ],
  });
  assert.equal(once.code, 0, once.stderr);
  assert.match(once.stdout + once.stderr, /NoAddress.*bad\.nodes\.example\.org|bad\.nodes\.example\.org.*NoAddress/);
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(answerData(await dig({ port: ours.port, name: 'later.example.org', type: 'A' }), 'A'), ['10.9.1.9']);
  assert.equal((await dig({ port: theirs.port, name: 'later.example.org' })).status, 'NXDOMAIN');
  assert.deepEqual(answerData(await dig({ port: ours.port, name: 'n1.nodes.example.org', type: 'A' }), 'A'), [
    '203.0.113.11',
  ]);
  assert.equal((await dig({ port: ours.port, name: 'bad.nodes.example.org' })).status, 'NXDOMAIN');
});
