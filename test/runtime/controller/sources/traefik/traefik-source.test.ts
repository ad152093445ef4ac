// Table tests of the traefik-proxy source, one test per row: each rule external-dns v0.22 applies
// (source/traefik_proxy.go), the etcdns extension for its #6457, and one test per defect of
// external-dns that etcdns does not repeat (each fails on external-dns's behaviour).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import { readApis, type ClusterKind } from '../../../../../src/config/source-kinds.ts';
import { sourceOptions } from '../../../../../src/runtime/controller/sources/source-options.ts';
import { ruleHosts } from '../../../../../src/runtime/controller/sources/traefik/traefik-rule.ts';
import { traefikSource } from '../../../../../src/runtime/controller/sources/traefik/traefik-source.ts';
import { desiredRecords } from '../../../../support/full-pipeline.ts';
import type { ClusterSnapshot } from '../../../../support/cluster-snapshot.ts';

const N = 'external-dns.kubernetes.io/';
const A = 'external-dns.alpha.kubernetes.io/';
const TARGET = { [`${N}target`]: '192.0.2.10' };

const ruleRows: [rule: string, hosts: string[]][] = [
  ['Host(`a.example.org`)', ['a.example.org']],
  ['Host(`a.example.org`) || Host(`b.example.org`)', ['a.example.org', 'b.example.org']],
  ['Host(`a.example.org`, `b.example.org`)', ['a.example.org', 'b.example.org']],
  ['Host(`a.example.org`) && PathPrefix(`/api`)', ['a.example.org']],
  ['HostHeader(`h.example.org`)', ['h.example.org']],
  ['HostSNI(`tcp.example.org`)', ['tcp.example.org']],
  ['HostSNI(`*`)', []],
  ['Host(``)', []],
  ['HostRegexp(`{sub:[a-z]+}.example.org`)', []],
  ['HostSNIRegexp(`^.+\\.example\\.org$`)', []],
  ['Host( `spaced.example.org` )', ['spaced.example.org']],
  ['Host("dq.example.org")', ['dq.example.org']],
  ['Host("a.example.org") || Host(`b.example.org`)', ['a.example.org', 'b.example.org']],
  ['Host(`a.example.org`) || Host(`a.example.org`)', ['a.example.org']],
  ['Host(`a,b.example.org`)', []],
  ['PathPrefix(`/only`)', []],
];
for (const [rule, hosts] of ruleRows) {
  test(`traefik rule ${rule} -> ${JSON.stringify(hosts)}`, () => {
    assert.deepEqual(ruleHosts(rule), hosts);
  });
}

type Kind = 'IngressRoute' | 'IngressRouteTCP' | 'IngressRouteUDP';
function route(
  kind: Kind,
  name: string,
  o: { matches?: string[]; annotations?: Record<string, string>; labels?: Record<string, string>; legacy?: boolean },
): { kind: ClusterKind; object: KubernetesObject } {
  const group = o.legacy ? 'traefik.containo.us' : 'traefik.io';
  return {
    kind: (o.legacy ? `${kind}.${group}` : kind) as ClusterKind,
    object: {
      apiVersion: `${group}/v1alpha1`,
      kind,
      metadata: { name, namespace: 'apps', annotations: o.annotations ?? {}, labels: o.labels ?? {} },
      spec: { routes: (o.matches ?? []).map((match) => ({ match })) },
    } as KubernetesObject,
  };
}

const lbService = (namespace: string, name: string, ingress: { ip?: string; hostname?: string }[]) => ({
  kind: 'Service' as const,
  object: {
    metadata: { name, namespace },
    spec: { type: 'LoadBalancer' },
    status: { loadBalancer: { ingress } },
  } as V1Service,
});

type Row = {
  name: string;
  objects: { kind: ClusterKind; object: KubernetesObject }[];
  options?: Parameters<typeof sourceOptions>[0];
  /** "name type target [ttl] kind apiVersion" lines, sorted. */
  records: string[];
  problems?: string[];
};

const rows: Row[] = [
  {
    name: 'an IngressRoute: each host of its rule at the target annotation',
    objects: [route('IngressRoute', 'web', { matches: ['Host(`web.example.org`)'], annotations: TARGET })],
    records: ['web.example.org. A 192.0.2.10 IngressRoute traefik.io/v1alpha1'],
  },
  {
    name: 'every route of an IngressRoute, `||` lists, several hosts in one matcher',
    objects: [
      route('IngressRoute', 'web', {
        matches: ['Host(`a.example.org`) || Host(`b.example.org`)', 'Host(`c.example.org`, `d.example.org`)'],
        annotations: TARGET,
      }),
    ],
    records: ['a', 'b', 'c', 'd'].map((h) => `${h}.example.org. A 192.0.2.10 IngressRoute traefik.io/v1alpha1`),
  },
  {
    name: 'an IngressRouteTCP: HostSNI hosts; HostSNI(`*`) publishes nothing',
    objects: [
      route('IngressRouteTCP', 'db', { matches: ['HostSNI(`db.example.org`)'], annotations: TARGET }),
      route('IngressRouteTCP', 'any', { matches: ['HostSNI(`*`)'], annotations: TARGET }),
    ],
    records: ['db.example.org. A 192.0.2.10 IngressRouteTCP traefik.io/v1alpha1'],
  },
  {
    name: 'an IngressRouteUDP: only the hostname annotation (UDP routes have no rule)',
    objects: [
      route('IngressRouteUDP', 'dns', {
        annotations: { ...TARGET, [`${N}hostname`]: 'udp.example.org' },
      }),
    ],
    records: ['udp.example.org. A 192.0.2.10 IngressRouteUDP traefik.io/v1alpha1'],
  },
  {
    name: 'the hostname annotation adds names, under either prefix; the ttl annotation applies to all',
    objects: [
      route('IngressRoute', 'web', {
        matches: ['Host(`web.example.org`)'],
        annotations: { [`${A}target`]: 'lb.example.net', [`${N}hostname`]: 'extra.example.org', [`${N}ttl`]: '60' },
      }),
    ],
    records: [
      'extra.example.org. CNAME lb.example.net. 60 IngressRoute traefik.io/v1alpha1',
      'web.example.org. CNAME lb.example.net. 60 IngressRoute traefik.io/v1alpha1',
    ],
  },
  {
    name: 'without a target annotation nothing is published (external-dns v0.22, its #6457)',
    objects: [route('IngressRoute', 'web', { matches: ['Host(`web.example.org`)'] })],
    records: [],
  },
  {
    name: 'the legacy traefik.containo.us group is read only with --traefik-enable-legacy',
    objects: [
      route('IngressRoute', 'old', { matches: ['Host(`old.example.org`)'], annotations: TARGET, legacy: true }),
    ],
    records: [],
  },
  {
    name: 'with --traefik-enable-legacy a legacy route publishes, its records naming its own group',
    objects: [
      route('IngressRoute', 'old', { matches: ['Host(`old.example.org`)'], annotations: TARGET, legacy: true }),
    ],
    options: { traefikEnableLegacy: true },
    records: ['old.example.org. A 192.0.2.10 IngressRoute traefik.containo.us/v1alpha1'],
  },
  {
    name: 'the annotation and label filters and the controller annotation apply',
    objects: [
      route('IngressRoute', 'mine', { matches: ['Host(`mine.example.org`)'], annotations: { ...TARGET, team: 'a' } }),
      route('IngressRoute', 'theirs', { matches: ['Host(`theirs.example.org`)'], annotations: TARGET }),
      route('IngressRoute', 'other', {
        matches: ['Host(`other.example.org`)'],
        annotations: { ...TARGET, team: 'a', [`${N}controller`]: 'someone-else' },
      }),
    ],
    options: { annotationFilter: 'team=a' },
    records: ['mine.example.org. A 192.0.2.10 IngressRoute traefik.io/v1alpha1'],
  },
  {
    name: 'a host outside --domain-filter is skipped and reported',
    objects: [
      route('IngressRoute', 'web', {
        matches: ['Host(`web.example.org`) || Host(`web.example.net`)'],
        annotations: TARGET,
      }),
    ],
    options: { domainFilter: ['example.org'] },
    records: ['web.example.org. A 192.0.2.10 IngressRoute traefik.io/v1alpha1'],
    problems: ['HostnameNotInDomain web.example.net.'],
  },
  {
    name: 'etcdns extension: with --traefik-service a route without targets takes that Service addresses',
    objects: [
      route('IngressRoute', 'web', { matches: ['Host(`web.example.org`)'] }),
      lbService('kube-system', 'traefik', [{ ip: '192.0.2.80' }, { hostname: 'lb.example.net' }]),
    ],
    options: { traefikService: 'kube-system/traefik' },
    records: [
      'web.example.org. A 192.0.2.80 IngressRoute traefik.io/v1alpha1',
      'web.example.org. CNAME lb.example.net. IngressRoute traefik.io/v1alpha1',
    ],
  },
  {
    name: 'etcdns extension: the etcdns.io/traefik-service annotation names another Service; the target annotation still wins',
    objects: [
      route('IngressRoute', 'internal', {
        matches: ['Host(`internal.example.org`)'],
        annotations: { 'etcdns.io/traefik-service': 'traefik-internal' },
      }),
      route('IngressRoute', 'pinned', { matches: ['Host(`pinned.example.org`)'], annotations: TARGET }),
      lbService('kube-system', 'traefik', [{ ip: '192.0.2.80' }]),
      lbService('apps', 'traefik-internal', [{ ip: '10.0.0.80' }]),
    ],
    options: { traefikService: 'kube-system/traefik' },
    records: [
      'internal.example.org. A 10.0.0.80 IngressRoute traefik.io/v1alpha1',
      'pinned.example.org. A 192.0.2.10 IngressRoute traefik.io/v1alpha1',
    ],
  },
  {
    name: 'etcdns extension: a malformed etcdns.io/traefik-service annotation is reported, the route publishes nothing',
    objects: [
      route('IngressRoute', 'web', {
        matches: ['Host(`web.example.org`)'],
        annotations: { 'etcdns.io/traefik-service': 'a/b/c' },
      }),
    ],
    options: { traefikService: 'kube-system/traefik' },
    records: [],
    problems: ['InvalidAnnotation -'],
  },
];

for (const row of rows) {
  test(`traefik-proxy: ${row.name}`, () => {
    const snapshot: Partial<ClusterSnapshot> = { others: row.objects };
    const result = desiredRecords(snapshot, sourceOptions({ sources: ['traefik-proxy'], ...row.options }));
    const lines = result.records
      .map(
        (r) =>
          `${r.name} ${r.type} ${r.target}${r.ttl !== undefined ? ` ${r.ttl}` : ''} ${r.object.kind} ${r.object.apiVersion}`,
      )
      .sort();
    assert.deepEqual(lines, row.records);
    assert.deepEqual(
      result.problems.map((p) => `${p.reason} ${p.name ?? '-'}`),
      row.problems ?? [],
    );
  });
}

// Defects of external-dns v0.22 that etcdns does not repeat: each assertion fails on its behaviour.

test('external-dns defect: a rule written with double quotes (Traefik allows them) publishes its host', () => {
  const result = desiredRecords(
    { others: [route('IngressRoute', 'web', { matches: ['Host("dq.example.org")'], annotations: TARGET })] },
    sourceOptions({ sources: ['traefik-proxy'] }),
  );
  // external-dns's extractor matches backquotes only: no endpoint at all.
  assert.deepEqual(
    result.records.map((r) => r.name),
    ['dq.example.org.'],
  );
});

test('external-dns defect: a mixed-case host is published lower-case, so the name answers', () => {
  const result = desiredRecords(
    { others: [route('IngressRoute', 'web', { matches: ['Host(`Web.Example.ORG`)'], annotations: TARGET })] },
    sourceOptions({ sources: ['traefik-proxy'] }),
  );
  // external-dns keeps "Web.Example.ORG" in the key (/skydns/ORG/Example/Web), which no lookup reaches.
  assert.deepEqual(
    result.records.map((r) => r.name),
    ['web.example.org.'],
  );
});

test('external-dns #6457: with --traefik-service a route without a target annotation is published', () => {
  const result = desiredRecords(
    {
      others: [
        route('IngressRoute', 'web', { matches: ['Host(`web.example.org`)'] }),
        lbService('kube-system', 'traefik', [{ ip: '192.0.2.80' }]),
      ],
    },
    sourceOptions({ sources: ['traefik-proxy'], traefikService: 'kube-system/traefik' }),
  );
  // external-dns publishes nothing for it, --default-targets or not.
  assert.deepEqual(
    result.records.map((r) => `${r.name} ${r.target}`),
    ['web.example.org. 192.0.2.80'],
  );
});

test('informers: traefik.io unless --traefik-disable-new, traefik.containo.us with --traefik-enable-legacy, Services with --traefik-service', () => {
  const kinds = (switches: Parameters<typeof readApis>[1]) => [...readApis(['traefik-proxy'], switches).keys()];
  assert.deepEqual(kinds({}), ['IngressRoute', 'IngressRouteTCP', 'IngressRouteUDP']);
  assert.deepEqual(kinds({ traefikEnableLegacy: true, traefikDisableNew: true }), [
    'IngressRoute.traefik.containo.us',
    'IngressRouteTCP.traefik.containo.us',
    'IngressRouteUDP.traefik.containo.us',
  ]);
  assert.deepEqual(kinds({ traefikService: 'kube-system/traefik' }), [
    'IngressRoute',
    'IngressRouteTCP',
    'IngressRouteUDP',
    'Service',
  ]);
});

test('a change of the Traefik Service re-plans the routes that take its addresses, and only those', () => {
  const switches = { traefikService: 'kube-system/traefik' };
  const keysOf = (r: ReturnType<typeof route>) => traefikSource.indexKeys!(r.object, 'IngressRoute', switches);
  assert.deepEqual(keysOf(route('IngressRoute', 'a', {})), ['Service/kube-system/traefik']);
  assert.deepEqual(keysOf(route('IngressRoute', 'b', { annotations: { 'etcdns.io/traefik-service': 'x' } })), [
    'Service/apps/x',
  ]);
  assert.deepEqual(keysOf(route('IngressRoute', 'c', { annotations: TARGET })), []);
  const touched = traefikSource.changes!.Service!(
    lbService('kube-system', 'traefik', []).object,
    { objects: () => [] },
    switches,
  );
  assert.deepEqual(touched, { keys: ['Service/kube-system/traefik'] });
});
