// --ignore-hostname-annotation, one test per row: external-dns v0.22 drops the hostname annotation
// in the service (every annotation name: a Service publishes nothing), ingress, gateway-* and
// traefik-proxy sources; each row is one object with and without the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { SourceKind } from '../../../../src/config/source-kinds.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';

const N = 'external-dns.kubernetes.io/';
const meta = (annotations: Record<string, string>) => ({ name: 'o', namespace: 'apps', annotations });
const lb = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };

const rows: {
  name: string;
  source: SourceKind;
  snapshot: Partial<ClusterSnapshot>;
  without: string[];
  with: string[];
}[] = [
  {
    name: 'a Service: hostname and internal-hostname publish nothing',
    source: 'service',
    snapshot: {
      services: [
        {
          metadata: meta({ [`${N}hostname`]: 'svc.example.org', [`${N}internal-hostname`]: 'in.example.org' }),
          spec: { type: 'LoadBalancer', clusterIP: '10.0.0.5' },
          status: lb,
        },
      ],
    },
    without: ['in.example.org.', 'svc.example.org.'],
    with: [],
  },
  {
    name: 'an Ingress: its rule hosts stay, the annotation names go',
    source: 'ingress',
    snapshot: {
      ingresses: [
        {
          metadata: meta({ [`${N}hostname`]: 'extra.example.org' }),
          spec: { rules: [{ host: 'web.example.org' }] },
          status: lb,
        },
      ],
    },
    without: ['extra.example.org.', 'web.example.org.'],
    with: ['web.example.org.'],
  },
  {
    name: 'an HTTPRoute: its hostnames stay, the annotation names go',
    source: 'gateway-httproute',
    snapshot: {
      gateways: [
        {
          metadata: { name: 'gw', namespace: 'apps' },
          spec: {
            gatewayClassName: 'c',
            listeners: [{ name: 'l', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
          },
          status: { addresses: [{ value: '192.0.2.1' }] },
        },
      ],
      routes: [
        {
          kind: 'HTTPRoute',
          object: {
            metadata: meta({ [`${N}hostname`]: 'extra.example.org' }),
            spec: { parentRefs: [{ name: 'gw' }], hostnames: ['web.example.org'] },
            status: {
              parents: [
                {
                  parentRef: { name: 'gw' },
                  controllerName: 'c',
                  conditions: [{ type: 'Accepted', status: 'True' }],
                },
              ],
            },
          },
        },
      ],
    },
    without: ['extra.example.org.', 'web.example.org.'],
    with: ['web.example.org.'],
  },
  {
    name: 'a Traefik IngressRoute: its rule hosts stay, the annotation names go',
    source: 'traefik-proxy',
    snapshot: {
      others: [
        {
          kind: 'IngressRoute',
          object: {
            apiVersion: 'traefik.io/v1alpha1',
            kind: 'IngressRoute',
            metadata: meta({ [`${N}hostname`]: 'extra.example.org', [`${N}target`]: '192.0.2.1' }),
            spec: { routes: [{ match: 'Host(`web.example.org`)' }] },
          } as KubernetesObject,
        },
      ],
    },
    without: ['extra.example.org.', 'web.example.org.'],
    with: ['web.example.org.'],
  },
];

for (const row of rows) {
  test(`--ignore-hostname-annotation: ${row.name}`, () => {
    const names = (ignoreHostnameAnnotation: boolean) =>
      [
        ...new Set(
          desiredRecords(row.snapshot, sourceOptions({ sources: [row.source], ignoreHostnameAnnotation })).records.map(
            (r) => r.name,
          ),
        ),
      ].sort();
    assert.deepEqual(names(false), row.without);
    assert.deepEqual(names(true), row.with);
  });
}
