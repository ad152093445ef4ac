// Table tests of the sources: Kubernetes objects in, desired records and problems out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import { resourceId } from '../../../../src/runtime/controller/desired-record.ts';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { parseTtl } from '../../../../src/runtime/controller/sources/annotations.ts';
import { matchesSelector, parseSelector } from '../../../../src/config/label-selector.ts';

const A = 'external-dns.alpha.kubernetes.io/';
const N = 'external-dns.kubernetes.io/';

function svc(
  name: string,
  spec: V1Service['spec'],
  annotations: Record<string, string>,
  extra: Partial<V1Service> = {},
): V1Service {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations, ...extra.metadata },
    spec,
    status: extra.status ?? {},
  };
}
const lb = (...ips: string[]) => ({
  loadBalancer: { ingress: ips.map((ip) => (/[a-z]/.test(ip) && !ip.includes(':') ? { hostname: ip } : { ip })) },
});
function node(name: string, addresses: [string, string][], unschedulable = false): V1Node {
  return {
    metadata: { name },
    spec: { unschedulable },
    status: { addresses: addresses.map(([type, address]) => ({ type, address })) },
  };
}
function slice(
  service: string,
  endpoints: { ip: string; ready?: boolean; node?: string; hostname?: string }[],
): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: `${service}-x`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      ...(e.ready === undefined ? {} : { conditions: { ready: e.ready } }),
      ...(e.node ? { nodeName: e.node } : {}),
      ...(e.hostname ? { hostname: e.hostname } : {}),
    })),
  };
}
function ing(
  name: string,
  spec: V1Ingress['spec'],
  status: V1Ingress['status'],
  annotations: Record<string, string> = {},
): V1Ingress {
  return { metadata: { name, namespace: 'web', uid: `uid-${name}`, annotations }, spec, status };
}

const nodes = [
  node('n1', [
    ['InternalIP', '10.0.0.1'],
    ['ExternalIP', '203.0.113.1'],
  ]),
  node('n2', [
    ['InternalIP', '10.0.0.2'],
    ['ExternalIP', '203.0.113.2'],
  ]),
  node(
    'n3',
    [
      ['InternalIP', '10.0.0.3'],
      ['ExternalIP', '203.0.113.3'],
    ],
    true,
  ),
];
const internalOnlyNodes = [node('n1', [['InternalIP', '10.0.0.1']]), node('n2', [['InternalIP', 'fd00::2']])];

type Row = {
  name: string;
  snapshot: Partial<ClusterSnapshot>;
  options?: Parameters<typeof sourceOptions>[0];
  /** "name type target [ttl]" lines, sorted. */
  records: string[];
  /** "reason name" lines. */
  problems?: string[];
};

const rows: Row[] = [
  {
    name: 'LoadBalancer with IPv4, IPv6 and hostname targets under the alpha prefix',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'Web.Example.org, www.example.org' },
          { status: lb('10.9.176.213', '2001:db8::1') },
        ),
      ],
    },
    records: [
      'web.example.org. A 10.9.176.213',
      'web.example.org. AAAA 2001:db8::1',
      'www.example.org. A 10.9.176.213',
      'www.example.org. AAAA 2001:db8::1',
    ],
  },
  {
    name: 'LoadBalancer with a hostname target gives a CNAME; the new prefix and a duration ttl',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${N}hostname`]: 'web.example.org', [`${N}ttl`]: '1m30s' },
          { status: lb('lb.provider.net') },
        ),
      ],
    },
    records: ['web.example.org. CNAME lb.provider.net. 90'],
  },
  {
    name: 'the new prefix wins over the alpha prefix; ttl in seconds',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'old.example.org', [`${N}hostname`]: 'new.example.org', [`${A}ttl`]: '60' },
          { status: lb('10.0.0.9') },
        ),
      ],
    },
    records: ['new.example.org. A 10.0.0.9 60'],
  },
  {
    name: 'LoadBalancer without an address yet publishes nothing',
    snapshot: { services: [svc('web', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'web.example.org' })] },
    records: [],
  },
  {
    name: 'target annotation overrides the load-balancer address; a bad target is skipped and reported',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'web.example.org', [`${A}target`]: '192.0.2.7, not_valid!, 999.1.1.1' },
          { status: lb('10.0.0.9') },
        ),
      ],
    },
    records: ['web.example.org. A 192.0.2.7'],
    problems: ['InvalidTarget -', 'InvalidTarget -'],
  },
  {
    name: 'NodePort: external IPs of schedulable nodes plus one SRV per node port',
    snapshot: {
      nodes,
      services: [
        svc(
          'np',
          {
            type: 'NodePort',
            ports: [
              { port: 80, nodePort: 30080, protocol: 'TCP' },
              { port: 53, nodePort: 30053, protocol: 'UDP' },
            ],
          },
          { [`${A}hostname`]: 'np.example.org' },
        ),
      ],
    },
    records: [
      '_np._tcp.np.example.org. SRV np.example.org. port=30080',
      '_np._udp.np.example.org. SRV np.example.org. port=30053',
      'np.example.org. A 203.0.113.1',
      'np.example.org. A 203.0.113.2',
    ],
  },
  {
    name: 'NodePort access=private uses internal IPs',
    snapshot: {
      nodes,
      services: [
        svc('np', { type: 'NodePort', ports: [] }, { [`${A}hostname`]: 'np.example.org', [`${A}access`]: 'private' }),
      ],
    },
    records: ['np.example.org. A 10.0.0.1', 'np.example.org. A 10.0.0.2'],
  },
  {
    name: 'NodePort falls back to internal IPs (v4 and v6) when no node has an external one',
    snapshot: {
      nodes: internalOnlyNodes,
      services: [svc('np', { type: 'NodePort' }, { [`${A}hostname`]: 'np.example.org' })],
    },
    records: ['np.example.org. A 10.0.0.1', 'np.example.org. AAAA fd00::2'],
  },
  {
    name: 'NodePort with externalTrafficPolicy Local: only nodes with a ready endpoint',
    snapshot: {
      nodes,
      endpointSlices: [
        slice('np', [
          { ip: '10.1.0.1', node: 'n2' },
          { ip: '10.1.0.2', node: 'n1', ready: false },
        ]),
      ],
      services: [
        svc('np', { type: 'NodePort', externalTrafficPolicy: 'Local' }, { [`${A}hostname`]: 'np.example.org' }),
      ],
    },
    records: ['np.example.org. A 203.0.113.2'],
  },
  {
    name: 'NodePort with a bad access value is reported and uses the default',
    snapshot: {
      nodes,
      services: [svc('np', { type: 'NodePort' }, { [`${A}hostname`]: 'np.example.org', [`${A}access`]: 'everyone' })],
    },
    records: ['np.example.org. A 203.0.113.1', 'np.example.org. A 203.0.113.2'],
    problems: ['InvalidAnnotation -'],
  },
  {
    name: 'ClusterIP with hostname only is not published',
    snapshot: {
      services: [svc('c', { type: 'ClusterIP', clusterIP: '10.96.0.10' }, { [`${A}hostname`]: 'c.example.org' })],
    },
    records: [],
  },
  {
    name: 'ClusterIP with internal-hostname publishes the cluster IPs',
    snapshot: {
      services: [
        svc(
          'c',
          { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00:96::10'] },
          { [`${A}internal-hostname`]: 'c.internal.example.org' },
        ),
      ],
    },
    records: ['c.internal.example.org. A 10.96.0.10', 'c.internal.example.org. AAAA fd00:96::10'],
  },
  {
    name: 'ClusterIP with hostname and --publish-cluster-ip',
    snapshot: {
      services: [svc('c', { type: 'ClusterIP', clusterIP: '10.96.0.10' }, { [`${A}hostname`]: 'c.example.org' })],
    },
    options: { publishClusterIp: true },
    records: ['c.example.org. A 10.96.0.10'],
  },
  {
    name: 'LoadBalancer with both hostname and internal-hostname',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer', clusterIP: '10.96.0.5' },
          { [`${A}hostname`]: 'web.example.org', [`${A}internal-hostname`]: 'web.int.example.org' },
          { status: lb('10.9.0.1') },
        ),
      ],
    },
    records: ['web.example.org. A 10.9.0.1', 'web.int.example.org. A 10.96.0.5'],
  },
  {
    name: 'headless: ready endpoint addresses and per-pod names',
    snapshot: {
      endpointSlices: [
        slice('db', [
          { ip: '10.1.0.1', hostname: 'db-0' },
          { ip: '10.1.0.2', hostname: 'db-1', ready: true },
          { ip: '10.1.0.3', hostname: 'db-2', ready: false },
        ]),
        slice('other', [{ ip: '10.2.0.1' }]),
      ],
      services: [svc('db', { type: 'ClusterIP', clusterIP: 'None' }, { [`${A}hostname`]: 'db.example.org' })],
    },
    records: [
      'db-0.db.example.org. A 10.1.0.1',
      'db-1.db.example.org. A 10.1.0.2',
      'db.example.org. A 10.1.0.1',
      'db.example.org. A 10.1.0.2',
    ],
  },
  {
    name: 'headless with publishNotReadyAddresses includes not-ready endpoints',
    snapshot: {
      endpointSlices: [slice('db', [{ ip: '10.1.0.1' }, { ip: '10.1.0.3', ready: false }])],
      services: [
        svc('db', { clusterIP: 'None', publishNotReadyAddresses: true }, { [`${A}hostname`]: 'db.example.org' }),
      ],
    },
    records: ['db.example.org. A 10.1.0.1', 'db.example.org. A 10.1.0.3'],
  },
  {
    name: "headless with endpoints-type NodeExternalIP uses the external IPs of the endpoints' nodes",
    snapshot: {
      nodes,
      endpointSlices: [
        slice('db', [
          { ip: '10.1.0.1', node: 'n1' },
          { ip: '10.1.0.2', node: 'n1' },
        ]),
      ],
      services: [
        svc(
          'db',
          { clusterIP: 'None' },
          { [`${A}hostname`]: 'db.example.org', [`${A}endpoints-type`]: 'NodeExternalIP' },
        ),
      ],
    },
    records: ['db.example.org. A 203.0.113.1'],
  },
  {
    name: 'ExternalName gives a CNAME',
    snapshot: {
      services: [
        svc(
          'ext',
          { type: 'ExternalName', externalName: 'Upstream.Example.net' },
          { [`${A}hostname`]: 'ext.example.org' },
        ),
      ],
    },
    records: ['ext.example.org. CNAME upstream.example.net.'],
  },
  {
    name: 'invalid hostname and out-of-range ttl skip only their names',
    snapshot: {
      services: [
        svc(
          'bad',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'good.example.org,bad..example.org,-x.example.org' },
          { status: lb('10.0.0.1') },
        ),
        svc(
          'ttl',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'ttl.example.org', [`${A}ttl`]: '0' },
          { status: lb('10.0.0.2') },
        ),
        svc('ok', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'ok.example.org' }, { status: lb('10.0.0.3') }),
      ],
    },
    records: ['good.example.org. A 10.0.0.1', 'ok.example.org. A 10.0.0.3'],
    problems: ['InvalidHostname bad..example.org', 'InvalidHostname -x.example.org', 'InvalidTTL ttl.example.org.'],
  },
  {
    name: 'domain filter: outside names are reported, excluded names silently dropped',
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'a.example.org,b.other.org,c.internal.example.org' },
          { status: lb('10.0.0.1') },
        ),
      ],
    },
    options: { domainFilter: ['example.org'], excludeDomains: ['internal.example.org'] },
    records: ['a.example.org. A 10.0.0.1'],
    problems: ['HostnameNotInDomain b.other.org.'],
  },
  {
    name: "a spoke's claims: a name outside them is refused (NameNotClaimed), the others publish",
    snapshot: {
      services: [
        svc(
          'web',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'a.dc1.example.org,b.dc2.example.org,c.internal.dc1.example.org' },
          { status: lb('10.0.0.1') },
        ),
      ],
    },
    options: {
      cluster: 'dc1',
      claims: [{ suffix: 'dc1.example.org' }],
      domainFilter: ['example.org'],
      excludeDomains: ['internal.dc1.example.org'],
    },
    records: ['a.dc1.example.org. A 10.0.0.1'],
    problems: ['NameNotClaimed b.dc2.example.org.'],
  },
  {
    name: "a spoke's claims for namespaces: another namespace's name is refused",
    snapshot: {
      services: [
        svc('web', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'web.shop.example.org' }, { status: lb('10.0.0.1') }),
        svc(
          'api',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'api.shop.example.org' },
          { status: lb('10.0.0.2'), metadata: { namespace: 'shop' } },
        ),
      ],
    },
    options: { cluster: 'dc1', claims: [{ suffix: 'shop.example.org', namespaces: ['shop'] }] },
    records: ['api.shop.example.org. A 10.0.0.2'],
    problems: ['NameNotClaimed web.shop.example.org.'],
  },
  {
    name: 'namespace, label selector, annotation filter and the controller annotation',
    snapshot: {
      services: [
        svc(
          'a',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'a.example.org', team: 'x' },
          { status: lb('10.0.0.1'), metadata: { labels: { app: 'dns' } } },
        ),
        svc(
          'b',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'b.example.org', team: 'x' },
          { status: lb('10.0.0.2'), metadata: { labels: { app: 'other' } } },
        ),
        svc(
          'c',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'c.example.org' },
          { status: lb('10.0.0.3'), metadata: { labels: { app: 'dns' } } },
        ),
        svc(
          'd',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'd.example.org', team: 'x', [`${A}controller`]: 'someone-else' },
          { status: lb('10.0.0.4'), metadata: { labels: { app: 'dns' } } },
        ),
        svc(
          'e',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'e.example.org', team: 'x', [`${A}controller`]: 'dns-controller' },
          { status: lb('10.0.0.5'), metadata: { labels: { app: 'dns' } } },
        ),
        svc(
          'f',
          { type: 'LoadBalancer' },
          { [`${A}hostname`]: 'f.example.org', team: 'x' },
          { status: lb('10.0.0.6'), metadata: { namespace: 'kube-system', labels: { app: 'dns' } } },
        ),
      ],
    },
    options: { namespace: 'default', labelSelector: 'app in (dns)', annotationFilter: 'team=x' },
    records: ['a.example.org. A 10.0.0.1', 'e.example.org. A 10.0.0.5'],
  },
  {
    name: 'Ingress: rule hosts, TLS hosts and the hostname annotation point at every address',
    snapshot: {
      ingresses: [
        ing(
          'site',
          {
            rules: [{ host: 'site.example.org' }, { host: '*.apps.example.org' }, {}],
            tls: [{ hosts: ['tls.example.org', 'site.example.org'] }],
          },
          lb('10.9.0.1', 'lb.provider.net'),
          { [`${A}hostname`]: 'extra.example.org' },
        ),
      ],
    },
    records: [
      '*.apps.example.org. A 10.9.0.1',
      '*.apps.example.org. CNAME lb.provider.net.',
      'extra.example.org. A 10.9.0.1',
      'extra.example.org. CNAME lb.provider.net.',
      'site.example.org. A 10.9.0.1',
      'site.example.org. CNAME lb.provider.net.',
      'tls.example.org. A 10.9.0.1',
      'tls.example.org. CNAME lb.provider.net.',
    ],
  },
  {
    name: 'Ingress class filter: spec.ingressClassName or the legacy annotation',
    snapshot: {
      ingresses: [
        ing('a', { ingressClassName: 'nginx', rules: [{ host: 'a.example.org' }] }, lb('10.0.0.1')),
        ing('b', { rules: [{ host: 'b.example.org' }] }, lb('10.0.0.2'), { 'kubernetes.io/ingress.class': 'nginx' }),
        ing('c', { ingressClassName: 'traefik', rules: [{ host: 'c.example.org' }] }, lb('10.0.0.3')),
        ing('d', { rules: [{ host: 'd.example.org' }] }, lb('10.0.0.4')),
      ],
    },
    options: { ingressClasses: ['nginx'] },
    records: ['a.example.org. A 10.0.0.1', 'b.example.org. A 10.0.0.2'],
  },
  {
    name: 'Ingress hostname source annotation-only (alpha prefix): only the hostname annotation',
    snapshot: {
      ingresses: [
        ing('site', { rules: [{ host: 'rule.example.org' }], tls: [{ hosts: ['tls.example.org'] }] }, lb('10.0.0.1'), {
          [`${A}hostname`]: 'annotated.example.org',
          [`${A}ingress-hostname-source`]: 'annotation-only',
        }),
      ],
    },
    records: ['annotated.example.org. A 10.0.0.1'],
  },
  {
    name: 'Ingress hostname source defined-hosts-only (new prefix, any case): only rule and TLS hosts',
    snapshot: {
      ingresses: [
        ing('site', { rules: [{ host: 'rule.example.org' }], tls: [{ hosts: ['tls.example.org'] }] }, lb('10.0.0.1'), {
          [`${N}hostname`]: 'annotated.example.org',
          [`${N}ingress-hostname-source`]: 'Defined-Hosts-Only',
        }),
      ],
    },
    records: ['rule.example.org. A 10.0.0.1', 'tls.example.org. A 10.0.0.1'],
  },
  {
    name: 'Ingress hostname source of another value publishes nothing, as external-dns, and is reported',
    snapshot: {
      ingresses: [
        ing('site', { rules: [{ host: 'rule.example.org' }] }, lb('10.0.0.1'), {
          [`${N}hostname`]: 'annotated.example.org',
          [`${N}ingress-hostname-source`]: 'both',
        }),
      ],
    },
    records: [],
    problems: ['InvalidAnnotation -'],
  },
  {
    name: '--source service ignores Ingresses',
    snapshot: { ingresses: [ing('a', { rules: [{ host: 'a.example.org' }] }, lb('10.0.0.1'))] },
    options: { sources: ['service'] },
    records: [],
  },
];

for (const row of rows) {
  test(`source: ${row.name}`, () => {
    const snapshot: ClusterSnapshot = { services: [], ingresses: [], endpointSlices: [], nodes: [], ...row.snapshot };
    const result = desiredRecords(snapshot, sourceOptions(row.options ?? {}));
    const lines = result.records
      .map(
        (r) =>
          `${r.name} ${r.type} ${r.target}${r.port !== undefined ? ` port=${r.port}` : ''}${r.ttl !== undefined ? ` ${r.ttl}` : ''}`,
      )
      .sort();
    assert.deepEqual(lines, row.records);
    assert.deepEqual(
      result.problems.map((p) => `${p.reason} ${p.name ?? '-'}`),
      row.problems ?? [],
    );
    for (const p of result.problems) assert.ok(p.object.uid?.startsWith('uid-') && p.message.length > 10);
  });
}

test('records carry the resource that asked for them', () => {
  const result = desiredRecords(
    {
      services: [
        svc('web', { type: 'LoadBalancer' }, { [`${A}hostname`]: 'web.example.org' }, { status: lb('10.0.0.1') }),
      ],
      ingresses: [ing('site', { rules: [{ host: 's.example.org' }] }, lb('10.0.0.2'))],
      endpointSlices: [],
      nodes: [],
    },
    sourceOptions({}),
  );
  assert.deepEqual(
    result.records.map((r) => resourceId(r.object)),
    ['service/default/web', 'ingress/web/site'],
  );
});

const ttlRows: [string, number | string][] = [
  ['300', 300],
  ['1', 1],
  ['2147483647', 2147483647],
  ['5m', 300],
  ['1h30m', 5400],
  ['1.5m', 90],
  ['2500ms', 2],
  ['0', 'outside'],
  ['-5', 'outside'],
  ['2147483648', 'outside'],
  ['500ms', 'outside'],
  ['five', 'neither'],
  ['5 m', 'neither'],
  ['', 'neither'],
];
for (const [input, want] of ttlRows) {
  test(`ttl "${input}"`, () => {
    const r = parseTtl(input);
    if (typeof want === 'number') assert.deepEqual(r, { ok: true, ttl: want });
    else assert.ok(!r.ok && r.error.includes(want), JSON.stringify(r));
  });
}

const selectorRows: [string, Record<string, string>, boolean][] = [
  ['', {}, true],
  ['app=web', { app: 'web' }, true],
  ['app==web', { app: 'db' }, false],
  ['app!=web', {}, true],
  ['app!=web', { app: 'web' }, false],
  ['app in (web, db),tier', { app: 'db', tier: 'x' }, true],
  ['app in (web, db),tier', { app: 'db' }, false],
  ['app notin (web)', { app: 'db' }, true],
  ['!legacy', { legacy: 'yes' }, false],
  ['example.com/team=a', { 'example.com/team': 'a' }, true],
];
for (const [selector, labels, want] of selectorRows) {
  test(`selector "${selector}" on ${JSON.stringify(labels)}`, () => {
    assert.equal(matchesSelector(parseSelector(selector), labels), want);
  });
}

test('a malformed selector is an error naming the requirement', () => {
  assert.throws(() => parseSelector('app in web'), /"app in web" is not a selector requirement/);
});
