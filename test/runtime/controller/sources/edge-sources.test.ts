// Table tests of the edge sources (contour-httpproxy, openshift-route, node, pod), one test per
// row: each rule of external-dns v0.22's source/contour_httpproxy.go, openshift_route.go, node.go
// and pod.go, and where etcdns does better (rows marked "external-dns: ..." fail on its behaviour).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { resourceId } from '../../../../src/runtime/controller/desired-record.ts';
import {
  httpProxyRecords,
  type HttpProxy,
} from '../../../../src/runtime/controller/sources/contour-httpproxy-source.ts';
import { nodeRecords } from '../../../../src/runtime/controller/sources/node-source.ts';
import {
  openshiftRouteRecords,
  type OpenShiftRoute,
  type RouteIngress,
} from '../../../../src/runtime/controller/sources/openshift-route-source.ts';
import { podRecords, podSource } from '../../../../src/runtime/controller/sources/pod-source.ts';
import type { SourceResult } from '../../../../src/runtime/controller/sources/record-builder.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';

const N = 'external-dns.kubernetes.io/';
const A = 'external-dns.alpha.kubernetes.io/';

type Options = Parameters<typeof sourceOptions>[0];
interface Row<T> {
  name: string;
  objects: T[];
  options?: Options;
  /** "name type target [ttl]", sorted. */
  records: string[];
  /** "reason name" ("-" without a name). */
  problems?: string[];
}

function check<T>(source: string, rows: Row<T>[], run: (o: T, options: Options, out: SourceResult) => void): void {
  for (const row of rows)
    test(`${source}: ${row.name}`, () => {
      const out: SourceResult = { records: [], problems: [] };
      for (const o of row.objects) run(o, row.options ?? {}, out);
      const lines = out.records.map((r) => `${r.name} ${r.type} ${r.target}${r.ttl !== undefined ? ` ${r.ttl}` : ''}`);
      assert.deepEqual(lines.sort(), row.records);
      assert.deepEqual(
        out.problems.map((p) => `${p.reason} ${p.name ?? '-'}`),
        row.problems ?? [],
      );
      for (const p of out.problems) assert.ok(p.message.length > 10 && p.object.name, JSON.stringify(p));
    });
}

const meta = (name: string, annotations: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
  name,
  namespace: 'apps',
  uid: `uid-${name}`,
  annotations,
  labels,
});

// contour-httpproxy

function proxy(
  name: string,
  fqdn: string | undefined,
  lb: string[],
  annotations: Record<string, string> = {},
  extra: { labels?: Record<string, string>; currentStatus?: string } = {},
): HttpProxy {
  return {
    apiVersion: 'projectcontour.io/v1',
    kind: 'HTTPProxy',
    metadata: meta(name, annotations, extra.labels),
    spec: fqdn === undefined ? {} : { virtualhost: { fqdn } },
    status: {
      currentStatus: extra.currentStatus ?? 'valid',
      loadBalancer: { ingress: lb.map((t) => (/^[\d.:a-f]+$/.test(t) ? { ip: t } : { hostname: t })) },
    },
  };
}

check<HttpProxy>(
  'contour-httpproxy',
  [
    {
      name: 'virtualhost.fqdn points at the load-balancer hostname (CNAME)',
      objects: [proxy('web', 'web.example.org', ['lb.example.net'])],
      records: ['web.example.org. CNAME lb.example.net.'],
    },
    {
      name: 'virtualhost.fqdn points at the load-balancer IPs, v4 and v6',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1', '2001:db8::1'])],
      records: ['web.example.org. A 10.0.0.1', 'web.example.org. AAAA 2001:db8::1'],
    },
    {
      name: 'two IPs and two hostnames: every target by its type',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1', '10.0.0.2', 'a.lb.net', 'b.lb.net'])],
      records: [
        'web.example.org. A 10.0.0.1',
        'web.example.org. A 10.0.0.2',
        'web.example.org. CNAME a.lb.net.',
        'web.example.org. CNAME b.lb.net.',
      ],
    },
    {
      name: 'no virtualhost (an included proxy) publishes nothing',
      objects: [proxy('child', undefined, ['10.0.0.1'])],
      records: [],
    },
    {
      name: 'no load-balancer address yet publishes nothing',
      objects: [proxy('web', 'web.example.org', [])],
      records: [],
    },
    {
      name: 'the target annotation replaces the status',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}target`]: 'edge.example.net' })],
      records: ['web.example.org. CNAME edge.example.net.'],
    },
    {
      name: 'the hostname annotation adds names (both prefixes), with the TTL annotation',
      objects: [
        proxy('web', 'web.example.org', ['10.0.0.1'], {
          [`${A}hostname`]: 'a.example.org, b.example.org',
          [`${N}ttl`]: '60',
        }),
      ],
      records: ['a.example.org. A 10.0.0.1 60', 'b.example.org. A 10.0.0.1 60', 'web.example.org. A 10.0.0.1 60'],
    },
    {
      name: 'the hostname annotation alone is enough',
      objects: [proxy('web', undefined, ['10.0.0.1'], { [`${N}hostname`]: 'ann.example.org' })],
      records: ['ann.example.org. A 10.0.0.1'],
    },
    {
      name: '--ignore-hostname-annotation: only the fqdn',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}hostname`]: 'ann.example.org' })],
      options: { ignoreHostnameAnnotation: true },
      records: ['web.example.org. A 10.0.0.1'],
    },
    {
      name: 'a name in both fqdn and annotation is published once',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}hostname`]: 'web.example.org' })],
      records: ['web.example.org. A 10.0.0.1'],
    },
    {
      name: 'status.currentStatus is not read (external-dns dropped that filter in v0.14)',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], {}, { currentStatus: 'invalid' })],
      records: ['web.example.org. A 10.0.0.1'],
    },
    {
      name: 'external-dns: a mixed-case fqdn is kept as written; etcdns publishes it lower-case',
      objects: [proxy('web', 'Web.Example.ORG', ['10.0.0.1'])],
      records: ['web.example.org. A 10.0.0.1'],
    },
    {
      name: 'another controller annotation: skipped',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}controller`]: 'other' })],
      records: [],
    },
    {
      name: 'controller dns-controller: ours',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}controller`]: 'dns-controller' })],
      records: ['web.example.org. A 10.0.0.1'],
    },
    {
      name: 'annotation filter: only matching proxies',
      objects: [
        proxy('a', 'a.example.org', ['10.0.0.1'], { 'kubernetes.io/ingress.class': 'contour' }),
        proxy('b', 'b.example.org', ['10.0.0.1'], { 'kubernetes.io/ingress.class': 'alb' }),
      ],
      options: { annotationFilter: 'kubernetes.io/ingress.class in (contour)' },
      records: ['a.example.org. A 10.0.0.1'],
    },
    {
      name: 'label selector: only matching proxies',
      objects: [
        proxy('a', 'a.example.org', ['10.0.0.1'], {}, { labels: { team: 'a' } }),
        proxy('b', 'b.example.org', ['10.0.0.1'], {}, { labels: { team: 'b' } }),
      ],
      options: { labelSelector: 'team=a' },
      records: ['a.example.org. A 10.0.0.1'],
    },
    {
      name: '--namespace: only proxies there',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'])],
      options: { namespace: 'other' },
      records: [],
    },
    {
      name: 'a bad fqdn is skipped and reported; the annotation names still publish',
      objects: [proxy('web', 'bad_name!.example.org', ['10.0.0.1'], { [`${N}hostname`]: 'ok.example.org' })],
      records: ['ok.example.org. A 10.0.0.1'],
      problems: ['InvalidHostname bad_name!.example.org'],
    },
    {
      name: 'a bad ttl skips the proxy names and is reported',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}ttl`]: 'soon' })],
      records: [],
      problems: ['InvalidTTL web.example.org.'],
    },
    {
      name: 'a bad target is dropped and reported',
      objects: [proxy('web', 'web.example.org', ['10.0.0.1'], { [`${N}target`]: '10.0.0.9, not valid!' })],
      records: ['web.example.org. A 10.0.0.9'],
      problems: ['InvalidTarget -'],
    },
    {
      name: 'outside --domain-filter: skipped and reported',
      objects: [proxy('web', 'web.example.net', ['10.0.0.1'])],
      options: { domainFilter: ['example.org'] },
      records: [],
      problems: ['HostnameNotInDomain web.example.net.'],
    },
  ],
  (o, options, out) => httpProxyRecords(o, sourceOptions(options), out),
);

// openshift-route

const admitted = (routerName: string, canonical: string, host = 'web.example.org', status = 'True'): RouteIngress => ({
  host,
  routerName,
  routerCanonicalHostname: canonical,
  conditions: [{ type: 'Admitted', status }],
});
function route(
  name: string,
  host: string | undefined,
  ingress: RouteIngress[],
  annotations: Record<string, string> = {},
  labels: Record<string, string> = {},
): OpenShiftRoute {
  return {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: meta(name, annotations, labels),
    spec: host === undefined ? {} : { host },
    status: { ingress },
  };
}

check<OpenShiftRoute>(
  'openshift-route',
  [
    {
      name: "the admitting router's host points at its canonical hostname",
      objects: [route('web', 'web.example.org', [admitted('default', 'router-default.apps.example.net')])],
      records: ['web.example.org. CNAME router-default.apps.example.net.'],
    },
    {
      name: '--openshift-router-name picks that router among several',
      objects: [
        route('web', 'web.example.org', [
          admitted('default', 'router-default.apps.example.net'),
          admitted('internal', 'router-internal.apps.example.net'),
        ]),
      ],
      options: { openshiftRouterName: 'internal' },
      records: ['web.example.org. CNAME router-internal.apps.example.net.'],
    },
    {
      name: 'without --openshift-router-name: the first admitting router',
      objects: [
        route('web', 'web.example.org', [
          admitted('default', 'router-default.apps.example.net', 'web.example.org', 'False'),
          admitted('internal', 'router-internal.apps.example.net'),
          admitted('third', 'router-third.apps.example.net'),
        ]),
      ],
      records: ['web.example.org. CNAME router-internal.apps.example.net.'],
    },
    {
      name: 'not admitted by the named router: nothing',
      objects: [route('web', 'web.example.org', [admitted('default', 'router-default.apps.example.net')])],
      options: { openshiftRouterName: 'internal' },
      records: [],
    },
    {
      name: 'not admitted by any router: nothing, not even with a target annotation',
      objects: [
        route(
          'web',
          'web.example.org',
          [admitted('default', 'router-default.apps.example.net', 'web.example.org', 'False')],
          {
            [`${N}target`]: '10.0.0.1',
          },
        ),
      ],
      records: [],
    },
    {
      name: 'no Admitted condition counts as not admitted',
      objects: [
        route('web', 'web.example.org', [
          { host: 'web.example.org', routerName: 'default', routerCanonicalHostname: 'r.example.net' },
        ]),
      ],
      records: [],
    },
    {
      name: 'an admitting router without a canonical hostname is passed over',
      objects: [
        route('web', 'web.example.org', [
          admitted('default', ''),
          admitted('internal', 'router-internal.apps.example.net'),
        ]),
      ],
      records: ['web.example.org. CNAME router-internal.apps.example.net.'],
    },
    {
      name: "the router's host is published (a router-generated host of a route without spec.host)",
      objects: [route('web', undefined, [admitted('default', 'router.example.net', 'web-apps.apps.example.org')])],
      records: ['web-apps.apps.example.org. CNAME router.example.net.'],
    },
    {
      name: 'the target annotation replaces the canonical hostname',
      objects: [
        route('web', 'web.example.org', [admitted('default', 'router.example.net')], {
          [`${N}target`]: '10.0.0.1, 2001:db8::1',
        }),
      ],
      records: ['web.example.org. A 10.0.0.1', 'web.example.org. AAAA 2001:db8::1'],
    },
    {
      name: 'the hostname annotation adds names, with the TTL annotation',
      objects: [
        route('web', 'web.example.org', [admitted('default', 'router.example.net')], {
          [`${N}hostname`]: 'alias.example.org',
          [`${A}ttl`]: '2m',
        }),
      ],
      records: ['alias.example.org. CNAME router.example.net. 120', 'web.example.org. CNAME router.example.net. 120'],
    },
    {
      name: '--ignore-hostname-annotation: only the router host',
      objects: [
        route('web', 'web.example.org', [admitted('default', 'router.example.net')], {
          [`${N}hostname`]: 'alias.example.org',
        }),
      ],
      options: { ignoreHostnameAnnotation: true },
      records: ['web.example.org. CNAME router.example.net.'],
    },
    {
      name: 'another controller annotation: skipped',
      objects: [
        route('web', 'web.example.org', [admitted('default', 'router.example.net')], { [`${N}controller`]: 'foo' }),
      ],
      records: [],
    },
    {
      name: 'label selector: only matching routes',
      objects: [
        route(
          'a',
          'a.example.org',
          [admitted('default', 'r.example.net', 'a.example.org')],
          {},
          { app: 'web-external' },
        ),
        route(
          'b',
          'b.example.org',
          [admitted('default', 'r.example.net', 'b.example.org')],
          {},
          { app: 'web-internal' },
        ),
      ],
      options: { labelSelector: 'app=web-external' },
      records: ['a.example.org. CNAME r.example.net.'],
    },
    {
      name: 'external-dns: a mixed-case host is kept as written; etcdns publishes it lower-case',
      objects: [route('web', 'Web.Example.org', [admitted('default', 'Router.Example.net', 'Web.Example.org')])],
      records: ['web.example.org. CNAME router.example.net.'],
    },
    {
      name: 'a bad hostname annotation is skipped and reported; the host still publishes',
      objects: [
        route('web', 'web.example.org', [admitted('default', 'router.example.net')], {
          [`${N}hostname`]: '-bad.example.org',
        }),
      ],
      records: ['web.example.org. CNAME router.example.net.'],
      problems: ['InvalidHostname -bad.example.org'],
    },
  ],
  (o, options, out) => openshiftRouteRecords(o, sourceOptions(options), out),
);

// node

function node(
  name: string,
  addresses: [string, string][],
  extra: { unschedulable?: boolean; annotations?: Record<string, string>; labels?: Record<string, string> } = {},
): V1Node {
  return {
    metadata: { name, uid: `uid-${name}`, annotations: extra.annotations ?? {}, labels: extra.labels ?? {} },
    spec: { unschedulable: extra.unschedulable ?? false },
    status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
  };
}
const dual: [string, string][] = [
  ['Hostname', 'n1'],
  ['InternalIP', '10.0.0.1'],
  ['InternalIP', 'fd00::1'],
  ['ExternalIP', '203.0.113.1'],
];

check<V1Node>(
  'node',
  [
    {
      name: 'the node name points at its ExternalIP, not its InternalIP',
      objects: [node('n1.example.org', dual)],
      records: ['n1.example.org. A 203.0.113.1'],
    },
    {
      name: 'a short node name is published as it is (the domain filter decides)',
      objects: [node('n1', [['ExternalIP', '203.0.113.1']])],
      records: ['n1. A 203.0.113.1'],
    },
    {
      name: '--expose-internal-ipv6 adds the IPv6 InternalIPs to the ExternalIPs',
      objects: [node('n1.example.org', dual)],
      options: { exposeInternalIpv6: true },
      records: ['n1.example.org. A 203.0.113.1', 'n1.example.org. AAAA fd00::1'],
    },
    {
      name: 'only InternalIPs: all of them, IPv4 and IPv6, whatever --expose-internal-ipv6 says',
      objects: [
        node('n1.example.org', [
          ['InternalIP', '10.0.0.1'],
          ['InternalIP', '10.0.0.2'],
          ['InternalIP', 'fd00::1'],
        ]),
      ],
      records: ['n1.example.org. A 10.0.0.1', 'n1.example.org. A 10.0.0.2', 'n1.example.org. AAAA fd00::1'],
    },
    {
      name: 'an IPv6-only node',
      objects: [node('n1.example.org', [['ExternalIP', '2001:db8::1']])],
      records: ['n1.example.org. AAAA 2001:db8::1'],
    },
    {
      name: 'external-dns: only a Hostname address exits it fatally; etcdns skips that node and reports it',
      objects: [node('bad.example.org', [['Hostname', 'bad']]), node('good.example.org', [['InternalIP', '10.0.0.2']])],
      records: ['good.example.org. A 10.0.0.2'],
      problems: ['NoAddress -'],
    },
    {
      name: 'no address at all: skipped and reported',
      objects: [node('n1.example.org', [])],
      records: [],
      problems: ['NoAddress -'],
    },
    {
      name: 'the target annotation replaces the addresses (and needs none)',
      objects: [node('n1.example.org', [['Hostname', 'n1']], { annotations: { [`${N}target`]: '203.2.45.7' } })],
      records: ['n1.example.org. A 203.2.45.7'],
    },
    {
      name: 'unschedulable: left out by default (--exclude-unschedulable defaults to true)',
      objects: [node('n1.example.org', dual, { unschedulable: true })],
      records: [],
    },
    {
      name: 'unschedulable with --exclude-unschedulable=false: published',
      objects: [node('n1.example.org', dual, { unschedulable: true })],
      options: { excludeUnschedulable: false },
      records: ['n1.example.org. A 203.0.113.1'],
    },
    {
      name: 'the TTL annotation',
      objects: [node('n1.example.org', dual, { annotations: { [`${A}ttl`]: '10' } })],
      records: ['n1.example.org. A 203.0.113.1 10'],
    },
    {
      name: 'a bad TTL annotation: skipped and reported',
      objects: [node('n1.example.org', dual, { annotations: { [`${N}ttl`]: '0' } })],
      records: [],
      problems: ['InvalidTTL n1.example.org.'],
    },
    {
      name: 'annotation filter and label selector',
      objects: [
        node('a.example.org', dual, { annotations: { tier: 'edge' }, labels: { pool: 'x' } }),
        node('b.example.org', dual, { annotations: { tier: 'core' }, labels: { pool: 'x' } }),
        node('c.example.org', dual, { annotations: { tier: 'edge' }, labels: { pool: 'y' } }),
      ],
      options: { annotationFilter: 'tier=edge', labelSelector: 'pool=x' },
      records: ['a.example.org. A 203.0.113.1'],
    },
    {
      name: '--namespace does not apply to Nodes',
      objects: [node('n1.example.org', dual)],
      options: { namespace: 'apps' },
      records: ['n1.example.org. A 203.0.113.1'],
    },
    {
      name: 'another controller annotation: skipped',
      objects: [node('n1.example.org', dual, { annotations: { [`${N}controller`]: 'other' } })],
      records: [],
    },
    {
      name: 'duplicate addresses give one record',
      objects: [
        node('n1.example.org', [
          ['ExternalIP', '203.0.113.1'],
          ['ExternalIP', '203.0.113.1'],
        ]),
      ],
      records: ['n1.example.org. A 203.0.113.1'],
    },
  ],
  (o, options, out) => nodeRecords(o, sourceOptions(options), out),
);

test('node: records carry the resource id "node/<name>" (as external-dns), the problem names the Node', () => {
  const out: SourceResult = { records: [], problems: [] };
  nodeRecords(node('n1.example.org', dual), sourceOptions({}), out);
  nodeRecords(node('bad', [['Hostname', 'bad']]), sourceOptions({}), out);
  assert.deepEqual(
    out.records.map((r) => [r.object.kind, r.object.name]),
    [['Node', 'n1.example.org']],
  );
  assert.match(out.problems[0]!.message, /no ExternalIP or InternalIP address \(address types: Hostname\)/);
  assert.equal(resourceId(out.records[0]!.object), 'node/n1.example.org');
});

// pod

const nodes = new Map<string, V1Node>([
  ['n1', node('n1', dual)],
  [
    'n2',
    node('n2', [
      ['InternalIP', '10.0.0.2'],
      ['InternalIP', '2001:db8::2'],
    ]),
  ],
]);
function pod(
  name: string,
  annotations: Record<string, string>,
  extra: { ip?: string; nodeName?: string; hostNetwork?: boolean; namespace?: string } = {},
): V1Pod {
  return {
    metadata: { ...meta(name, annotations), namespace: extra.namespace ?? 'apps' },
    spec: { containers: [], nodeName: extra.nodeName ?? 'n1', hostNetwork: extra.hostNetwork ?? true },
    status: extra.ip === '' ? { phase: 'Pending' } : { phase: 'Running', podIP: extra.ip ?? '10.1.0.5' },
  };
}

check<V1Pod>(
  'pod',
  [
    {
      name: 'internal-hostname points at the pod IP',
      objects: [pod('p', { [`${N}internal-hostname`]: 'p.internal.example.org' })],
      records: ['p.internal.example.org. A 10.1.0.5'],
    },
    {
      name: "hostname points at the node's ExternalIPs and IPv6 InternalIPs, not its IPv4 InternalIPs",
      objects: [pod('p', { [`${N}hostname`]: 'p.example.org' })],
      records: ['p.example.org. A 203.0.113.1', 'p.example.org. AAAA fd00::1'],
    },
    {
      name: 'hostname on a node without ExternalIP: only its IPv6 InternalIP',
      objects: [pod('p', { [`${N}hostname`]: 'p.example.org' }, { nodeName: 'n2' })],
      records: ['p.example.org. AAAA 2001:db8::2'],
    },
    {
      name: 'both annotations, comma lists, the alpha prefix',
      objects: [
        pod('p', {
          [`${A}hostname`]: 'a.example.org,b.example.org',
          [`${A}internal-hostname`]: 'i.example.org, j.example.org',
        }),
      ],
      records: [
        'a.example.org. A 203.0.113.1',
        'a.example.org. AAAA fd00::1',
        'b.example.org. A 203.0.113.1',
        'b.example.org. AAAA fd00::1',
        'i.example.org. A 10.1.0.5',
        'j.example.org. A 10.1.0.5',
      ],
    },
    {
      name: 'an IPv6 pod IP gives AAAA',
      objects: [pod('p', { [`${N}internal-hostname`]: 'p.example.org' }, { ip: 'fd00:10::5' })],
      records: ['p.example.org. AAAA fd00:10::5'],
    },
    {
      name: 'the target annotation replaces both the pod IP and the node addresses',
      objects: [
        pod('p', {
          [`${N}hostname`]: 'a.example.org',
          [`${N}internal-hostname`]: 'i.example.org',
          [`${N}target`]: '192.0.2.1',
        }),
      ],
      records: ['a.example.org. A 192.0.2.1', 'i.example.org. A 192.0.2.1'],
    },
    {
      name: '--ignore-hostname-annotation does not apply to pods (external-dns reads their annotations regardless)',
      objects: [pod('p', { [`${N}hostname`]: 'p.example.org', [`${N}internal-hostname`]: 'i.example.org' })],
      options: { ignoreHostnameAnnotation: true },
      records: ['i.example.org. A 10.1.0.5', 'p.example.org. A 203.0.113.1', 'p.example.org. AAAA fd00::1'],
    },
    {
      name: '--pod-source-domain publishes <pod>.<domain> at the pod IP',
      objects: [pod('web-0', {})],
      options: { podSourceDomain: 'pods.example.org' },
      records: ['web-0.pods.example.org. A 10.1.0.5'],
    },
    {
      name: '--pod-source-domain with the target annotation',
      objects: [pod('web-0', { [`${N}target`]: 'edge.example.net' })],
      options: { podSourceDomain: 'pods.example.org' },
      records: ['web-0.pods.example.org. CNAME edge.example.net.'],
    },
    {
      name: 'non-host-network pods publish by default (--ignore-non-host-network-pods defaults to false)',
      objects: [pod('p', { [`${N}internal-hostname`]: 'p.example.org' }, { hostNetwork: false })],
      records: ['p.example.org. A 10.1.0.5'],
    },
    {
      name: '--ignore-non-host-network-pods: only host-network pods publish',
      objects: [
        pod('p', { [`${N}internal-hostname`]: 'p.example.org' }, { hostNetwork: false }),
        pod('h', { [`${N}internal-hostname`]: 'h.example.org' }, { hostNetwork: true }),
      ],
      options: { ignoreNonHostNetworkPods: true },
      records: ['h.example.org. A 10.1.0.5'],
    },
    {
      name: 'external-dns: a pod without an IP yet gets an empty CNAME; etcdns publishes nothing',
      objects: [pod('p', { [`${N}internal-hostname`]: 'p.example.org' }, { ip: '' })],
      options: { podSourceDomain: 'pods.example.org' },
      records: [],
    },
    {
      name: 'a pod on a missing node: its hostname publishes nothing, its internal-hostname does',
      objects: [
        pod(
          'p',
          { [`${N}hostname`]: 'a.example.org', [`${N}internal-hostname`]: 'i.example.org' },
          { nodeName: 'gone' },
        ),
      ],
      records: ['i.example.org. A 10.1.0.5'],
    },
    {
      name: 'a pod not scheduled yet: nothing',
      objects: [pod('p', { [`${N}hostname`]: 'a.example.org' }, { nodeName: '', ip: '' })],
      records: [],
    },
    {
      name: 'two pods at one name each give their address',
      objects: [
        pod('p1', { [`${N}internal-hostname`]: 'svc.example.org' }, { ip: '10.1.0.1' }),
        pod('p2', { [`${N}internal-hostname`]: 'svc.example.org' }, { ip: '10.1.0.2' }),
      ],
      records: ['svc.example.org. A 10.1.0.1', 'svc.example.org. A 10.1.0.2'],
    },
    {
      name: 'a name in both annotations gets the pod IP and the node addresses once each',
      objects: [pod('p', { [`${N}hostname`]: 'p.example.org', [`${N}internal-hostname`]: 'P.example.org' })],
      records: ['p.example.org. A 10.1.0.5', 'p.example.org. A 203.0.113.1', 'p.example.org. AAAA fd00::1'],
    },
    {
      name: 'external-dns: mixed case is kept as written; etcdns publishes it lower-case',
      objects: [pod('p', { [`${N}internal-hostname`]: 'Mixed.Example.ORG' })],
      records: ['mixed.example.org. A 10.1.0.5'],
    },
    {
      name: '--namespace, label selector and controller annotation select pods',
      objects: [
        pod('p', { [`${N}internal-hostname`]: 'p.example.org' }, { namespace: 'kube-system' }),
        pod('q', { [`${N}internal-hostname`]: 'q.example.org' }),
        pod(
          'r',
          { [`${N}internal-hostname`]: 'r.example.org', [`${N}controller`]: 'other' },
          { namespace: 'kube-system' },
        ),
      ],
      options: { namespace: 'kube-system' },
      records: ['p.example.org. A 10.1.0.5'],
    },
    {
      name: 'the TTL annotation applies to every name',
      objects: [pod('p', { [`${N}internal-hostname`]: 'p.example.org', [`${N}ttl`]: '30' })],
      options: { podSourceDomain: 'pods.example.org' },
      records: ['p.example.org. A 10.1.0.5 30', 'p.pods.example.org. A 10.1.0.5 30'],
    },
    {
      name: 'a bad hostname is skipped and reported; the others publish',
      objects: [pod('p', { [`${N}internal-hostname`]: 'ok.example.org, -bad.example.org' })],
      records: ['ok.example.org. A 10.1.0.5'],
      problems: ['InvalidHostname -bad.example.org'],
    },
  ],
  (o, options, out) => podRecords(o, { node: (name) => nodes.get(name) }, sourceOptions(options), out),
);

test("pod: a Node's change re-plans the pods on that Node, and only those", () => {
  const switches = sourceOptions({}).switches;
  const keysOf = (p: V1Pod) => podSource.indexKeys!(p, 'Pod', switches);
  assert.deepEqual(keysOf(pod('a', {}, { nodeName: 'n1' })), ['Node/n1']);
  assert.deepEqual(keysOf(pod('b', {}, { nodeName: 'n2' })), ['Node/n2']);
  assert.deepEqual(keysOf(pod('pending', {}, { nodeName: '' })), []);
  assert.deepEqual(podSource.changes!.Node!(nodes.get('n1')!, { objects: () => [] }, switches), { keys: ['Node/n1'] });
});
