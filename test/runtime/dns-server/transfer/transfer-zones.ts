// The zones the "answers equal the transfer" test loads into etcd, each a set of zones one
// etcdns serves and its secondaries transfer: the SkyDNS layout contract's examples with a row per
// answer rule, the CoreDNS interop fixture, and what the controller writes for Services and
// Ingresses of every kind its source tables cover (both views). Keys are relative to the prefix.
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import { encodeEntry } from '../../../../src/skydns/skydns-entry.ts';
import { planPrefix } from '../../../../src/runtime/controller/plan/plan.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { controllerViews } from '../../../../src/runtime/controller/views/controller-views.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { compileViews, viewRecords } from '../../../../src/runtime/controller/views/view-records.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import * as interop from '../interop-records.ts';

export interface ZoneSet {
  name: string;
  zones: string[];
  /** Key relative to the prefix -> value (an object is stored as JSON, a string as it is). */
  entries: Record<string, object | string>;
  /** Names asked besides those the test derives from the transferred zones. */
  names?: string[];
}

/**
 * docs/skydns-layout.md's examples, and one name per answer rule of the default mode (the rows
 * of resolver.test.ts's "the zone's answers" table, here asked of real secondaries).
 */
const LAYOUT: ZoneSet = {
  name: 'layout contract examples and answer rules',
  zones: ['example.org.', 'example.com.', '2.0.192.in-addr.arpa.'],
  entries: {
    'org/example/dns/ns/ns1': { host: '10.0.0.53' },
    'org/example/dns/apex/a1': { host: '10.0.0.80' },
    'org/example/dns/apex/m1': { host: 'mx.example.net', mail: true, priority: 10 },
    'org/example/dns/apex/t1': { text: 'v=spf1 -all' },
    'org/example/prod/www': { host: '10.0.0.1' },
    'org/example/nginx/3f1a9c2e': { host: '10.9.176.213', targetstrip: 1 },
    'org/example/web/_tcp/_http/s1': { host: '10.0.1.1', port: 8080 },
    'org/example/team/dns/ns/ns1': { host: '10.0.1.53' },
    'org/example/team/dns/ns/ns2': { host: 'ns.example.net' },
    'org/example/team/www': { host: '10.0.0.9' },
    // The same as a DNSEndpoint writes it: an NS naming a server below the cut, its address records.
    'org/example/ops/dns/ns/1a2b3c4d': { host: 'ns1.ops.example.org' },
    'org/example/ops/ns1/5e6f7a8b': { host: '10.0.2.53', targetstrip: 1 },
    'org/example/ops/ns1/9c0d1e2f': { host: '2001:db8::253', targetstrip: 1 },
    'org/example/ops/www/3a4b5c6d': { host: '10.0.2.9', targetstrip: 1 },
    'org/example/wild/*': { host: '10.0.4.1' },
    // An alias and a type its target lacks (AAAA), a dangling alias, a chain, a target outside
    // our zones, in another of our zones, and below a delegation.
    'org/example/alias': { host: 'www.prod.example.org', ttl: 90 },
    'org/example/dangling': { host: 'nothing.example.org' },
    'org/example/chain1': { host: 'chain2.example.org' },
    'org/example/chain2': { host: 'alias.example.org' },
    'org/example/outside': { host: 'target.example.net' },
    // A chain of 7 links: longer than Knot follows (5), answered whole by BIND and etcdns.
    ...Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [
        `org/example/long${i}`,
        { host: i < 6 ? `long${i + 1}.example.org` : 'www.prod.example.org' },
      ]),
    ),
    'org/example/other': { host: 'www.example.com' },
    'org/example/todeleg': { host: 'www.team.example.org' },
    'org/example/wildalias/*': { host: 'www.prod.example.org' },
    // An alias beside other data: the CNAME stands alone.
    'org/example/conflict': { host: 'www.prod.example.org' },
    'org/example/conflict/x1': { host: '10.0.0.5' },
    'org/example/both': { host: 'www.prod.example.org', text: 'registry text' },
    // Mixed TTLs in one RRset (A, and TXT).
    'org/example/mixed/x1': { host: '10.0.0.11', ttl: 60 },
    'org/example/mixed/x2': { host: '10.0.0.12', ttl: 120 },
    'org/example/mixed/t1': { text: 'one', ttl: 30 },
    'org/example/mixed/t2': { text: 'two' },
    // SRV only at service names or with a port; MX where `mail` says so.
    'org/example/plain': { host: '10.0.0.7' },
    'org/example/srvport': { host: 'www.prod.example.org', port: 443 },
    'org/example/_ldap/_tcp/dc': { host: 'dc1.example.org' },
    'org/example/dc1': { host: '10.0.0.20' },
    'org/example/mailer': { host: 'mx.example.net', mail: true, priority: 5 },
    'org/example/mailer2/m1': { host: '10.0.0.25', mail: true },
    'org/example/_dmarc': { text: 'v=DMARC1; p=none' },
    'org/example/_acme-challenge/www': { host: 'www.acme.example.net' },
    'com/example/dns/ns/ns1': { host: '10.0.0.53' },
    'com/example/www': { host: '10.1.0.1' },
    'com/example/back': { host: 'alias.example.org' },
    // A host name in a reverse zone is a PTR (two names on one address: two PTRs).
    'arpa/in-addr/192/0/2/dns/ns/ns1': { host: '10.0.0.53' },
    'arpa/in-addr/192/0/2/10': { host: 'www.prod.example.org' },
    'arpa/in-addr/192/0/2/11/3f1a9c2e': { host: 'web.example.org' },
    'arpa/in-addr/192/0/2/11/7b2d4e6f': { host: 'www.example.org', ttl: 60 },
  },
};

/** The CoreDNS interop fixture, with an apex NS where a zone has none (secondaries refuse such a zone). */
const INTEROP: ZoneSet = {
  name: 'CoreDNS interop fixture',
  zones: interop.ZONES,
  entries: {
    ...interop.ENTRIES,
    'com/example/dns/ns/ns1': { host: '10.0.0.53' },
    'arpa/in-addr/10/dns/ns/ns1': { host: '10.0.0.53' },
  },
  names: interop.NAMES.filter((n) => !n.includes('*') && interop.ZONES.some((z) => n.toLowerCase().endsWith(z))),
};

// --- what the controller writes ------------------------------------------------------------------

const A = 'external-dns.alpha.kubernetes.io/';
const SRV = 'etcdns.io/srv';
const meta = (name: string, annotations: Record<string, string>, namespace = 'default') => ({
  name,
  namespace,
  uid: `uid-${name}`,
  annotations,
});
const lb = (...targets: string[]) => ({
  loadBalancer: { ingress: targets.map((t) => (/[a-z]/.test(t) && !t.includes(':') ? { hostname: t } : { ip: t })) },
});
const http = { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 };

const SERVICES: V1Service[] = [
  // IPv4 and IPv6 under two names, SRV by configuration, PTRs for both names.
  {
    metadata: meta('web', { [`${A}hostname`]: 'web.example.org, www.example.org', [`${A}ttl`]: '120' }),
    spec: { type: 'LoadBalancer', ports: [http] },
    status: lb('10.9.176.213', '2001:db8::1'),
  },
  // A load balancer with a host name: a CNAME.
  {
    metadata: meta('lbname', { [`${A}hostname`]: 'lbname.example.org', [`${A}ttl`]: '90' }),
    spec: { type: 'LoadBalancer', ports: [http] },
    status: lb('lb.provider.example.net'),
  },
  // Two Services at one name with different TTLs: one record set, one TTL.
  {
    metadata: meta('shared-a', { [`${A}hostname`]: 'shared.example.org', [`${A}ttl`]: '60' }),
    spec: { type: 'LoadBalancer' },
    status: lb('10.9.176.214'),
  },
  {
    metadata: meta('shared-b', { [`${A}hostname`]: 'shared.example.org', [`${A}ttl`]: '600' }),
    spec: { type: 'LoadBalancer' },
    status: lb('10.9.176.215'),
  },
  // NodePort: node addresses, SRV at the node port plus external-dns's own _<service>._<proto>.
  {
    metadata: meta('np', { [`${A}hostname`]: 'np.example.org' }),
    spec: { type: 'NodePort', ports: [http] },
  },
  // Headless with SRV: pod names and one SRV per pod.
  {
    metadata: meta('db', { [`${A}hostname`]: 'db.example.org', [SRV]: 'true' }),
    spec: { type: 'ClusterIP', clusterIP: 'None', ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }] },
  },
  // ExternalName: a CNAME.
  {
    metadata: meta('ext', { [`${A}hostname`]: 'ext.example.org' }),
    spec: { type: 'ExternalName', externalName: 'api.partner.example.net' },
  },
];

const SLICES: V1EndpointSlice[] = [
  {
    addressType: 'IPv4',
    metadata: { name: 'db-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'db' } },
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    endpoints: [
      { addresses: ['10.9.176.30'], hostname: 'db-0', conditions: { ready: true } },
      { addresses: ['10.9.176.31'], hostname: 'db-1', conditions: { ready: true } },
    ],
  },
];

const NODES: V1Node[] = [
  { metadata: { name: 'n1' }, status: { addresses: [{ type: 'ExternalIP', address: '10.9.176.1' }] } },
  { metadata: { name: 'n2' }, status: { addresses: [{ type: 'ExternalIP', address: '10.9.176.2' }] } },
];

const INGRESSES: V1Ingress[] = [
  {
    metadata: { ...meta('shop', {}, 'web'), labels: { expose: 'yes' } },
    spec: { ingressClassName: 'public', rules: [{ host: 'shop.example.org' }], tls: [{ hosts: ['pay.example.org'] }] },
    status: { loadBalancer: { ingress: [{ ip: '10.9.176.220' }] } },
  },
];

const CONTROLLER_ZONES = ['example.org.', '176.9.10.in-addr.arpa.', '8.b.d.0.1.0.0.2.ip6.arpa.'];
const EXTERNAL_ZONES = ['example.org.', '113.0.203.in-addr.arpa.'];

/** What the controller writes for the objects above into each view's prefix (a full plan from nothing). */
function controllerEntries(): Record<string, object | string>[] {
  const views = compileViews(
    controllerViews({
      views: [
        { name: 'internal', prefix: '/skydns' },
        {
          name: 'external',
          prefix: '/skydns-ext',
          exposure: 'external',
          zones: ['example.org'],
          rules: [{ name: 'map', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } } }],
        },
      ],
    }),
    [{ network: '10.9.176.0/24' }, { network: '2001:db8::/32' }, { network: '203.0.113.0/24' }],
  );
  const snapshot = { services: SERVICES, ingresses: INGRESSES, endpointSlices: SLICES, nodes: NODES };
  const sources = desiredRecords(snapshot, sourceOptions({ srv: true }));
  const split = viewRecords(views, sources.records, sourceObjects(snapshot));
  return views.map((v, i) => {
    const plan = planPrefix({
      prefix: v.config.prefix,
      ownerId: 'etcdns',
      policy: 'sync',
      desired: split.views[i]!.records,
      current: [],
    });
    const prefix = `${v.config.prefix}/`;
    return Object.fromEntries(plan.creates.map((c) => [c.key.slice(prefix.length), c.after!]));
  });
}

/** A secondary refuses a zone without NS at its apex; the controller writes none. */
const apexNs = (zones: string[]) =>
  Object.fromEntries(
    zones.map((z) => [
      `${z.slice(0, -1).split('.').reverse().join('/')}/dns/ns/ns1`,
      encodeEntry({ host: '10.0.0.53' }),
    ]),
  );

export function zoneSets(): ZoneSet[] {
  const [internal, external] = controllerEntries();
  return [
    LAYOUT,
    INTEROP,
    {
      name: 'controller output, internal view',
      zones: CONTROLLER_ZONES,
      entries: { ...internal, ...apexNs(CONTROLLER_ZONES) },
    },
    {
      name: 'controller output, external view',
      zones: EXTERNAL_ZONES,
      entries: { ...external, ...apexNs(EXTERNAL_ZONES) },
    },
  ];
}
