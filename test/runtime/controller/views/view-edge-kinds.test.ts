// Views' rules on the edge sources' kinds (traefik-proxy, istio-gateway, istio-virtualservice,
// contour-httpproxy, openshift-route, node, pod): a rule's `kinds` names each by its Kubernetes
// kind in lower case, as docs/sources.md lists them, and matches that kind's records only. One
// cluster with an object of every kind; one row per rule kind, through the pure pipeline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ClusterKind } from '../../../../src/config/source-kinds.ts';
import { RULE_KINDS } from '../../../../src/config/source-kinds.ts';
import { withViewDefaults, type ViewInput } from '../../../../src/config/view-config.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { compileViews, viewRecords } from '../../../../src/runtime/controller/views/view-records.ts';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { gw, vs } from '../sources/istio/istio-objects.ts';

const TARGET = 'external-dns.kubernetes.io/target';
const HOSTNAME = 'external-dns.kubernetes.io/hostname';
const meta = (name: string, annotations: Record<string, string> = {}) => ({ name, namespace: 'apps', annotations });
const traefik = (kind: string, name: string, match: string, target: string, group = 'traefik.io') => ({
  kind: (group === 'traefik.io' ? kind : `${kind}.${group}`) as ClusterKind,
  object: {
    apiVersion: `${group}/v1alpha1`,
    kind,
    metadata: meta(name, { [TARGET]: target }),
    spec: { routes: [{ match }] },
  } as KubernetesObject,
});
const other = (kind: ClusterKind, object: object) => ({ kind, object: object as KubernetesObject });

const snapshot: Partial<ClusterSnapshot> = {
  nodes: [
    {
      metadata: { name: 'node-1.example.org' },
      status: { addresses: [{ type: 'ExternalIP', address: '192.0.2.10' }] },
    },
  ],
  others: [
    traefik('IngressRoute', 'web', 'Host(`ingressroute.example.org`)', '10.1.0.1'),
    traefik('IngressRoute', 'old', 'Host(`legacy.example.org`)', '10.1.0.2', 'traefik.containo.us'),
    traefik('IngressRouteTCP', 'db', 'HostSNI(`tcp.example.org`)', '10.1.0.3'),
    other(
      'IstioGateway',
      gw('edge', { servers: [['istio-gateway.example.org', '*']], annotations: { [TARGET]: '10.2.0.1' } }),
    ),
    other('VirtualService', vs('shop', { hosts: ['virtualservice.example.org'], gateways: ['infra/edge'] })),
    other('HTTPProxy', {
      apiVersion: 'projectcontour.io/v1',
      kind: 'HTTPProxy',
      metadata: meta('proxy'),
      spec: { virtualhost: { fqdn: 'httpproxy.example.org' } },
      status: { loadBalancer: { ingress: [{ ip: '10.3.0.1' }] } },
    }),
    other('Route', {
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      metadata: meta('route'),
      spec: { host: 'route.example.org', to: { kind: 'Service', name: 'web' } },
      status: {
        ingress: [
          {
            host: 'route.example.org',
            routerName: 'default',
            routerCanonicalHostname: 'router.apps.example.org',
            conditions: [{ type: 'Admitted', status: 'True' }],
          },
        ],
      },
    }),
    other('Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta('agent', { [HOSTNAME]: 'pod.example.org' }),
      spec: { nodeName: 'node-1.example.org', hostNetwork: true, containers: [] },
      status: { podIP: '192.0.2.10', podIPs: [{ ip: '192.0.2.10' }] },
    }),
  ],
};
snapshot.others = [...snapshot.others!, other('Node', snapshot.nodes![0]!)];

const options = sourceOptions({
  sources: [
    'traefik-proxy',
    'istio-gateway',
    'istio-virtualservice',
    'contour-httpproxy',
    'openshift-route',
    'node',
    'pod',
  ],
  traefikEnableLegacy: true,
});

/** Each rule kind a user writes, with the names of the records it must match (and no others). */
const rows: [ruleKind: string, names: string[]][] = [
  ['ingressroute', ['ingressroute.example.org.', 'legacy.example.org.']],
  ['ingressroutetcp', ['tcp.example.org.']],
  ['gateway', ['istio-gateway.example.org.']],
  ['virtualservice', ['virtualservice.example.org.']],
  ['httpproxy', ['httpproxy.example.org.']],
  ['route', ['route.example.org.']],
  ['node', ['node-1.example.org.']],
  ['pod', ['pod.example.org.']],
];

const published = desiredRecords(snapshot, options);
const allNames = [...new Set(published.records.map((r) => r.name))].sort();

test('every edge kind of the cluster publishes, without problems', () => {
  assert.deepEqual(published.problems, []);
  assert.deepEqual(allNames, rows.flatMap(([, names]) => names).sort());
});

for (const [ruleKind, names] of rows) {
  test(`a view rule with kinds: ["${ruleKind}"] matches exactly that kind's records`, () => {
    assert.ok(RULE_KINDS.includes(ruleKind), `${ruleKind} is one of the rule kinds`);
    const views: ViewInput[] = [
      {
        name: 'internal',
        prefix: '/skydns',
        rules: [{ name: `drop-${ruleKind}`, match: { kinds: [ruleKind] }, action: { drop: true } }],
      },
    ];
    const split = viewRecords(compileViews(withViewDefaults(views), []), published.records, sourceObjects(snapshot));
    const kept = [...new Set(split.views[0]!.records.map((r) => r.name))].sort();
    assert.deepEqual(
      kept,
      allNames.filter((n) => !names.includes(n)),
    );
    const dropped = split.views[0]!.decisions.filter((d) => d.outcome === 'dropped');
    assert.deepEqual([...new Set(dropped.map((d) => d.name))].sort(), names);
    assert.ok(dropped.every((d) => d.rule === `drop-${ruleKind}`));
    assert.deepEqual(split.problems, []);
  });
}
