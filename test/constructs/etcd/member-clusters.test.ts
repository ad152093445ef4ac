// Hub and spokes in the constructs (issue 34): the hub's etcd-roles Job gives each member cluster
// one user and role, readwrite on its own prefix only; a SpokeStack is the controller alone,
// logging in to the hub's etcd over TLS as its cluster's user and writing under its prefix; and
// a bad cluster list fails synth naming the field (one row per mistake).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import type { ClusterProps } from '../../../src/constructs/etcd/member-clusters.ts';
import type { SpokeStackProps } from '../../../src/constructs/spoke-stack.ts';
import { synthObjects, synthSpokeObjects } from '../../../src/constructs/synth-stack.ts';
import { assertRefused } from '../../support/config-refusal.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DC1: ClusterProps = { name: 'dc1', suffixes: ['dc1.example.org'] };
const DC2: ClusterProps = { name: 'dc2', suffixes: ['dc2.example.org', 'shop.example.org'] };
const HUB: DnsStackProps = {
  zones: [{ name: 'example.org' }],
  etcd: { tls: { serverSecret: 'etcd-server-tls', clientSecret: 'etcd-client-tls' } },
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [DC1, DC2],
};
const SPOKE: SpokeStackProps = {
  cluster: DC1,
  hub: { endpoints: ['https://etcd.hub.example.org:2379'], tlsSecret: 'hub-etcd-tls', passwordSecret: 'hub-etcd' },
};

const rolesJob = (props: DnsStackProps) => (synthObjects(props) as Json[]).find((o) => o.kind === 'Job')!;
const argsAfter = (args: string[], flag: string) => args.filter((_, i) => args[i - 1] === flag);

test("the hub's roles Job: exactly one role per cluster, readwrite on its own prefix, besides the stack's own (its server reading the clusters')", () => {
  const job = rolesJob(HUB);
  const args = job.spec.template.spec.containers[0].args as string[];
  assert.deepEqual(argsAfter(args, '--grant'), [
    'etcdns-controller=readwrite:/skydns/',
    'etcdns-server-internal=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
    'cluster-dc1=readwrite:/skydns-clusters/dc1/',
    'cluster-dc2=readwrite:/skydns-clusters/dc2/',
  ]);
  assert.deepEqual(
    argsAfter(args, '--user').filter((u) => u.startsWith('cluster-')),
    ['cluster-dc1=/etc/etcdns/etcd-users/cluster-dc1', 'cluster-dc2=/etc/etcdns/etcd-users/cluster-dc2'],
  );
  const secret = (job.spec.template.spec.volumes as Json[]).find((v) => v.name === 'etcd-users')!.secret;
  assert.deepEqual(
    (secret.items as Json[]).map((i) => i.key),
    ['cluster-dc1', 'cluster-dc2', 'controller', 'root', 'server-internal'],
  );
});

test('a hub without clusters renders the Job it rendered before (no cluster role)', () => {
  const args = rolesJob({ ...HUB, clusters: undefined }).spec.template.spec.containers[0].args as string[];
  assert.deepEqual(argsAfter(args, '--grant'), [
    'etcdns-controller=readwrite:/skydns/',
    'etcdns-server-internal=read:/skydns/',
  ]);
});

test('a spoke is the controller, its RBAC, its NetworkPolicy and its Namespace: no etcd, no DNS server, no Service, no Job', () => {
  const objects = synthSpokeObjects(SPOKE) as Json[];
  assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
    'ClusterRole/etcdns-controller',
    'ClusterRoleBinding/etcdns-controller',
    'ConfigMap/etcdns-controller',
    'Deployment/etcdns-controller',
    'Namespace/etcdns',
    'NetworkPolicy/etcdns-controller',
    'ServiceAccount/etcdns-controller',
  ]);
});

const spokePolicy = (props: SpokeStackProps) =>
  (synthSpokeObjects(props) as Json[]).find((o) => o.kind === 'NetworkPolicy')?.spec as Json | undefined;
const EGRESS = { apiServer: { cidrs: ['10.1.0.10/32'], ports: [6443] } };
const MONITORING_IN = [
  {
    from: [
      {
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['monitoring'] }],
        },
      },
    ],
    ports: [{ port: 'http', protocol: 'TCP' }],
  },
];
const DNS_OUT = {
  to: [
    {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
    },
  ],
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ],
};
// [what, spoke props, the controller policy's spec (undefined: none)]
const spokePolicyCases: [string, SpokeStackProps, Json | undefined][] = [
  [
    'by default: ingress only, the HTTP port from the monitoring namespace',
    SPOKE,
    {
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/name': 'etcdns' } },
      policyTypes: ['Ingress'],
      ingress: MONITORING_IN,
    },
  ],
  [
    'no metrics namespaces: nothing may connect',
    { ...SPOKE, networkPolicy: { metricsNamespaces: [] } },
    {
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/name': 'etcdns' } },
      policyTypes: ['Ingress'],
    },
  ],
  [
    "with egress: out to the cluster DNS, the API server and the hub's etcd addresses on the endpoints' ports",
    {
      ...SPOKE,
      hub: {
        ...SPOKE.hub,
        endpoints: ['https://etcd.hub.example.org:2379', 'https://192.0.2.11:32379'],
        cidrs: ['192.0.2.11/32', '192.0.2.10/32'],
      },
      networkPolicy: { egress: EGRESS },
    },
    {
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'controller', 'app.kubernetes.io/name': 'etcdns' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: MONITORING_IN,
      egress: [
        DNS_OUT,
        { to: [{ ipBlock: { cidr: '10.1.0.10/32' } }], ports: [{ port: 6443, protocol: 'TCP' }] },
        {
          to: [{ ipBlock: { cidr: '192.0.2.10/32' } }, { ipBlock: { cidr: '192.0.2.11/32' } }],
          ports: [
            { port: 2379, protocol: 'TCP' },
            { port: 32379, protocol: 'TCP' },
          ],
        },
      ],
    },
  ],
  ['switched off', { ...SPOKE, networkPolicy: { enabled: false } }, undefined],
];
for (const [what, props, spec] of spokePolicyCases)
  test(`a spoke's controller NetworkPolicy: ${what}`, () => assert.deepEqual(spokePolicy(props), spec));

test("a spoke's controller logs in to the hub's etcd over TLS as its cluster's user and writes its cluster's names only", () => {
  const objects = synthSpokeObjects(SPOKE) as Json[];
  const config = JSON.parse(objects.find((o) => o.kind === 'ConfigMap')!.data['config.json']) as Json;
  assert.equal(config.cluster, 'dc1');
  assert.equal(config.prefix, undefined);
  assert.equal(config.views, undefined);
  assert.deepEqual(config.domainFilter, ['dc1.example.org']);
  assert.deepEqual(config.claims, [{ suffix: 'dc1.example.org' }]);
  assert.equal(config.ownerId, 'dc1');
  assert.deepEqual(config.etcd, {
    endpoints: ['https://etcd.hub.example.org:2379'],
    tls: {
      caFile: '/etc/etcdns/etcd-tls/ca.crt',
      certFile: '/etc/etcdns/etcd-tls/tls.crt',
      keyFile: '/etc/etcdns/etcd-tls/tls.key',
    },
    auth: { username: 'cluster-dc1', passwordFile: '/etc/etcdns/etcd-auth/password' },
  });
  const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
  assert.deepEqual(
    (pod.volumes as Json[]).filter((v) => v.secret).map((v) => [v.secret.secretName, v.secret.items?.[0]?.key]),
    [
      ['hub-etcd', 'password'],
      ['hub-etcd-tls', undefined],
    ],
  );
});

test("a spoke's owner id, password key and Namespace follow its props", () => {
  const objects = synthSpokeObjects({
    ...SPOKE,
    namespace: { name: 'dns', create: false },
    ownership: { ownerId: 'dc1-dns' },
    hub: { ...SPOKE.hub, passwordKey: 'cluster-dc1' },
  }) as Json[];
  assert.ok(!objects.some((o) => o.kind === 'Namespace'));
  const config = JSON.parse(objects.find((o) => o.kind === 'ConfigMap')!.data['config.json']) as Json;
  assert.equal(config.ownerId, 'dc1-dns');
  assert.equal(config.etcd.auth.passwordFile, '/etc/etcdns/etcd-auth/cluster-dc1');
  assert.equal(objects.find((o) => o.kind === 'Deployment')!.metadata.namespace, 'dns');
});

// [what, hub props, field named, what is allowed (a fragment of the message)]
const hubCases: [string, DnsStackProps, string, string][] = [
  ['a cluster name with a dot', { ...HUB, clusters: [{ ...DC1, name: 'dc.1' }] }, 'clusters[0].name', 'cluster name'],
  ['an upper-case cluster name', { ...HUB, clusters: [{ ...DC1, name: 'DC1' }] }, 'clusters[0].name', 'lower-case'],
  [
    'a cluster name of 57 characters',
    { ...HUB, clusters: [{ ...DC1, name: 'a'.repeat(57) }] },
    'clusters[0].name',
    '1-56',
  ],
  [
    'a cluster listed twice',
    { ...HUB, clusters: [DC1, DC2, { ...DC1 }] },
    'clusters[2].name',
    `"dc1" is also clusters[0]'s`,
  ],
  [
    'a cluster without suffixes',
    { ...HUB, clusters: [{ ...DC1, suffixes: [] }] },
    'clusters[0].suffixes',
    'at least one',
  ],
  [
    'a suffix that is no name',
    { ...HUB, clusters: [{ ...DC1, suffixes: ['a b.example.org'] }] },
    'clusters[0].suffixes[0]',
    'domain name',
  ],
  [
    "a suffix outside the hub's zones",
    { ...HUB, clusters: [{ ...DC1, suffixes: ['dc1.example.com'] }] },
    'clusters[0].suffixes[0]',
    `inside none of the stack's zones ("example.org")`,
  ],
  ['an empty cluster list', { ...HUB, clusters: [] }, 'clusters', 'at least one cluster'],
  ['clusters without etcdRoles', { ...HUB, etcdRoles: undefined }, 'clusters', 'need etcdRoles'],
  ['clusters without etcd TLS', { ...HUB, etcd: {} }, 'clusters', 'need etcd.tls'],
  [
    "a view on the clusters' prefix",
    { ...HUB, views: [{ name: 'internal' }, { name: 'all', prefix: '/skydns-clusters' }] },
    'views[1].prefix',
    'overlaps the member clusters',
  ],
  [
    "a cluster whose etcd user is one of the stack's",
    { ...HUB, name: 'cluster', clusters: [{ ...DC1, name: 'controller' }] },
    'clusters[0].name',
    `"cluster-controller" is also one of the stack's own`,
  ],
];
for (const [what, props, field, allowed] of hubCases)
  test(`hub rejected: ${what}`, () => assertRefused(() => synthObjects(props), field, allowed));

// [what, spoke props, field named, what is allowed]
const spokeCases: [string, SpokeStackProps, string, string][] = [
  ['a bad cluster name', { ...SPOKE, cluster: { ...DC1, name: 'dc_1' } }, 'cluster.name', 'cluster name'],
  ['no cluster', { ...SPOKE, cluster: undefined as unknown as ClusterProps }, 'cluster', '{ name, suffixes }'],
  ['no suffixes', { ...SPOKE, cluster: { name: 'dc1' } as ClusterProps }, 'cluster.suffixes', 'list of domain names'],
  [
    'a plain-text hub',
    { ...SPOKE, hub: { ...SPOKE.hub, endpoints: ['http://hub:2379'] } },
    'hub.endpoints[0]',
    'https://HOST:PORT',
  ],
  ['no hub endpoints', { ...SPOKE, hub: { ...SPOKE.hub, endpoints: [] } }, 'hub.endpoints', "hub's etcd client URLs"],
  [
    'no TLS Secret',
    { ...SPOKE, hub: { ...SPOKE.hub, tlsSecret: undefined as unknown as string } },
    'hub.tlsSecret',
    'required',
  ],
  [
    'a bad Secret name',
    { ...SPOKE, hub: { ...SPOKE.hub, passwordSecret: 'Hub_Etcd' } },
    'hub.passwordSecret',
    'lower-case',
  ],
  ['a bad password key', { ...SPOKE, hub: { ...SPOKE.hub, passwordKey: 'a/b' } }, 'hub.passwordKey', 'Secret key'],
  ['a bad controller setting', { ...SPOKE, controller: { replicas: 0 } }, 'controller.replicas', 'from 1 to 10'],
  [
    "egress without the hub's addresses",
    { ...SPOKE, networkPolicy: { egress: EGRESS } },
    'hub.cidrs',
    'required with networkPolicy.egress',
  ],
  [
    'a hub address that is no CIDR',
    { ...SPOKE, hub: { ...SPOKE.hub, cidrs: ['hub.example.org'] } },
    'hub.cidrs[0]',
    '',
  ],
  [
    'egress without the API server',
    { ...SPOKE, hub: { ...SPOKE.hub, cidrs: ['192.0.2.10/32'] }, networkPolicy: { egress: {} as typeof EGRESS } },
    'networkPolicy.egress.apiServer',
    'required with egress',
  ],
  [
    'a bad metrics namespace',
    { ...SPOKE, networkPolicy: { metricsNamespaces: ['Mon'] } },
    'networkPolicy.metricsNamespaces[0]',
    '',
  ],
];
for (const [what, props, field, allowed] of spokeCases)
  test(`spoke rejected: ${what}`, () => assertRefused(() => synthSpokeObjects(props), field, allowed));
