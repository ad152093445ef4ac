// A hub's etcd reached by its spokes (issue 34): `etcd.spokeService` renders a Service of its own
// for etcd's client port (the DNS Service's load-balancer rule), etcd's NetworkPolicy admits the
// clusters' `etcdClientCidrs` to that port and no other, and cert-manager's server certificate
// names what the spokes dial; bad props fail synth naming the field (one row per mistake).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import type { ClusterProps } from '../../../src/constructs/etcd/member-clusters.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { assertRefused } from '../../support/config-refusal.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DC1: ClusterProps = { name: 'dc1', suffixes: ['dc1.example.org'], etcdClientCidrs: ['10.1.0.0/24'] };
const DC2: ClusterProps = {
  name: 'dc2',
  suffixes: ['dc2.example.org'],
  etcdClientCidrs: ['10.2.0.0/24', '10.1.0.0/24'],
};
const TLS = { serverSecret: 'etcd-server-tls', clientSecret: 'etcd-client-tls' };
const HUB: DnsStackProps = {
  zones: [{ name: 'example.org' }],
  etcd: { tls: TLS, spokeService: { loadBalancer: { addresses: ['192.0.2.79'], implementation: 'metallb' } } },
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [DC1, DC2],
};
const withService = (spokeService: NonNullable<DnsStackProps['etcd']>['spokeService']): DnsStackProps => ({
  ...HUB,
  etcd: { ...HUB.etcd, spokeService },
});

const find = (props: DnsStackProps, kind: string, name: string) =>
  (synthObjects(props) as Json[]).find((o) => o.kind === kind && o.metadata.name === name);

const TO_CLIENT_PORT = {
  selector: { 'app.kubernetes.io/component': 'etcd', 'app.kubernetes.io/name': 'etcdns' },
  ports: [{ name: 'client', port: 2379, targetPort: 'client', protocol: 'TCP' }],
};
// [what, hub props, the spoke Service's annotations and spec]
const serviceCases: [string, DnsStackProps, Json][] = [
  [
    'a MetalLB address, the client port, source addresses kept',
    HUB,
    {
      annotations: { 'metallb.universe.tf/loadBalancerIPs': '192.0.2.79' },
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        ...TO_CLIENT_PORT,
      },
    },
  ],
  [
    'Cilium, dual-stack, a class and a pool annotation',
    withService({
      loadBalancer: { addresses: ['192.0.2.79', '2001:db8::79'], implementation: 'cilium' },
      loadBalancerClass: 'io.cilium/bgp-control-plane',
      annotations: { 'lbipam.cilium.io/sharing-key': 'dns' },
    }),
    {
      annotations: { 'lbipam.cilium.io/ips': '192.0.2.79,2001:db8::79', 'lbipam.cilium.io/sharing-key': 'dns' },
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        loadBalancerClass: 'io.cilium/bgp-control-plane',
        ...TO_CLIENT_PORT,
      },
    },
  ],
  [
    'the deprecated spec.loadBalancerIP',
    withService({ loadBalancer: { addresses: ['192.0.2.79'], implementation: 'spec' } }),
    {
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        loadBalancerIP: '192.0.2.79',
        ...TO_CLIENT_PORT,
      },
    },
  ],
  [
    'a fixed node port, every node answering',
    withService({
      type: 'NodePort',
      nodePort: 32379,
      externalTrafficPolicy: 'Cluster',
      names: ['etcd.hub.example.org'],
    }),
    {
      spec: {
        type: 'NodePort',
        externalTrafficPolicy: 'Cluster',
        selector: { 'app.kubernetes.io/component': 'etcd', 'app.kubernetes.io/name': 'etcdns' },
        ports: [{ name: 'client', port: 2379, targetPort: 'client', protocol: 'TCP', nodePort: 32379 }],
      },
    },
  ],
];
for (const [what, props, expected] of serviceCases)
  test(`the hub's spoke Service: ${what}`, () => {
    const service = find(props, 'Service', 'etcdns-etcd-spokes');
    assert.ok(service, 'rendered');
    assert.deepEqual(service.metadata.annotations, expected.annotations);
    assert.deepEqual(service.spec, expected.spec);
  });

test('without spokeService etcd has no Service beyond its ClusterIP and headless ones', () => {
  const services = (synthObjects({ ...HUB, etcd: { tls: TLS } }) as Json[]).filter(
    (o) => o.kind === 'Service' && o.metadata.labels['app.kubernetes.io/component'] === 'etcd',
  );
  assert.deepEqual(services.map((s) => [s.metadata.name, s.spec.type ?? 'ClusterIP']).sort(), [
    ['etcdns-etcd', 'ClusterIP'],
    ['etcdns-etcd-peer', 'ClusterIP'],
  ]);
});

const etcdIngress = (props: DnsStackProps) =>
  find(props, 'NetworkPolicy', 'etcdns-etcd')?.spec.ingress as Json[] | undefined;
const fromCidrs = (rules: Json[], port: string) =>
  rules
    .filter((r) => r.ports.some((p: Json) => p.port === port))
    .flatMap((r) => r.from.filter((f: Json) => f.ipBlock).map((f: Json) => f.ipBlock.cidr as string));

// [what, hub props, CIDRs admitted to the client port, to the peer port]
const policyCases: [string, DnsStackProps, string[], string[]][] = [
  ["with spokeService: every cluster's networks, each once, sorted", HUB, ['10.1.0.0/24', '10.2.0.0/24'], []],
  ['without spokeService: no network', { ...HUB, etcd: { tls: TLS } }, [], []],
];
for (const [what, props, client, peer] of policyCases)
  test(`etcd's NetworkPolicy on a hub: ${what}`, () => {
    const ingress = etcdIngress(props)!;
    assert.deepEqual(fromCidrs(ingress, 'client'), client);
    assert.deepEqual(fromCidrs(ingress, 'peer'), peer);
    assert.deepEqual(fromCidrs(ingress, 'metrics'), []);
  });

test('networkPolicy off: the clusters need no etcdClientCidrs and no policy is rendered', () => {
  const props: DnsStackProps = {
    ...HUB,
    clusters: [{ name: 'dc1', suffixes: ['dc1.example.org'] }],
    networkPolicy: { enabled: false },
  };
  assert.equal(etcdIngress(props), undefined);
  assert.ok(find(props, 'Service', 'etcdns-etcd-spokes'));
});

const serverCertificate = (props: DnsStackProps) =>
  find(props, 'Certificate', 'etcd-server-tls')!.spec as { dnsNames: string[]; ipAddresses: string[] };
const CERT_MANAGER = { ...TLS, certManager: { issuerName: 'hub-ca' } };
// [what, spokeService, extra DNS names, IP addresses]
const sanCases: [string, NonNullable<DnsStackProps['etcd']>['spokeService'], string[], string[]][] = [
  [
    "the load balancer's address",
    { loadBalancer: { addresses: ['192.0.2.79'], implementation: 'metallb' } },
    [],
    ['127.0.0.1', '192.0.2.79'],
  ],
  [
    'a host name and an address, besides the load balancer, each once',
    {
      loadBalancer: { addresses: ['192.0.2.79', '2001:db8::79'], implementation: 'kube-vip' },
      names: ['etcd.hub.example.org', '198.51.100.7', '192.0.2.79'],
    },
    ['etcd.hub.example.org'],
    ['127.0.0.1', '192.0.2.79', '2001:db8::79', '198.51.100.7'],
  ],
  [
    "a node port's names",
    { type: 'NodePort', names: ['hub-nodes.example.org'] },
    ['hub-nodes.example.org'],
    ['127.0.0.1'],
  ],
];
const IN_CLUSTER = serverCertificate({ ...HUB, etcd: { tls: CERT_MANAGER } }).dnsNames;
for (const [what, spokeService, dnsNames, ipAddresses] of sanCases)
  test(`etcd's server certificate names what the spokes dial: ${what}`, () => {
    const spec = serverCertificate({ ...HUB, etcd: { tls: CERT_MANAGER, spokeService } });
    assert.deepEqual(spec.dnsNames, [...IN_CLUSTER, ...dnsNames]);
    assert.deepEqual(spec.ipAddresses, ipAddresses);
  });

// [what, hub props, field named, what is allowed (a fragment of the message)]
const refusals: [string, DnsStackProps, string, string][] = [
  [
    'spokeService without clusters',
    { zones: HUB.zones, etcd: HUB.etcd, etcdRoles: HUB.etcdRoles },
    'etcd.spokeService',
    'needs clusters',
  ],
  [
    'a cluster without etcdClientCidrs',
    { ...HUB, clusters: [DC1, { name: 'dc2', suffixes: ['dc2.example.org'] }] },
    'clusters[1].etcdClientCidrs',
    'required with etcd.spokeService',
  ],
  [
    'an etcdClientCidrs entry that is no CIDR',
    { ...HUB, clusters: [{ ...DC1, etcdClientCidrs: ['10.1.0.0/33'] }] },
    'clusters[0].etcdClientCidrs[0]',
    '',
  ],
  [
    'no address or name the spokes dial',
    withService({}),
    'etcd.spokeService.names',
    'required without loadBalancer.addresses',
  ],
  ['a name that is no host name', withService({ names: ['etcd hub'] }), 'etcd.spokeService.names[0]', ''],
  [
    'a name with a final dot',
    withService({ names: ['etcd.hub.example.org.'] }),
    'etcd.spokeService.names[0]',
    'without the final dot',
  ],
  [
    'type ClusterIP',
    withService({ type: 'ClusterIP' as 'NodePort', names: ['h.example.org'] }),
    'etcd.spokeService.type',
    '"NodePort"',
  ],
  [
    'a load balancer with a node port Service',
    withService({ type: 'NodePort', loadBalancer: { addresses: ['192.0.2.79'], implementation: 'metallb' } }),
    'etcd.spokeService.loadBalancer',
    'only allowed with type "LoadBalancer"',
  ],
  [
    'a node port with a load balancer',
    withService({ nodePort: 32379, names: ['h.example.org'] }),
    'etcd.spokeService.nodePort',
    'only allowed with type "NodePort"',
  ],
  [
    'a load-balancer address that is no address',
    withService({ loadBalancer: { addresses: ['hub'], implementation: 'metallb' } }),
    'etcd.spokeService.loadBalancer.addresses[0]',
    'IPv4 or IPv6',
  ],
  [
    "the implementation's annotation given by hand",
    withService({
      loadBalancer: { addresses: ['192.0.2.79'], implementation: 'metallb' },
      annotations: { 'metallb.universe.tf/loadBalancerIPs': '192.0.2.80' },
    }),
    'etcd.spokeService.annotations',
    'loadBalancer writes it',
  ],
  [
    'an unknown traffic policy',
    withService({ names: ['h.example.org'], externalTrafficPolicy: 'Node' as 'Local' }),
    'etcd.spokeService.externalTrafficPolicy',
    '"Local"',
  ],
];
for (const [what, props, field, allowed] of refusals)
  test(`hub rejected: ${what}`, () => assertRefused(() => synthObjects(props), field, allowed));
