// Side by side with the real external-dns v0.22 on the sources of today: the same Gateways,
// routes (each kind) and DNSEndpoints in one kube-apiserver (the Gateway API CRDs v1.6.3 with the
// experimental TLS/TCP/UDP routes external-dns reads at v1alpha2, and the DNSEndpoint CRD etcdns
// synthesizes), external-dns (CoreDNS provider, TXT registry) writing one etcd, our controller
// another, each read by our DNS server. Every published name is asked of both: the answers must
// be the same except for the differences listed, each with its reason (the controller README,
// "Differences from external-dns", says the same). Route names must be identical: there the two
// read the same rules.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { answerData, dig } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import {
  createDnsEndpoint,
  createGateway,
  createRoute,
  installDnsEndpointCrd,
  installGatewayApiCrds,
  type RouteSpec,
} from '../../../support/gateway-api.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { stopAll } from '../../../support/process.ts';
import {
  assertBothAnswer,
  compareAnswers,
  externalDnsRegistryNames,
  syncBoth,
} from '../../../support/side-by-side-steps.ts';

const H = 'external-dns.kubernetes.io/'; // external-dns v0.22 reads only this prefix by default
const ROUTE_SOURCES = [
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
];
const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'MX', 'NS', 'PTR'];

let kube: KubeHandle;
let ours: EtcdnsServerHandle;
let theirs: EtcdnsServerHandle;
let theirsEtcd: EtcdHandle;

/**
 * Why the answers differ, by name ("name": every type; "name TYPE": that type). Every other
 * question must be answered the same; each reason is in the controller README's "Differences
 * from external-dns". The TXT registry names external-dns publishes are found in its etcd.
 */
const EXPECTED_DIFFERENCES: Record<string, string> = {
  // Its CoreDNS provider writes an SRV or MX target as raw text in "host"
  // ("10 60 5060 sip.example.org"): no name, the entry is skipped, the name does not exist.
  '_sip._tcp.example.org.': 'SRV written as raw text',
  'mx.example.org.': 'MX written as raw text',
  // It keeps the first of a TXT endpoint's targets.
  'txt.example.org. TXT': 'one TXT string of several',
  // A TXT beside an A at one name: it puts the text into the A's entry, which answers no TXT.
  'both.example.org. TXT': 'TXT beside an A',
  // It keeps the capitalised dnsName in the key, where no query finds it.
  'caps.example.org.': 'capitalised dnsName',
  // NS: it writes the name server as a child entry of the name (an alias to it), not a delegation.
  'sub.example.org.': 'NS as an alias, not a delegation',
  'www.sub.example.org.': 'NS as an alias, not a delegation',
};

/** The route names both must publish identically: name -> targets. */
const ROUTE_NAMES: Record<string, string[]> = {
  'web.example.org.': ['10.9.0.1'],
  'a.example.org.': ['10.9.0.1', '203.0.113.7'],
  'b.example.org.': ['10.9.0.1', '203.0.113.7'],
  'app.example.org.': ['10.9.0.2'],
  'ann.example.org.': ['10.9.0.1'],
  'only-ann.example.org.': ['10.9.0.1'],
  'defined.example.org.': ['10.9.0.1'],
  'team.example.org.': ['10.9.0.3'],
  'rpc.example.org.': ['10.9.0.1'],
  'tls.example.org.': ['10.9.0.1'],
  'db.example.org.': ['10.9.0.1'],
  'game.example.org.': ['10.9.0.1'],
  'lb.example.org.': ['gw.lb.example.net.'],
};
/** Names neither publishes: not accepted, not admitted, hostname outside the listener's. */
const ROUTE_ABSENT = [
  'pending.example.org.',
  'same-only.example.org.',
  'other-team.example.org.',
  'outside.example.net.',
  'ignored-ann.example.org.',
];
/** The DNSEndpoint names etcdns publishes, by type. */
const ENDPOINT_NAMES: [string, string][] = [
  ['static.example.org.', 'A'],
  ['static.example.org.', 'AAAA'],
  ['alias.example.org.', 'CNAME'],
  ['txt.example.org.', 'TXT'],
  ['both.example.org.', 'A'],
  ['both.example.org.', 'TXT'],
  ['_sip._tcp.example.org.', 'SRV'],
  ['mx.example.org.', 'MX'],
  ['sub.example.org.', 'NS'],
  ['20.176.9.10.in-addr.arpa.', 'PTR'],
  ['caps.example.org.', 'A'],
];

const figures: string[] = [];

before(async () => {
  kube = await startKubeApiserver();
  const [etcdOurs, etcdTheirs] = await Promise.all([startEtcd(), startEtcd()]);
  theirsEtcd = etcdTheirs;
  const zones = ['example.org', '176.9.10.in-addr.arpa'];
  [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcdOurs.endpoints, zones }),
    startEtcdnsServer({ etcdEndpoints: etcdTheirs.endpoints, zones }),
  ]);
  await installGatewayApiCrds(kube.admin);
  await installDnsEndpointCrd(kube.admin);
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'infra' } } });
  await core.createNamespace({ body: { metadata: { name: 'apps', labels: { team: 'a' } } } });
  await core.createNamespace({ body: { metadata: { name: 'others', labels: { team: 'b' } } } });
  await core.createNamespace({ body: { metadata: { name: 'dns' } } });
  const all = { namespaces: { from: 'All' } };
  await createGateway(kube.admin, {
    name: 'public',
    namespace: 'infra',
    addresses: ['10.9.0.1'],
    listeners: [
      { name: 'http', protocol: 'HTTP', port: 80, hostname: '*.example.org', allowedRoutes: all },
      { name: 'https', protocol: 'HTTPS', port: 443, allowedRoutes: all },
      { name: 'tls', protocol: 'TLS', port: 8443, allowedRoutes: all },
      { name: 'tcp', protocol: 'TCP', port: 5432, allowedRoutes: all },
      { name: 'udp', protocol: 'UDP', port: 7777, hostname: 'game.example.org', allowedRoutes: all },
    ],
  });
  await createGateway(kube.admin, {
    name: 'app',
    namespace: 'infra',
    addresses: ['10.9.0.2'],
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80, hostname: 'app.example.org', allowedRoutes: all }],
  });
  await createGateway(kube.admin, {
    name: 'teams',
    namespace: 'infra',
    addresses: ['10.9.0.3'],
    listeners: [
      {
        name: 'http',
        protocol: 'HTTP',
        port: 80,
        allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'a' } } } },
      },
    ],
  });
  await createGateway(kube.admin, {
    name: 'same',
    namespace: 'infra',
    addresses: ['10.9.0.4'],
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }],
  });
  await createGateway(kube.admin, {
    name: 'annotated',
    namespace: 'infra',
    addresses: ['10.9.0.5'],
    annotations: { [`${H}target`]: '203.0.113.7' },
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: all }],
  });
  await createGateway(kube.admin, {
    name: 'lb',
    namespace: 'infra',
    addresses: ['gw.lb.example.net'],
    listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: all }],
  });
  const route = (r: Omit<RouteSpec, 'namespace'> & { namespace?: string }) =>
    createRoute(kube.admin, { namespace: 'apps', ...r });
  const via = (name: string, sectionName?: string) => [
    { name, namespace: 'infra', ...(sectionName ? { sectionName } : {}) },
  ];
  await route({ kind: 'HTTPRoute', name: 'web', hostnames: ['web.example.org'], parents: via('public', 'http') });
  await route({
    kind: 'HTTPRoute',
    name: 'multi',
    hostnames: ['a.example.org', 'b.example.org'],
    parents: [...via('public', 'http'), ...via('annotated')],
  });
  await route({ kind: 'HTTPRoute', name: 'nohost', parents: via('app') });
  await route({
    kind: 'HTTPRoute',
    name: 'ann',
    hostnames: ['ann.example.org'],
    annotations: { [`${H}hostname`]: 'outside.example.net' },
    parents: via('public', 'http'),
  });
  await route({
    kind: 'HTTPRoute',
    name: 'only-ann',
    hostnames: ['ignored-ann.example.org'],
    annotations: { [`${H}hostname`]: 'only-ann.example.org', [`${H}gateway-hostname-source`]: 'annotation-only' },
    parents: via('public', 'http'),
  });
  await route({
    kind: 'HTTPRoute',
    name: 'defined',
    hostnames: ['defined.example.org'],
    annotations: { [`${H}hostname`]: 'ignored-ann.example.org', [`${H}gateway-hostname-source`]: 'defined-hosts-only' },
    parents: via('public', 'http'),
  });
  await route({
    kind: 'HTTPRoute',
    name: 'pending',
    hostnames: ['pending.example.org'],
    parents: via('public', 'http'),
    accepted: false,
  });
  await route({ kind: 'HTTPRoute', name: 'same-only', hostnames: ['same-only.example.org'], parents: via('same') });
  await route({ kind: 'HTTPRoute', name: 'team', hostnames: ['team.example.org'], parents: via('teams') });
  await route({
    kind: 'HTTPRoute',
    name: 'other-team',
    namespace: 'others',
    hostnames: ['other-team.example.org'],
    parents: via('teams'),
  });
  await route({ kind: 'HTTPRoute', name: 'lb', hostnames: ['lb.example.org'], parents: via('lb') });
  await route({ kind: 'GRPCRoute', name: 'rpc', hostnames: ['rpc.example.org'], parents: via('public', 'https') });
  await route({ kind: 'TLSRoute', name: 'tls', hostnames: ['tls.example.org'], parents: via('public', 'tls') });
  await route({
    kind: 'TCPRoute',
    name: 'db',
    annotations: { [`${H}hostname`]: 'db.example.org' },
    parents: via('public', 'tcp'),
  });
  await route({ kind: 'UDPRoute', name: 'game', parents: via('public', 'udp') });

  await createDnsEndpoint(kube.admin, {
    name: 'static',
    namespace: 'dns',
    endpoints: [
      { dnsName: 'static.example.org', recordType: 'A', targets: ['192.0.2.10', '192.0.2.11'], recordTTL: 120 },
      { dnsName: 'static.example.org', recordType: 'AAAA', targets: ['2001:db8::10'] },
      { dnsName: 'alias.example.org', recordType: 'CNAME', targets: ['static.example.org'] },
      { dnsName: 'txt.example.org', recordType: 'TXT', targets: ['first', 'second'] },
      { dnsName: 'both.example.org', recordType: 'A', targets: ['192.0.2.12'] },
      { dnsName: 'both.example.org', recordType: 'TXT', targets: ['beside an A'] },
      { dnsName: '_sip._tcp.example.org', recordType: 'SRV', targets: ['10 60 5060 sip.example.org'] },
      { dnsName: 'mx.example.org', recordType: 'MX', targets: ['10 mail.example.org'] },
      { dnsName: 'sub.example.org', recordType: 'NS', targets: ['ns1.other.net'] },
      { dnsName: '20.176.9.10.in-addr.arpa', recordType: 'PTR', targets: ['static.example.org'] },
      { dnsName: 'Caps.Example.org', recordType: 'A', targets: ['192.0.2.13'] },
    ],
  });

  figures.push(
    ...(await syncBoth({
      kubeconfigFile: kube.kubeconfigFile,
      oursEtcd: etcdOurs,
      theirsEtcd: etcdTheirs,
      sources: [...ROUTE_SOURCES, 'crd'],
      domains: ['example.org', '176.9.10.in-addr.arpa'],
      types: TYPES,
    })),
  );
});
after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

test('routes: every name external-dns publishes, etcdns publishes with the same targets; the same names are left out', async () => {
  for (const [name, want] of Object.entries(ROUTE_NAMES)) {
    await assertBothAnswer({ ours, theirs }, name, want[0]!.endsWith('.') ? 'CNAME' : 'A', want);
  }
  for (const name of ROUTE_ABSENT)
    for (const server of [ours, theirs]) {
      // A name outside every zone is refused, as any authoritative server refuses it.
      const status = (await dig({ port: server.port, name })).status;
      assert.equal(status, name.endsWith('.example.org.') ? 'NXDOMAIN' : 'REFUSED', name);
    }
  figures.push(`routes: ${Object.keys(ROUTE_NAMES).length} names same, ${ROUTE_ABSENT.length} left out by both`);
});

test('DNSEndpoints: etcdns answers each record as the endpoint says', async () => {
  const want: Record<string, string[]> = {
    'static.example.org. A': ['192.0.2.10', '192.0.2.11'],
    'static.example.org. AAAA': ['2001:db8::10'],
    'alias.example.org. CNAME': ['static.example.org.'],
    'txt.example.org. TXT': ['"first"', '"second"'],
    'both.example.org. A': ['192.0.2.12'],
    'both.example.org. TXT': ['"beside an A"'],
    '_sip._tcp.example.org. SRV': ['10 100 5060 sip.example.org.'],
    'mx.example.org. MX': ['10 mail.example.org.'],
    '20.176.9.10.in-addr.arpa. PTR': ['static.example.org.'],
    'caps.example.org. A': ['192.0.2.13'],
  };
  for (const [name, type] of ENDPOINT_NAMES) {
    if (type === 'NS') continue;
    assert.deepEqual(
      answerData(await dig({ port: ours.port, name, type }), type),
      want[`${name} ${type}`],
      `${name} ${type}`,
    );
  }
  const referral = await dig({ port: ours.port, name: 'www.sub.example.org' });
  assert.deepEqual(
    referral.authority.map((r) => `${r.type} ${r.data}`),
    ['NS ns1.other.net.'],
  );
});

test('every published name, every type: the same answers as external-dns except the listed differences', async () => {
  const registry = await externalDnsRegistryNames(theirsEtcd);
  assert.ok(registry.size >= 20, `external-dns's registry names: ${[...registry].join(', ')}`);
  const result = await compareAnswers({
    ours,
    theirs,
    types: TYPES,
    expected: EXPECTED_DIFFERENCES,
    registry,
    groups: [
      ['routes', [...Object.keys(ROUTE_NAMES), ...ROUTE_ABSENT]],
      ['DNSEndpoints', [...new Set([...ENDPOINT_NAMES.map(([n]) => n), 'www.sub.example.org.'])]],
      ['registry', [...registry].sort()],
    ],
  });
  figures.push(...result.figures);
  assert.deepEqual(result.unexpected, {}, JSON.stringify(result.unexpected, null, 2));
  const vanished = Object.keys(EXPECTED_DIFFERENCES).filter((k) => !result.seen.has(k));
  assert.deepEqual(vanished, [], 'each listed difference still shows');
});
