// Table tests of the Gateway API route sources, one test per row: each rule external-dns v0.22
// applies (source/gateway.go), and what follows from it, from Kubernetes objects to records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SourceKind } from '../../../../../src/config/source-kinds.ts';
import type { ClusterSnapshot } from '../../../../support/cluster-snapshot.ts';
import type {
  Gateway,
  Listener,
  ListenerSet,
  Namespace,
  Route,
} from '../../../../../src/runtime/controller/sources/gateway/gateway-api.ts';
import {
  listenerAdmits,
  protocolMatches,
  type RouteKind,
} from '../../../../../src/runtime/controller/sources/gateway/listener-attachment.ts';
import { matchingHost } from '../../../../../src/runtime/controller/sources/gateway/listener-hostname.ts';
import { sourceOptions } from '../../../../../src/runtime/controller/sources/source-options.ts';
import { resourceId } from '../../../../../src/runtime/controller/desired-record.ts';
import { desiredRecords } from '../../../../support/full-pipeline.ts';

const N = 'external-dns.kubernetes.io/';
const A = 'external-dns.alpha.kubernetes.io/';

test('listener hostname x route hostname: the more specific name, or none', async (t) => {
  const rows: [listener: string, route: string, want: string | undefined][] = [
    ['', 'a.example.org', 'a.example.org'],
    ['a.example.org', '', 'a.example.org'],
    ['a.example.org', 'a.example.org', 'a.example.org'],
    ['A.Example.org', 'a.example.org', 'a.example.org'],
    ['*.example.org', 'a.example.org', 'a.example.org'],
    ['a.example.org', '*.example.org', 'a.example.org'],
    ['*.example.org', 'a.b.example.org', 'a.b.example.org'],
    ['*.example.org', 'example.org', undefined],
    ['*.example.org', '*.b.example.org', '*.b.example.org'],
    ['*.example.org', '*.example.org', '*.example.org'],
    ['a.example.org', 'b.example.org', undefined],
    ['*.example.org', 'a.example.net', undefined],
    ['', '*.example.org', '*.example.org'],
    ['10.0.0.1', '', undefined],
    ['', 'under_score.example.org', undefined],
    ['', '-bad.example.org', undefined],
    ['*.ab', 'x.cab', undefined],
  ];
  for (const [listener, route, want] of rows)
    await t.test(`"${listener}" x "${route}" -> ${want ?? 'no match'}`, () =>
      assert.equal(matchingHost(listener, route), want),
    );
});

test('route protocol x listener protocol', async (t) => {
  const rows: [route: string, listener: string, want: boolean][] = [
    ['HTTP', 'HTTP', true],
    ['HTTP', 'HTTPS', true],
    ['HTTPS', 'HTTP', true],
    ['TLS', 'TLS', true],
    ['TLS', 'HTTPS', false],
    ['TCP', 'TLS', true],
    ['TCP', 'TCP', true],
    ['TLS', 'TCP', false],
    ['UDP', 'UDP', true],
    ['UDP', 'TCP', false],
    ['HTTP', 'TCP', false],
  ];
  for (const [route, listener, want] of rows)
    await t.test(`${route} route on a ${listener} listener: ${want}`, () =>
      assert.equal(protocolMatches(route, listener), want),
    );
});

test('allowedRoutes: which namespaces and kinds a listener admits', async (t) => {
  const listener = (allowedRoutes?: Listener['allowedRoutes']): Listener => ({
    name: 'l',
    port: 80,
    protocol: 'HTTP',
    ...(allowedRoutes ? { allowedRoutes } : {}),
  });
  const route = (namespace: string, labels?: Record<string, string>, kind: RouteKind = 'HTTPRoute') => ({
    kind,
    namespace,
    namespaceLabels: labels,
  });
  const rows: [string, Listener, ReturnType<typeof route>, boolean][] = [
    ['no allowedRoutes: the Gateway namespace only (Same)', listener(), route('infra', {}), true],
    ['Same, another namespace', listener(), route('apps', {}), false],
    ['All', listener({ namespaces: { from: 'All' } }), route('apps', {}), true],
    [
      'Selector matching the namespace labels',
      listener({ namespaces: { from: 'Selector', selector: { matchLabels: { team: 'a' } } } }),
      route('apps', { team: 'a' }),
      true,
    ],
    [
      'Selector with matchExpressions',
      listener({
        namespaces: {
          from: 'Selector',
          selector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] },
        },
      }),
      route('apps', { team: 'b' }),
      false,
    ],
    [
      'Selector, the namespace not known',
      listener({ namespaces: { from: 'Selector', selector: {} } }),
      route('apps', undefined),
      false,
    ],
    ['Selector without a selector', listener({ namespaces: { from: 'Selector' } }), route('apps', {}), false],
    [
      'Selector with an unknown operator',
      listener({
        namespaces: { from: 'Selector', selector: { matchExpressions: [{ key: 'team', operator: 'Is' }] } },
      }),
      route('apps', { team: 'a' }),
      false,
    ],
    ['an unknown "from"', listener({ namespaces: { from: 'Some' } }), route('infra', {}), false],
    [
      'kinds listing the route kind (group defaulted)',
      listener({ kinds: [{ kind: 'HTTPRoute' }] }),
      route('infra', {}),
      true,
    ],
    [
      'kinds not listing the route kind',
      listener({ kinds: [{ group: 'gateway.networking.k8s.io', kind: 'GRPCRoute' }] }),
      route('infra', {}),
      false,
    ],
    ['kinds of another group', listener({ kinds: [{ group: 'x.io', kind: 'HTTPRoute' }] }), route('infra', {}), false],
  ];
  for (const [name, l, r, want] of rows) await t.test(name, () => assert.equal(listenerAdmits(l, 'infra', r).ok, want));
});

// Objects for the source rows.
const accepted = [{ type: 'Accepted', status: 'True' }];
function gateway(
  name: string,
  listeners: Partial<Listener>[],
  addresses: string[] = ['10.9.0.1'],
  extra: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
  allowedListeners?: NonNullable<Gateway['spec']>['allowedListeners'],
): Gateway {
  return {
    metadata: {
      name,
      namespace: extra.namespace ?? 'infra',
      labels: extra.labels ?? {},
      annotations: extra.annotations ?? {},
    },
    spec: {
      listeners: listeners.map((l, i) => ({
        name: `l${i}`,
        port: 80,
        protocol: 'HTTP',
        allowedRoutes: { namespaces: { from: 'All' } },
        ...l,
      })),
      ...(allowedListeners ? { allowedListeners } : {}),
    },
    status: { addresses: addresses.map((value) => ({ value })) },
  };
}
type Parent = { name: string; namespace?: string; kind?: string; sectionName?: string; port?: number };
function route(
  kind: RouteKind,
  name: string,
  opts: {
    hostnames?: string[];
    parents?: Parent[];
    /** Status parents, when not the spec's all accepted. */
    status?: { ref: Parent; conditions?: { type: string; status: string }[] }[];
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    namespace?: string;
  } = {},
): { kind: RouteKind; object: Route } {
  const parents = opts.parents ?? [{ name: 'gw', namespace: 'infra' }];
  return {
    kind,
    object: {
      metadata: {
        name,
        namespace: opts.namespace ?? 'apps',
        uid: `uid-${name}`,
        annotations: opts.annotations ?? {},
        labels: opts.labels ?? {},
      },
      spec: { parentRefs: parents, ...(opts.hostnames ? { hostnames: opts.hostnames } : {}) },
      status: {
        parents: (opts.status ?? parents.map((ref) => ({ ref, conditions: accepted }))).map((p) => ({
          parentRef: p.ref,
          controllerName: 'example.org/gateway',
          conditions: p.conditions ?? [],
        })),
      },
    },
  };
}
function listenerSet(
  name: string,
  listeners: Partial<Listener>[],
  opts: { accepted?: boolean; listenerAccepted?: boolean; annotations?: Record<string, string> } = {},
): ListenerSet {
  const ls = listeners.map((l, i) => ({
    name: `s${i}`,
    port: 443,
    protocol: 'HTTPS',
    allowedRoutes: { namespaces: { from: 'All' as const } },
    ...l,
  }));
  return {
    metadata: { name, namespace: 'team', annotations: opts.annotations ?? {} },
    spec: { parentRef: { name: 'gw', namespace: 'infra' }, listeners: ls },
    status: {
      conditions: [{ type: 'Accepted', status: opts.accepted === false ? 'False' : 'True' }],
      listeners: ls.map((l) => ({
        name: l.name,
        conditions: [{ type: 'Accepted', status: opts.listenerAccepted === false ? 'False' : 'True' }],
      })),
    },
  };
}
const namespaces: Namespace[] = [
  { metadata: { name: 'infra', labels: {} } },
  { metadata: { name: 'apps', labels: { team: 'a' } } },
  { metadata: { name: 'team', labels: { team: 'b' } } },
];
const ALL_ROUTES: SourceKind[] = [
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
];

type Row = {
  name: string;
  snapshot: Partial<ClusterSnapshot>;
  options?: Parameters<typeof sourceOptions>[0];
  /** "name type target [ttl]" lines, sorted. */
  records: string[];
  /** "reason name" lines. */
  problems?: string[];
};

const wildcard = gateway('gw', [{ hostname: '*.example.org' }]);
const rows: Row[] = [
  {
    name: 'an accepted HTTPRoute: its hostname through a wildcard listener, at the Gateway address',
    snapshot: { gateways: [wildcard], routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'] })] },
    records: ['web.example.org. A 10.9.0.1'],
  },
  {
    name: 'a parent in status but not in spec.parentRefs does not count',
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          parents: [{ name: 'other', namespace: 'infra' }],
          status: [{ ref: { name: 'gw', namespace: 'infra' }, conditions: accepted }],
        }),
      ],
    },
    records: [],
  },
  {
    name: 'a parent in spec whose status is Accepted=False does not count',
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          status: [{ ref: { name: 'gw', namespace: 'infra' }, conditions: [{ type: 'Accepted', status: 'False' }] }],
        }),
      ],
    },
    records: [],
  },
  {
    name: 'a parent in spec without a status (not yet accepted) does not count',
    snapshot: {
      gateways: [wildcard],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'], status: [] })],
    },
    records: [],
  },
  {
    name: 'a parent Gateway that does not exist',
    snapshot: { gateways: [], routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'] })] },
    records: [],
  },
  {
    name: 'a parent of another kind (a Service, as in GAMMA) does not count',
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          parents: [{ name: 'gw', namespace: 'infra', kind: 'Service' }],
        }),
      ],
    },
    records: [],
  },
  {
    name: 'a parent without a namespace is in the route namespace',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: '*.example.org' }], ['10.9.0.7'], { namespace: 'apps' })],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'], parents: [{ name: 'gw' }] })],
    },
    records: ['web.example.org. A 10.9.0.7'],
  },
  {
    name: 'sectionName picks one listener: the other listener hostname is not published',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: 'a.example.org' }, { hostname: 'b.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'gw', namespace: 'infra', sectionName: 'l1' }] })],
    },
    records: ['b.example.org. A 10.9.0.1'],
  },
  {
    name: 'sectionName naming no listener',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: 'a.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'gw', namespace: 'infra', sectionName: 'nope' }] })],
    },
    records: [],
  },
  {
    name: 'port picks the listeners on that port',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: 'a.example.org' }, { hostname: 'b.example.org', port: 8080 }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'gw', namespace: 'infra', port: 8080 }] })],
    },
    records: ['b.example.org. A 10.9.0.1'],
  },
  {
    name: 'no route hostname: the listener hostname',
    snapshot: { gateways: [gateway('gw', [{ hostname: 'app.example.org' }])], routes: [route('HTTPRoute', 'web')] },
    records: ['app.example.org. A 10.9.0.1'],
  },
  {
    name: 'no route hostname under a wildcard listener: the wildcard itself',
    snapshot: { gateways: [wildcard], routes: [route('HTTPRoute', 'web')] },
    records: ['*.example.org. A 10.9.0.1'],
  },
  {
    name: 'neither route nor listener has a hostname: nothing',
    snapshot: { gateways: [gateway('gw', [{}])], routes: [route('HTTPRoute', 'web')] },
    records: [],
  },
  {
    name: 'a listener without hostname takes the route hostnames',
    snapshot: {
      gateways: [gateway('gw', [{}])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['a.example.org', 'b.example.org'] })],
    },
    records: ['a.example.org. A 10.9.0.1', 'b.example.org. A 10.9.0.1'],
  },
  {
    name: '*.example.org covers names under example.org, not example.org',
    snapshot: {
      gateways: [wildcard],
      routes: [route('HTTPRoute', 'web', { hostnames: ['example.org', 'deep.sub.example.org'] })],
    },
    records: ['deep.sub.example.org. A 10.9.0.1'],
  },
  {
    name: 'a route hostname outside the listener hostname is not published',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: 'a.example.org' }])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['b.example.org'] })],
    },
    records: [],
  },
  {
    name: 'the hostname annotation adds names, also only where a listener takes them',
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${N}hostname`]: 'extra.example.org, other.example.net' },
        }),
      ],
    },
    records: ['extra.example.org. A 10.9.0.1', 'web.example.org. A 10.9.0.1'],
  },
  {
    name: 'the hostname annotation under the alpha prefix',
    snapshot: {
      gateways: [gateway('gw', [{}])],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${A}hostname`]: 'alpha.example.org' },
        }),
      ],
    },
    records: ['alpha.example.org. A 10.9.0.1', 'web.example.org. A 10.9.0.1'],
  },
  {
    name: 'gateway-hostname-source: annotation-only',
    snapshot: {
      gateways: [gateway('gw', [{}])],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${N}hostname`]: 'ann.example.org', [`${N}gateway-hostname-source`]: 'annotation-only' },
        }),
      ],
    },
    records: ['ann.example.org. A 10.9.0.1'],
  },
  {
    name: 'gateway-hostname-source: defined-hosts-only (and no listener hostname taken without route hostnames)',
    snapshot: {
      gateways: [gateway('gw', [{ hostname: 'lis.example.org' }, {}])],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${N}hostname`]: 'ann.example.org', [`${N}gateway-hostname-source`]: 'Defined-Hosts-Only' },
        }),
        route('HTTPRoute', 'bare', {
          annotations: { [`${N}gateway-hostname-source`]: 'defined-hosts-only' },
        }),
      ],
    },
    records: ['web.example.org. A 10.9.0.1'],
  },
  {
    name: 'gateway-hostname-source with another value: reported, read as absent',
    snapshot: {
      gateways: [gateway('gw', [{}])],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${N}hostname`]: 'ann.example.org', [`${N}gateway-hostname-source`]: 'both' },
        }),
      ],
    },
    records: ['ann.example.org. A 10.9.0.1', 'web.example.org. A 10.9.0.1'],
    problems: ['InvalidAnnotation -'],
  },
  {
    name: 'the ttl annotation of the route',
    snapshot: {
      gateways: [wildcard],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'], annotations: { [`${N}ttl`]: '2m' } })],
    },
    records: ['web.example.org. A 10.9.0.1 120'],
  },
  {
    name: 'a bad ttl annotation skips the names, reported',
    snapshot: {
      gateways: [wildcard],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'], annotations: { [`${N}ttl`]: 'soon' } })],
    },
    records: [],
    problems: ['InvalidTTL web.example.org.'],
  },
  {
    name: "the Gateway's target annotation replaces its addresses; the route's own is not read",
    snapshot: {
      gateways: [gateway('gw', [{}], ['10.9.0.1'], { annotations: { [`${N}target`]: '203.0.113.5, lb.example.net' } })],
      routes: [
        route('HTTPRoute', 'web', { hostnames: ['web.example.org'], annotations: { [`${N}target`]: '198.51.100.1' } }),
      ],
    },
    records: ['web.example.org. A 203.0.113.5', 'web.example.org. CNAME lb.example.net.'],
  },
  {
    name: 'Gateway addresses that are names and IPv6 addresses',
    snapshot: {
      gateways: [gateway('gw', [{}], ['2001:db8::5', 'gw.lb.example.net'])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'] })],
    },
    records: ['web.example.org. AAAA 2001:db8::5', 'web.example.org. CNAME gw.lb.example.net.'],
  },
  {
    name: 'two Gateways: the addresses of both, each once',
    snapshot: {
      gateways: [gateway('gw', [{}], ['10.9.0.1', '10.9.0.2']), gateway('gw2', [{}], ['10.9.0.2', '10.9.0.3'])],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          parents: [
            { name: 'gw', namespace: 'infra' },
            { name: 'gw2', namespace: 'infra' },
          ],
        }),
      ],
    },
    records: ['web.example.org. A 10.9.0.1', 'web.example.org. A 10.9.0.2', 'web.example.org. A 10.9.0.3'],
  },
  {
    name: 'allowedRoutes Same: a route of another namespace is not taken',
    snapshot: {
      gateways: [gateway('gw', [{ allowedRoutes: { namespaces: { from: 'Same' } } }])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'] })],
    },
    records: [],
  },
  {
    name: 'allowedRoutes Selector on the route namespace labels',
    snapshot: {
      namespaces,
      gateways: [
        gateway('gw', [
          {
            hostname: 'a.example.org',
            allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'a' } } } },
          },
          {
            hostname: 'b.example.org',
            allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'b' } } } },
          },
        ]),
      ],
      routes: [route('HTTPRoute', 'web')],
    },
    records: ['a.example.org. A 10.9.0.1'],
  },
  {
    name: 'allowedRoutes kinds: a GRPC-only listener does not take an HTTPRoute',
    snapshot: {
      gateways: [gateway('gw', [{ allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'GRPCRoute' }] } }])],
      routes: [
        route('HTTPRoute', 'web', { hostnames: ['web.example.org'] }),
        route('GRPCRoute', 'rpc', { hostnames: ['rpc.example.org'] }),
      ],
    },
    options: { sources: ALL_ROUTES },
    records: ['rpc.example.org. A 10.9.0.1'],
  },
  {
    name: 'protocols: GRPC on HTTPS, TLS on TLS, TCP on TLS, UDP on UDP; none on the others',
    snapshot: {
      gateways: [
        gateway('gw', [
          { protocol: 'HTTPS', hostname: 'https.example.org' },
          { protocol: 'TLS', hostname: 'tls.example.org' },
          { protocol: 'UDP', hostname: 'udp.example.org' },
        ]),
      ],
      routes: [route('GRPCRoute', 'rpc'), route('TLSRoute', 'tls'), route('TCPRoute', 'tcp'), route('UDPRoute', 'udp')],
    },
    options: { sources: ALL_ROUTES },
    // The TLS listener takes the TLSRoute and the TCPRoute: one record from each.
    records: [
      'https.example.org. A 10.9.0.1',
      'tls.example.org. A 10.9.0.1',
      'tls.example.org. A 10.9.0.1',
      'udp.example.org. A 10.9.0.1',
    ],
  },
  {
    name: 'TCP and UDP routes have no hostnames field: names from the annotation and the listener',
    snapshot: {
      gateways: [gateway('gw', [{ protocol: 'TCP' }, { protocol: 'UDP', hostname: 'dns.example.org' }])],
      routes: [
        route('TCPRoute', 'db', { annotations: { [`${N}hostname`]: 'db.example.org' } }),
        route('UDPRoute', 'dns'),
      ],
    },
    options: { sources: ALL_ROUTES },
    records: ['db.example.org. A 10.9.0.1', 'dns.example.org. A 10.9.0.1'],
  },
  {
    name: 'a TCPRoute with spec.hostnames (not in its schema) reads none of them',
    snapshot: {
      gateways: [gateway('gw', [{ protocol: 'TCP' }])],
      routes: [route('TCPRoute', 'db', { hostnames: ['ignored.example.org'] })],
    },
    options: { sources: ['gateway-tcproute'] },
    records: [],
  },
  {
    name: 'only the enabled route kinds are read',
    snapshot: {
      gateways: [gateway('gw', [{ protocol: 'HTTPS' }])],
      routes: [
        route('HTTPRoute', 'web', { hostnames: ['web.example.org'] }),
        route('GRPCRoute', 'rpc', { hostnames: ['rpc.example.org'] }),
      ],
    },
    options: { sources: ['gateway-grpcroute'] },
    records: ['rpc.example.org. A 10.9.0.1'],
  },
  {
    name: "the route's controller annotation names another controller",
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          annotations: { [`${N}controller`]: 'someone-else' },
        }),
        route('HTTPRoute', 'ours', {
          hostnames: ['ours.example.org'],
          annotations: { [`${N}controller`]: 'dns-controller' },
        }),
      ],
    },
    records: ['ours.example.org. A 10.9.0.1'],
  },
  {
    name: 'label selector and annotation filter apply to routes',
    snapshot: {
      gateways: [wildcard],
      routes: [
        route('HTTPRoute', 'a', { hostnames: ['a.example.org'], labels: { dns: 'yes' }, annotations: { team: 'x' } }),
        route('HTTPRoute', 'b', { hostnames: ['b.example.org'], labels: { dns: 'yes' } }),
        route('HTTPRoute', 'c', { hostnames: ['c.example.org'], annotations: { team: 'x' } }),
      ],
    },
    options: { labelSelector: 'dns=yes', annotationFilter: 'team=x' },
    records: ['a.example.org. A 10.9.0.1'],
  },
  {
    name: '--gateway-name, --gateway-namespace, --gateway-label-filter',
    snapshot: {
      gateways: [
        gateway('gw', [{}], ['10.9.0.1'], { labels: { expose: 'public' } }),
        gateway('gw', [{}], ['10.9.1.1'], { namespace: 'other', labels: { expose: 'public' } }),
        gateway('private', [{}], ['10.9.2.1'], { labels: { expose: 'private' } }),
        gateway('gw-b', [{}], ['10.9.3.1'], { labels: { expose: 'public' } }),
      ],
      routes: [
        route('HTTPRoute', 'web', {
          hostnames: ['web.example.org'],
          parents: ['gw', 'private', 'gw-b']
            .map((name) => ({ name, namespace: 'infra' }))
            .concat([{ name: 'gw', namespace: 'other' }]),
        }),
      ],
    },
    options: { gatewayName: 'gw', gatewayNamespace: 'infra', gatewayLabelFilter: 'expose=public' },
    records: ['web.example.org. A 10.9.0.1'],
  },
  {
    name: 'a route attached to a ListenerSet is not read without --gateway-listener-sets',
    snapshot: {
      namespaces,
      gateways: [gateway('gw', [], ['10.9.0.1'], {}, { namespaces: { from: 'All' } })],
      listenerSets: [listenerSet('extra', [{ hostname: 'ls.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    records: [],
  },
  {
    name: 'with --gateway-listener-sets: through an accepted ListenerSet, at its Gateway address',
    snapshot: {
      namespaces,
      gateways: [gateway('gw', [], ['10.9.0.1'], {}, { namespaces: { from: 'All' } })],
      listenerSets: [listenerSet('extra', [{ hostname: 'ls.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    options: { gatewayListenerSets: true },
    records: ['ls.example.org. A 10.9.0.1'],
  },
  {
    name: "a ListenerSet's target annotation wins over its Gateway's",
    snapshot: {
      namespaces,
      gateways: [
        gateway(
          'gw',
          [],
          ['10.9.0.1'],
          { annotations: { [`${N}target`]: '203.0.113.1' } },
          { namespaces: { from: 'All' } },
        ),
      ],
      listenerSets: [
        listenerSet('extra', [{ hostname: 'ls.example.org' }], { annotations: { [`${N}target`]: '203.0.113.9' } }),
      ],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    options: { gatewayListenerSets: true },
    records: ['ls.example.org. A 203.0.113.9'],
  },
  {
    name: "a ListenerSet without a target annotation takes its Gateway's",
    snapshot: {
      namespaces,
      gateways: [
        gateway(
          'gw',
          [],
          ['10.9.0.1'],
          { annotations: { [`${N}target`]: '203.0.113.1' } },
          { namespaces: { from: 'All' } },
        ),
      ],
      listenerSets: [listenerSet('extra', [{ hostname: 'ls.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    options: { gatewayListenerSets: true },
    records: ['ls.example.org. A 203.0.113.1'],
  },
  {
    name: 'a Gateway that allows no ListenerSets (the default)',
    snapshot: {
      namespaces,
      gateways: [gateway('gw', [], ['10.9.0.1'])],
      listenerSets: [listenerSet('extra', [{ hostname: 'ls.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    options: { gatewayListenerSets: true },
    records: [],
  },
  {
    name: 'a Gateway allowing ListenerSets by namespace Selector',
    snapshot: {
      namespaces,
      gateways: [
        gateway(
          'gw',
          [],
          ['10.9.0.1'],
          {},
          { namespaces: { from: 'Selector', selector: { matchLabels: { team: 'b' } } } },
        ),
      ],
      listenerSets: [listenerSet('extra', [{ hostname: 'ls.example.org' }])],
      routes: [route('HTTPRoute', 'web', { parents: [{ name: 'extra', namespace: 'team', kind: 'ListenerSet' }] })],
    },
    options: { gatewayListenerSets: true },
    records: ['ls.example.org. A 10.9.0.1'],
  },
  {
    name: 'a ListenerSet not accepted, and one whose listener is not accepted',
    snapshot: {
      namespaces,
      gateways: [gateway('gw', [], ['10.9.0.1'], {}, { namespaces: { from: 'All' } })],
      listenerSets: [
        listenerSet('refused', [{ hostname: 'a.example.org' }], { accepted: false }),
        listenerSet('half', [{ hostname: 'b.example.org' }], { listenerAccepted: false }),
      ],
      routes: [
        route('HTTPRoute', 'web', {
          parents: [
            { name: 'refused', namespace: 'team', kind: 'ListenerSet' },
            { name: 'half', namespace: 'team', kind: 'ListenerSet' },
          ],
        }),
      ],
    },
    options: { gatewayListenerSets: true },
    records: [],
  },
  {
    name: 'a hostname outside --domain-filter is skipped and reported',
    snapshot: {
      gateways: [gateway('gw', [{}])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org', 'web.example.net'] })],
    },
    options: { domainFilter: ['example.org'] },
    records: ['web.example.org. A 10.9.0.1'],
    problems: ['HostnameNotInDomain web.example.net.'],
  },
  {
    name: 'an unusable Gateway address is reported and skipped',
    snapshot: {
      gateways: [gateway('gw', [{}], ['10.9.0.1', 'not an address'])],
      routes: [route('HTTPRoute', 'web', { hostnames: ['web.example.org'] })],
    },
    records: ['web.example.org. A 10.9.0.1'],
    problems: ['InvalidTarget -'],
  },
];

for (const row of rows) {
  test(`route source: ${row.name}`, () => {
    const result = desiredRecords(row.snapshot, sourceOptions({ sources: ['gateway-httproute'], ...row.options }));
    const lines = result.records
      .map((r) => `${r.name} ${r.type} ${r.target}${r.ttl !== undefined ? ` ${r.ttl}` : ''}`)
      .sort();
    assert.deepEqual(lines, row.records);
    assert.deepEqual(
      result.problems.map((p) => `${p.reason} ${p.name ?? '-'}`),
      row.problems ?? [],
    );
    for (const r of result.records) {
      assert.equal(r.object.namespace, 'apps');
      assert.match(r.object.kind, /Route$/);
    }
  });
}

test('route records carry the route as their resource, named as external-dns names it', () => {
  const result = desiredRecords(
    {
      gateways: [gateway('gw', [{ protocol: 'UDP' }])],
      routes: [route('UDPRoute', 'dns', { annotations: { [`${N}hostname`]: 'dns.example.org' } })],
    },
    sourceOptions({ sources: ['gateway-udproute'] }),
  );
  assert.deepEqual(
    result.records.map((r) => resourceId(r.object)),
    ['udproute/apps/dns'],
  );
});
