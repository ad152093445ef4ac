// The controller's ClusterRole grows by exactly what the enabled sources need, shown against the
// real kube-apiserver with the real CRDs of every edge installed: for each source (one test per
// row) a stack with only that source enabled is synthesized, its RBAC applied, and its
// ServiceAccount may list and watch exactly the resources the source reads (its objects and what
// it reads besides, as external-dns's source does) and is refused (403) on every other source's.
import assert from 'node:assert/strict';
import { request, type RequestOptions } from 'node:https';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { SOURCE_KINDS, readApis, type ApiResource, type SourceKind } from '../../../src/config/source-kinds.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { installEdgeCrds } from '../../support/crds.ts';
import { installDnsEndpointCrd, installGatewayApiCrds } from '../../support/gateway-api.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { stopAll } from '../../support/process.ts';
import { serverSideApply } from '../../support/server-side-apply.ts';

type Obj = k8s.KubernetesObject & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Sources = NonNullable<DnsStackProps['sources']>;

/**
 * Per source: the props beyond `kinds`, and what its ServiceAccount may list and watch
 * ("resource.group", "resource" for the core group), written out by hand from external-dns's
 * source and docs/sources.md, not from the registry under test.
 */
const rows: [name: string, source: SourceKind, extra: Omit<Sources, 'kinds'>, reads: string[]][] = [
  ['service', 'service', {}, ['services', 'endpointslices.discovery.k8s.io', 'nodes']],
  ['ingress', 'ingress', {}, ['ingresses.networking.k8s.io']],
  ...(['httproute', 'grpcroute', 'tlsroute', 'tcproute', 'udproute'] as const).map(
    (r) =>
      [
        `gateway-${r}`,
        `gateway-${r}` as SourceKind,
        {},
        [`${r}s.gateway.networking.k8s.io`, 'gateways.gateway.networking.k8s.io', 'namespaces'],
      ] as [string, SourceKind, Omit<Sources, 'kinds'>, string[]],
  ),
  [
    'gateway-httproute --gateway-listener-sets',
    'gateway-httproute',
    { gatewayListenerSets: true },
    [
      'httproutes.gateway.networking.k8s.io',
      'gateways.gateway.networking.k8s.io',
      'listenersets.gateway.networking.k8s.io',
      'namespaces',
    ],
  ],
  ['crd', 'crd', {}, ['dnsendpoints.externaldns.k8s.io']],
  [
    'traefik-proxy',
    'traefik-proxy',
    {},
    ['ingressroutes.traefik.io', 'ingressroutetcps.traefik.io', 'ingressrouteudps.traefik.io'],
  ],
  [
    'traefik-proxy --traefik-enable-legacy --traefik-disable-new',
    'traefik-proxy',
    { traefikEnableLegacy: true, traefikDisableNew: true },
    [
      'ingressroutes.traefik.containo.us',
      'ingressroutetcps.traefik.containo.us',
      'ingressrouteudps.traefik.containo.us',
    ],
  ],
  [
    'traefik-proxy --traefik-service',
    'traefik-proxy',
    { traefikService: 'traefik/traefik' },
    ['ingressroutes.traefik.io', 'ingressroutetcps.traefik.io', 'ingressrouteudps.traefik.io', 'services'],
  ],
  ['istio-gateway', 'istio-gateway', {}, ['gateways.networking.istio.io', 'services', 'ingresses.networking.k8s.io']],
  [
    'istio-virtualservice',
    'istio-virtualservice',
    {},
    ['virtualservices.networking.istio.io', 'gateways.networking.istio.io', 'services', 'ingresses.networking.k8s.io'],
  ],
  ['contour-httpproxy', 'contour-httpproxy', {}, ['httpproxies.projectcontour.io']],
  ['openshift-route', 'openshift-route', {}, ['routes.route.openshift.io']],
  ['node', 'node', {}, ['nodes']],
  ['pod', 'pod', {}, ['pods', 'nodes']],
  ['unstructured configmaps.v1', 'unstructured', { unstructuredResources: ['configmaps.v1'] }, ['configmaps']],
];

const name = (api: ApiResource) => (api.group ? `${api.resource}.${api.group}` : api.resource);
/** Every resource some source may read, with every switch on, and a ConfigMap and a Secret. */
const ALL = new Map<string, ApiResource>(
  [
    ...readApis(SOURCE_KINDS, {
      gatewayListenerSets: true,
      traefikEnableLegacy: true,
      traefikService: 'a/b',
    }).values(),
    { group: '', versions: ['v1'], resource: 'configmaps', namespaced: true },
    { group: '', versions: ['v1'], resource: 'secrets', namespaced: true },
  ].map((api) => [name(api), api]),
);

let kube: KubeHandle;
before(async () => {
  kube = await startKubeApiserver();
  await installEdgeCrds(kube.admin, 'traefik', 'traefik-legacy', 'istio', 'contour', 'openshift');
  await installGatewayApiCrds(kube.admin);
  await installDnsEndpointCrd(kube.admin);
});
after(stopAll);

/** The HTTP status of a cluster-wide GET of `path` as `kc`'s user. */
async function status(kc: k8s.KubeConfig, path: string): Promise<number> {
  const url = new URL(kc.getCurrentCluster()!.server + path);
  const options: RequestOptions = { method: 'GET', hostname: url.hostname, port: url.port, path };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

async function allowed(kc: k8s.KubeConfig, api: ApiResource, verb: string): Promise<boolean> {
  const review = await kc.makeApiClient(k8s.AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: { group: api.group, resource: api.resource, verb } } },
  });
  return review.status!.allowed;
}

const rbacKinds = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

for (const [i, [row, source, extra, reads]] of rows.entries()) {
  test(`${row}: its ServiceAccount lists and watches exactly ${reads.join(', ')}`, async () => {
    for (const r of reads) assert.ok(ALL.has(r), `${r} is a resource some source reads`);
    const stack = `rbac${i}`;
    const props: DnsStackProps = {
      name: stack,
      namespace: { name: stack },
      zones: [{ name: 'example.org' }],
      sources: { kinds: [source], ...extra },
    };
    const objects = JSON.parse(JSON.stringify(synthObjects(props))) as Obj[];
    for (const object of objects.filter((o) => rbacKinds.has(o.kind!)))
      await serverSideApply(kube.admin, object, { dryRun: false, fieldManager: 'etcdns-test' });
    const sa = await kube.asServiceAccount(stack, `${stack}-controller`);

    for (const [resource, api] of ALL) {
      const may = reads.includes(resource);
      for (const verb of ['list', 'watch'])
        assert.equal(await allowed(sa, api, verb), may, `${verb} ${resource}: ${may ? 'allowed' : 'refused'}`);
      // A real list, cluster-wide, at the version the CRD serves first.
      const base = api.group ? `/apis/${api.group}` : '/api';
      const codes = await Promise.all(api.versions.map((v) => status(sa, `${base}/${v}/${api.resource}?limit=1`)));
      if (may) assert.ok(codes.includes(200), `list ${resource} answered: ${codes.join(', ')}`);
      else assert.deepEqual([...new Set(codes)], [403], `list ${resource} refused`);
    }
  });
}

test('every source has a row', () => {
  assert.deepEqual(new Set(rows.map(([, source]) => source)), new Set(SOURCE_KINDS));
});
