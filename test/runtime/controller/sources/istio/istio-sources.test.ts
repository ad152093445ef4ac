// Table tests of the istio-gateway and istio-virtualservice sources, one test per row: Kubernetes
// objects in, records and problems out, as external-dns v0.22 publishes them, and where etcdns
// departs from it (marked "etcdns:"; each of those rows fails on external-dns's behaviour).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import { resourceId } from '../../../../../src/runtime/controller/desired-record.ts';
import type { IstioGateway, VirtualService } from '../../../../../src/runtime/controller/sources/istio/istio-api.ts';
import { istioGatewayRecords } from '../../../../../src/runtime/controller/sources/istio/istio-gateway-source.ts';
import { virtualServiceRecords } from '../../../../../src/runtime/controller/sources/istio/virtual-service-source.ts';
import type { SourceResult } from '../../../../../src/runtime/controller/sources/record-builder.ts';
import { sourceOptions } from '../../../../../src/runtime/controller/sources/source-options.ts';
import { gw, ingress, istioContext, N, svc, vs } from './istio-objects.ts';

const services: V1Service[] = [
  svc('ingressgateway', {
    selector: { istio: 'ingressgateway' },
    addresses: [{ ip: '203.0.113.10' }],
    namespace: 'istio-system',
  }),
  svc('unrelated', { selector: { app: 'web' }, addresses: [{ ip: '192.0.2.99' }], namespace: 'apps' }),
  svc('no-selector', { selector: undefined, addresses: [{ ip: '192.0.2.98' }], namespace: 'apps' }),
];
const ingresses: V1Ingress[] = [ingress('front', 'infra', [{ ip: '203.0.113.20' }])];
const selector = { istio: 'ingressgateway' };

type Row = {
  name: string;
  gateways?: IstioGateway[];
  virtualServices?: VirtualService[];
  options?: Parameters<typeof sourceOptions>[0];
  /** "resource name type target [ttl]" lines, sorted. */
  records: string[];
  /** "resource reason name" lines. */
  problems?: string[];
};

function run(row: Row): SourceResult {
  const options = sourceOptions({ sources: ['istio-gateway', 'istio-virtualservice'], ...row.options });
  const context = istioContext({ services, ingresses, gateways: row.gateways ?? [], namespace: options.namespace });
  const out: SourceResult = { records: [], problems: [] };
  for (const g of row.gateways ?? []) if (!row.virtualServices) istioGatewayRecords(g, context, options, out);
  for (const v of row.virtualServices ?? []) virtualServiceRecords(v, context, options, out);
  return out;
}

const gatewayRows: Row[] = [
  {
    name: 'server hosts point at the load-balancer address of the Services its selector selects',
    gateways: [gw('public', { selector, servers: [['web.example.org', 'api.example.org']] })],
    records: [
      'gateway/infra/public api.example.org. A 203.0.113.10',
      'gateway/infra/public web.example.org. A 203.0.113.10',
    ],
  },
  {
    name: 'the namespace scope of a host is stripped; "*" is skipped; a wildcard is published',
    gateways: [gw('public', { selector, servers: [['apps/web.example.org', '*'], ['*.example.org']] })],
    records: [
      'gateway/infra/public *.example.org. A 203.0.113.10',
      'gateway/infra/public web.example.org. A 203.0.113.10',
    ],
  },
  {
    name: 'etcdns: mixed-case hosts are published lower-case',
    gateways: [gw('public', { selector, servers: [['Web.Example.ORG']] })],
    records: ['gateway/infra/public web.example.org. A 203.0.113.10'],
  },
  {
    name: 'the hostname annotation adds names',
    gateways: [
      gw('public', {
        selector,
        servers: [['web.example.org']],
        annotations: { [`${N}hostname`]: 'extra.example.org' },
      }),
    ],
    records: [
      'gateway/infra/public extra.example.org. A 203.0.113.10',
      'gateway/infra/public web.example.org. A 203.0.113.10',
    ],
  },
  {
    name: '--ignore-hostname-annotation: the server hosts only',
    gateways: [
      gw('public', {
        selector,
        servers: [['web.example.org']],
        annotations: { [`${N}hostname`]: 'extra.example.org' },
      }),
    ],
    options: { ignoreHostnameAnnotation: true },
    records: ['gateway/infra/public web.example.org. A 203.0.113.10'],
  },
  {
    name: 'the target annotation replaces the Services; names and addresses alike',
    gateways: [
      gw('public', { selector, servers: [['web.example.org']], annotations: { [`${N}target`]: 'lb.example.net' } }),
    ],
    records: ['gateway/infra/public web.example.org. CNAME lb.example.net.'],
  },
  {
    name: 'the ingress annotation: the Ingress load-balancer address',
    gateways: [gw('public', { servers: [['web.example.org']], annotations: { [`${N}ingress`]: 'front' } })],
    records: ['gateway/infra/public web.example.org. A 203.0.113.20'],
  },
  {
    name: 'no targets: nothing',
    gateways: [gw('public', { selector: { istio: 'none' }, servers: [['web.example.org']] })],
    records: [],
  },
  {
    name: "etcdns: a Gateway without a selector takes no Service's address (external-dns: every Service's)",
    gateways: [gw('public', { servers: [['web.example.org']] })],
    records: [],
  },
  {
    name: 'etcdns: a missing Ingress skips that Gateway alone, reported (external-dns exits)',
    gateways: [
      gw('broken', { servers: [['broken.example.org']], annotations: { [`${N}ingress`]: 'gone' } }),
      gw('public', { selector, servers: [['web.example.org']] }),
    ],
    records: ['gateway/infra/public web.example.org. A 203.0.113.10'],
    problems: ['gateway/infra/broken InvalidReference -'],
  },
  {
    name: 'etcdns: a malformed ingress annotation skips that Gateway alone, reported (external-dns exits)',
    gateways: [
      gw('broken', { servers: [['broken.example.org']], annotations: { [`${N}ingress`]: 'a/b/c' } }),
      gw('public', { selector, servers: [['web.example.org']] }),
    ],
    records: ['gateway/infra/public web.example.org. A 203.0.113.10'],
    problems: ['gateway/infra/broken InvalidReference -'],
  },
  {
    name: 'the ttl annotation',
    gateways: [gw('public', { selector, servers: [['web.example.org']], annotations: { [`${N}ttl`]: '1m' } })],
    records: ['gateway/infra/public web.example.org. A 203.0.113.10 60'],
  },
  {
    name: 'the controller annotation naming another controller',
    gateways: [
      gw('public', { selector, servers: [['web.example.org']], annotations: { [`${N}controller`]: 'other' } }),
    ],
    records: [],
  },
  {
    name: 'label selector and annotation filter',
    gateways: [
      gw('a', { selector, servers: [['a.example.org']], labels: { dns: 'yes' }, annotations: { team: 'x' } }),
      gw('b', { selector, servers: [['b.example.org']], labels: { dns: 'yes' } }),
    ],
    options: { labelSelector: 'dns=yes', annotationFilter: 'team=x' },
    records: ['gateway/infra/a a.example.org. A 203.0.113.10'],
  },
  {
    name: '--namespace: Gateways there only, and Services there only',
    gateways: [
      gw('public', { selector, servers: [['web.example.org']] }),
      gw('system', { namespace: 'istio-system', selector, servers: [['sys.example.org']] }),
      gw('apps-gw', { namespace: 'apps', selector: { app: 'web' }, servers: [['apps.example.org']] }),
    ],
    options: { namespace: 'istio-system' },
    records: ['gateway/istio-system/system sys.example.org. A 203.0.113.10'],
  },
  {
    name: 'a name outside --domain-filter is skipped and reported; a bad name is reported',
    gateways: [gw('public', { selector, servers: [['web.example.org', 'web.example.net', 'a/b/c.example.org']] })],
    options: { domainFilter: ['example.org'] },
    records: ['gateway/infra/public web.example.org. A 203.0.113.10'],
    problems: [
      'gateway/infra/public HostnameNotInDomain web.example.net.',
      'gateway/infra/public InvalidHostname a/b/c.example.org',
    ],
  },
];

const bound = gw('public', { selector, servers: [['*.example.org']] });
const vsRows: Row[] = [
  {
    name: 'a host bound through a "namespace/name" Gateway takes its targets',
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] })],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'a bare Gateway name is in the VirtualService namespace',
    gateways: [
      bound,
      gw('public', { namespace: 'apps', servers: [['*']], annotations: { [`${N}target`]: '192.0.2.5' } }),
    ],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['public'] })],
    records: ['virtualservice/apps/web web.example.org. A 192.0.2.5'],
  },
  {
    name: '"mesh" is ignored; without another Gateway, nothing',
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['mesh'] })],
    records: [],
  },
  {
    name: 'no spec.gateways: nothing',
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'] })],
    records: [],
  },
  {
    name: 'a Gateway that does not exist gives nothing, unreported',
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/gone', 'infra/public'] })],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'only hosts a Gateway serves; "*" is skipped',
    gateways: [gw('public', { selector, servers: [['web.example.org']] })],
    virtualServices: [vs('web', { hosts: ['web.example.org', 'api.example.org', '*'], gateways: ['infra/public'] })],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'each host takes the targets of the Gateways that serve it',
    gateways: [
      gw('a', { servers: [['a.example.org', 'both.example.org']], annotations: { [`${N}target`]: '192.0.2.1' } }),
      gw('b', { servers: [['b.example.org', 'both.example.org']], annotations: { [`${N}target`]: '192.0.2.2' } }),
    ],
    virtualServices: [
      vs('web', { hosts: ['a.example.org', 'b.example.org', 'both.example.org'], gateways: ['infra/a', 'infra/b'] }),
    ],
    records: [
      'virtualservice/apps/web a.example.org. A 192.0.2.1',
      'virtualservice/apps/web b.example.org. A 192.0.2.2',
      'virtualservice/apps/web both.example.org. A 192.0.2.1',
      'virtualservice/apps/web both.example.org. A 192.0.2.2',
    ],
  },
  {
    name: 'exportTo leaving out the Gateway namespace',
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'], exportTo: ['.'] })],
    records: [],
  },
  {
    name: 'a server host scoped to another namespace',
    gateways: [gw('public', { selector, servers: [['team/*.example.org']] })],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] })],
    records: [],
  },
  {
    name: "the VirtualService's target annotation: every host, bound or not",
    gateways: [],
    virtualServices: [vs('web', { hosts: ['web.example.org'], annotations: { [`${N}target`]: '192.0.2.9' } })],
    records: ['virtualservice/apps/web web.example.org. A 192.0.2.9'],
  },
  {
    name: 'an empty target annotation is read as absent: the Gateways give the targets',
    gateways: [bound],
    virtualServices: [
      vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'], annotations: { [`${N}target`]: '' } }),
    ],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'the hostname annotation, bound like a host; a namespace prefix on a host is stripped',
    gateways: [gw('public', { selector, servers: [['web.example.org', 'extra.example.org']] })],
    virtualServices: [
      vs('web', {
        hosts: ['apps/web.example.org'],
        gateways: ['infra/public'],
        annotations: { [`${N}hostname`]: 'extra.example.org,unbound.example.org' },
      }),
    ],
    records: [
      'virtualservice/apps/web extra.example.org. A 203.0.113.10',
      'virtualservice/apps/web web.example.org. A 203.0.113.10',
    ],
  },
  {
    name: "the Gateway's ingress annotation gives the VirtualService its targets",
    gateways: [gw('public', { servers: [['*']], annotations: { [`${N}ingress`]: 'front' } })],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] })],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.20'],
  },
  {
    name: '--ignore-hostname-annotation: spec.hosts only',
    gateways: [bound],
    virtualServices: [
      vs('web', {
        hosts: ['web.example.org'],
        gateways: ['infra/public'],
        annotations: { [`${N}hostname`]: 'extra.example.org' },
      }),
    ],
    options: { ignoreHostnameAnnotation: true },
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'the ttl annotation of the VirtualService',
    gateways: [bound],
    virtualServices: [
      vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'], annotations: { [`${N}ttl`]: '300' } }),
    ],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10 300'],
  },
  {
    name: 'etcdns: mixed-case hosts bind and are published lower-case',
    gateways: [gw('public', { selector, servers: [['Web.example.org']] })],
    virtualServices: [vs('web', { hosts: ['WEB.example.org'], gateways: ['infra/public'] })],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
  },
  {
    name: 'etcdns: a gateway reference "a/b/c" skips that VirtualService alone, reported (external-dns exits)',
    gateways: [bound],
    virtualServices: [
      vs('broken', { hosts: ['broken.example.org'], gateways: ['infra/public', 'a/b/c'] }),
      vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] }),
    ],
    records: ['virtualservice/apps/web web.example.org. A 203.0.113.10'],
    problems: ['virtualservice/apps/broken InvalidReference -'],
  },
  {
    name: 'etcdns: a Gateway whose controller annotation names another controller gives no targets (external-dns follows it)',
    gateways: [
      gw('theirs', { selector, servers: [['*.example.org']], annotations: { [`${N}controller`]: 'someone-else' } }),
      bound,
    ],
    virtualServices: [
      vs('web', { hosts: ['web.example.org'], gateways: ['infra/theirs'] }),
      vs('both', { hosts: ['both.example.org'], gateways: ['infra/theirs', 'infra/public'] }),
    ],
    records: ['virtualservice/apps/both both.example.org. A 203.0.113.10'],
  },
  {
    name: 'etcdns: a bound Gateway with a missing Ingress gives no targets, reported once (external-dns exits)',
    gateways: [gw('broken', { servers: [['*.example.org']], annotations: { [`${N}ingress`]: 'gone' } }), bound],
    virtualServices: [
      vs('web', { hosts: ['web.example.org', 'api.example.org'], gateways: ['infra/broken', 'infra/public'] }),
    ],
    records: [
      'virtualservice/apps/web api.example.org. A 203.0.113.10',
      'virtualservice/apps/web web.example.org. A 203.0.113.10',
    ],
    problems: ['virtualservice/apps/web InvalidReference -'],
  },
  {
    name: "etcdns: a bound Gateway without a selector gives no Service's address",
    gateways: [gw('public', { servers: [['*']] })],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] })],
    records: [],
  },
  {
    name: 'the VirtualService controller annotation, label selector and annotation filter',
    gateways: [bound],
    virtualServices: [
      vs('a', { hosts: ['a.example.org'], gateways: ['infra/public'], labels: { dns: 'yes' } }),
      vs('b', {
        hosts: ['b.example.org'],
        gateways: ['infra/public'],
        labels: { dns: 'yes' },
        annotations: { [`${N}controller`]: 'other' },
      }),
      vs('c', { hosts: ['c.example.org'], gateways: ['infra/public'] }),
    ],
    options: { labelSelector: 'dns=yes' },
    records: ['virtualservice/apps/a a.example.org. A 203.0.113.10'],
  },
];

for (const [source, rows] of [
  ['istio-gateway', gatewayRows],
  ['istio-virtualservice', vsRows],
] as const)
  for (const row of rows)
    test(`${source}: ${row.name}`, () => {
      const result = run(row);
      const lines = result.records
        .map((r) => `${resourceId(r.object)} ${r.name} ${r.type} ${r.target}${r.ttl !== undefined ? ` ${r.ttl}` : ''}`)
        .sort();
      assert.deepEqual(lines, row.records);
      assert.deepEqual(
        result.problems.map((p) => `${resourceId(p.object)} ${p.reason} ${p.name ?? '-'}`).sort(),
        (row.problems ?? []).sort(),
      );
    });

test('records name their object as Events need it: kind, Istio apiVersion, uid', () => {
  const result = run({
    gateways: [bound],
    virtualServices: [vs('web', { hosts: ['web.example.org'], gateways: ['infra/public'] })],
    name: '',
    records: [],
  });
  assert.deepEqual(result.records[0]!.object, {
    kind: 'VirtualService',
    apiVersion: 'networking.istio.io/v1',
    namespace: 'apps',
    name: 'web',
    uid: 'uid-web',
  });
});
