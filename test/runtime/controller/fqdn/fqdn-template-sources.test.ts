// Table tests of --fqdn-template and --combine-fqdn-annotation on the typed sources (the one
// template pass every source object's records go through: fqdn/template-pass.ts), one test per
// row, with external-dns v0.22's rules: a Service or Ingress gets the template's names when it
// gives no records (service.go, ingress.go CombineWithEndpoints), a route when it has no
// spec.hostnames (gateway.go hosts()), always with --combine-fqdn-annotation; the names get the
// object's own targets; DNSEndpoints never.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1Ingress, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import type { Gateway, Route } from '../../../../src/runtime/controller/sources/gateway/gateway-api.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { gw, vs } from '../sources/istio/istio-objects.ts';

const N = 'external-dns.kubernetes.io/';

const svc = (
  name: string,
  annotations: Record<string, string> = {},
  labels: Record<string, string> = {},
): V1Service => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations, labels },
  spec: { type: 'LoadBalancer' },
  status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } },
});
const ing = (name: string, hosts: string[], annotations: Record<string, string> = {}): V1Ingress => ({
  metadata: { name, namespace: 'web', uid: `uid-${name}`, annotations },
  spec: { rules: hosts.map((host) => ({ host })) },
  status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
});
const gateway: Gateway = {
  metadata: { name: 'gw', namespace: 'infra' },
  spec: {
    listeners: [
      {
        name: 'http',
        port: 80,
        protocol: 'HTTP',
        hostname: '*.example.org',
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  },
  status: { addresses: [{ value: '10.9.0.1' }] },
};
const httpRoute = (name: string, hostnames?: string[]): { kind: 'HTTPRoute'; object: Route } => ({
  kind: 'HTTPRoute',
  object: {
    metadata: { name, namespace: 'apps', uid: `uid-${name}` },
    spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], ...(hostnames ? { hostnames } : {}) },
    status: {
      parents: [
        {
          parentRef: { name: 'gw', namespace: 'infra' },
          controllerName: 'example.org/gateway',
          conditions: [{ type: 'Accepted', status: 'True' }],
        },
      ],
    },
  },
});

const proxy = (name: string, fqdn?: string) => ({
  kind: 'HTTPProxy' as const,
  object: {
    apiVersion: 'projectcontour.io/v1',
    kind: 'HTTPProxy',
    metadata: { name, namespace: 'web', uid: `uid-${name}` },
    spec: fqdn ? { virtualhost: { fqdn } } : {},
    status: { loadBalancer: { ingress: [{ ip: '10.9.1.1' }] } },
  },
});
const openshiftRoute = (name: string, host: string) => ({
  kind: 'Route' as const,
  object: {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: { name, namespace: 'web', uid: `uid-${name}` },
    spec: { host },
    status: {
      ingress: [
        {
          host,
          routerName: 'default',
          routerCanonicalHostname: 'router.example.net',
          conditions: [{ type: 'Admitted', status: 'True' }],
        },
      ],
    },
  },
});
const node = (name: string): { kind: 'Node'; object: V1Node } => ({
  kind: 'Node',
  object: {
    metadata: { name, uid: `uid-${name}` },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.8.0.1' },
        { type: 'ExternalIP', address: '203.0.113.1' },
      ],
    },
  },
});
const pod = (name: string, annotations: Record<string, string> = {}): { kind: 'Pod'; object: V1Pod } => ({
  kind: 'Pod',
  object: {
    metadata: { name, namespace: 'edge', uid: `uid-${name}`, annotations },
    spec: { containers: [], nodeName: 'n1' },
    status: { podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00:244::5' }] },
  },
});

/** A Gateway serving *.example.org at 203.0.113.30 (its target annotation). */
const edge = {
  kind: 'IstioGateway' as const,
  object: gw('edge', { servers: [['*.example.org']], annotations: { [`${N}target`]: '203.0.113.30' } }),
};

const ingressRoute = {
  apiVersion: 'traefik.io/v1alpha1',
  kind: 'IngressRoute',
  metadata: { name: 'web', namespace: 'apps', uid: 'uid-web' },
  spec: { routes: [{ match: 'PathPrefix(`/`)' }] },
} as KubernetesObject;

interface Row {
  name: string;
  snapshot: Partial<ClusterSnapshot>;
  fqdnTemplate: string[];
  fqdnTargetTemplate?: string[];
  combine?: boolean;
  labelSelector?: string;
  ignoreHostnameAnnotation?: boolean;
  sources?: (
    | 'service'
    | 'ingress'
    | 'gateway-httproute'
    | 'crd'
    | 'contour-httpproxy'
    | 'openshift-route'
    | 'node'
    | 'pod'
    | 'traefik-proxy'
    | 'istio-virtualservice'
  )[];
  targetTemplate?: string[];
  records: string[];
  problems?: string[];
}

const ROWS: Row[] = [
  {
    name: 'a Service without hostname gets the template name at its load balancer address',
    snapshot: { services: [svc('api')] },
    fqdnTemplate: ['{{ .Name }}.{{ .Namespace }}.example.org'],
    records: ['api.default.example.org. A 10.0.0.1'],
  },
  {
    name: 'several templates, several names',
    snapshot: { services: [svc('api')] },
    fqdnTemplate: ['{{ .Name }}.example.org', '{{ .Name }}.svc.example.org'],
    records: ['api.example.org. A 10.0.0.1', 'api.svc.example.org. A 10.0.0.1'],
  },
  {
    name: 'a Service with a hostname annotation keeps its own names only',
    snapshot: { services: [svc('api', { [`${N}hostname`]: 'own.example.org' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    records: ['own.example.org. A 10.0.0.1'],
  },
  {
    name: '--combine-fqdn-annotation adds the template names to the own',
    snapshot: { services: [svc('api', { [`${N}hostname`]: 'own.example.org' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    combine: true,
    records: ['api.example.org. A 10.0.0.1', 'own.example.org. A 10.0.0.1'],
  },
  {
    name: 'a Service the label selector leaves out takes no template name',
    snapshot: { services: [svc('api', {}, { expose: 'yes' }), svc('db')] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    labelSelector: 'expose=yes',
    records: ['api.example.org. A 10.0.0.1'],
  },
  {
    name: '--ignore-hostname-annotation drops the own hostname, and the template names still publish',
    snapshot: { services: [svc('api', { [`${N}hostname`]: 'own.example.org' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    ignoreHostnameAnnotation: true,
    records: ['api.example.org. A 10.0.0.1'],
  },
  {
    name: 'names are lower-cased',
    snapshot: { services: [svc('api', {}, { team: 'Payments' })] },
    fqdnTemplate: ['{{ .Labels.team }}.Example.org'],
    records: ['payments.example.org. A 10.0.0.1'],
  },
  {
    name: 'a name the template makes invalid is that object problem; the others publish',
    snapshot: { services: [svc('api'), svc('db', {}, { team: 'x' })] },
    fqdnTemplate: ['{{ .Labels.team }}.example.org'],
    records: ['x.example.org. A 10.0.0.1'],
    problems: ['InvalidHostname default/api'],
  },
  {
    name: 'a template failing on one object is its problem; the others publish',
    snapshot: { services: [svc('api', {}, { n: '1' }), svc('db', {}, { n: 'x' })] },
    fqdnTemplate: ['{{ if eq .Labels.n "1" }}{{ index .Spec.Ports 0 }}{{ else }}{{ .Name }}.example.org{{ end }}'],
    records: ['db.example.org. A 10.0.0.1'],
    problems: ['TemplateFailed default/api'],
  },
  {
    name: 'isSource sees the source of each object',
    snapshot: { services: [svc('api')], ingresses: [ing('site', [])] },
    fqdnTemplate: [
      '{{ if isSource "service" }}{{ .Name }}.svc.example.org{{ else }}{{ .Name }}.ing.example.org{{ end }}',
    ],
    sources: ['service', 'ingress'],
    records: ['api.svc.example.org. A 10.0.0.1', 'site.ing.example.org. CNAME lb.example.net.'],
  },
  {
    name: "a Service takes --fqdn-target-template's pairs first; then its own names keep --fqdn-template out",
    snapshot: { services: [svc('api')] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    fqdnTargetTemplate: ['{{ .Name }}.pairs.example.org:192.0.2.1,{{ .Name }}.pairs.example.org:2001:db8::1'],
    records: ['api.pairs.example.org. A 192.0.2.1', 'api.pairs.example.org. AAAA 2001:db8::1'],
  },
  {
    name: 'pairs and names with --combine-fqdn-annotation',
    snapshot: { services: [svc('api', { [`${N}hostname`]: 'own.example.org' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    fqdnTargetTemplate: ['{{ .Name }}.pairs.example.org:192.0.2.1'],
    combine: true,
    records: ['api.example.org. A 10.0.0.1', 'api.pairs.example.org. A 192.0.2.1', 'own.example.org. A 10.0.0.1'],
  },
  {
    name: 'an Ingress takes no pairs (external-dns applies them to service, node and pod)',
    snapshot: { ingresses: [ing('site', [])] },
    fqdnTemplate: [],
    fqdnTargetTemplate: ['{{ .Name }}.pairs.example.org:192.0.2.1'],
    sources: ['ingress'],
    records: [],
  },
  {
    name: 'an Ingress without hosts gets the template name at its status address',
    snapshot: { ingresses: [ing('site', [])] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['ingress'],
    records: ['site.example.org. CNAME lb.example.net.'],
  },
  {
    name: 'an Ingress with rule hosts keeps them only',
    snapshot: { ingresses: [ing('site', ['www.example.org'])] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['ingress'],
    records: ['www.example.org. CNAME lb.example.net.'],
  },
  {
    name: "an Ingress's target annotation is the template name's target",
    snapshot: { ingresses: [ing('site', [], { [`${N}target`]: '192.0.2.9' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['ingress'],
    records: ['site.example.org. A 192.0.2.9'],
  },
  {
    name: 'an Ingress with defined-hosts-only still takes the template name (external-dns ignores it there)',
    snapshot: { ingresses: [ing('site', [], { [`${N}ingress-hostname-source`]: 'defined-hosts-only' })] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['ingress'],
    records: ['site.example.org. CNAME lb.example.net.'],
  },
  {
    name: 'a route without hostnames: the template name, within the listener hostname',
    snapshot: { gateways: [gateway], routes: [httpRoute('web')] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['gateway-httproute'],
    records: ['web.example.org. A 10.9.0.1', '*.example.org. A 10.9.0.1'].sort(),
  },
  {
    name: 'a route with hostnames keeps them only',
    snapshot: { gateways: [gateway], routes: [httpRoute('web', ['app.example.org'])] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['gateway-httproute'],
    records: ['app.example.org. A 10.9.0.1'],
  },
  {
    name: 'a route with hostnames and --combine-fqdn-annotation: both',
    snapshot: { gateways: [gateway], routes: [httpRoute('web', ['app.example.org'])] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    combine: true,
    sources: ['gateway-httproute'],
    records: ['app.example.org. A 10.9.0.1', 'web.example.org. A 10.9.0.1'],
  },
  {
    name: "a template name outside the listener's hostname is not published",
    snapshot: { gateways: [gateway], routes: [httpRoute('web', ['app.example.org'])] },
    fqdnTemplate: ['{{ .Name }}.example.net'],
    combine: true,
    sources: ['gateway-httproute'],
    records: ['app.example.org. A 10.9.0.1'],
  },
  {
    name: 'an HTTPProxy without a virtual host gets the template name at its load-balancer address',
    snapshot: { others: [proxy('child')] },
    fqdnTemplate: ['{{ .Name }}.{{ .Namespace }}.example.org'],
    sources: ['contour-httpproxy'],
    records: ['child.web.example.org. A 10.9.1.1'],
  },
  {
    name: 'an HTTPProxy with a virtual host keeps it only',
    snapshot: { others: [proxy('site', 'site.example.org')] },
    fqdnTemplate: ['{{ .Name }}.{{ .Namespace }}.example.org'],
    sources: ['contour-httpproxy'],
    records: ['site.example.org. A 10.9.1.1'],
  },
  {
    name: 'an OpenShift Route with --combine-fqdn-annotation: its host and the template name, at its router',
    snapshot: { others: [openshiftRoute('shop', 'shop.example.org')] },
    fqdnTemplate: ['{{ .Name }}.routes.example.org'],
    combine: true,
    sources: ['openshift-route'],
    records: ['shop.example.org. CNAME router.example.net.', 'shop.routes.example.org. CNAME router.example.net.'],
  },
  {
    name: 'a Node: the template name replaces the node name, at its addresses',
    snapshot: { others: [node('n1')] },
    fqdnTemplate: ['{{ .Name }}.nodes.example.org'],
    sources: ['node'],
    records: ['n1.nodes.example.org. A 203.0.113.1'],
  },
  {
    name: 'a Node with --combine-fqdn-annotation: the node name and the template name',
    snapshot: { others: [node('n1')] },
    fqdnTemplate: ['{{ .Name }}.nodes.example.org'],
    combine: true,
    sources: ['node'],
    records: ['n1. A 203.0.113.1', 'n1.nodes.example.org. A 203.0.113.1'],
  },
  {
    name: 'a Pod without annotations: the template name at every pod IP (not its target annotation)',
    snapshot: { others: [pod('web-0', { [`${N}target`]: '192.0.2.9' })] },
    fqdnTemplate: ['{{ .Name }}.pods.example.org'],
    sources: ['pod'],
    records: ['web-0.pods.example.org. A 10.244.0.5', 'web-0.pods.example.org. AAAA fd00:244::5'],
  },
  {
    name: 'a Pod with its own names keeps them only',
    snapshot: { others: [pod('web-0', { [`${N}internal-hostname`]: 'own.example.org' })] },
    fqdnTemplate: ['{{ .Name }}.pods.example.org'],
    sources: ['pod'],
    records: ['own.example.org. A 10.244.0.5'],
  },
  {
    name: 'a Pod takes --fqdn-target-template pairs',
    snapshot: { others: [pod('web-0')] },
    fqdnTemplate: [],
    fqdnTargetTemplate: ['{{ .Name }}.pairs.example.org:{{ .Status.PodIP }}'],
    sources: ['pod'],
    records: ['web-0.pairs.example.org. A 10.244.0.5'],
  },
  {
    name: "a Traefik route without records takes the template's names at --target-template's targets (ApplyTemplates)",
    snapshot: { others: [{ kind: 'IngressRoute', object: ingressRoute }] },
    fqdnTemplate: ['{{ .Name }}.traefik.example.org'],
    targetTemplate: ['203.0.113.9'],
    sources: ['traefik-proxy'],
    records: ['web.traefik.example.org. A 203.0.113.9'],
  },
  {
    name: 'a Traefik route: --fqdn-template without --target-template publishes nothing, as in external-dns',
    snapshot: { others: [{ kind: 'IngressRoute', object: ingressRoute }] },
    fqdnTemplate: ['{{ .Name }}.traefik.example.org'],
    sources: ['traefik-proxy'],
    records: [],
  },
  {
    name: "a VirtualService without hosts: the template name at its Gateway's targets",
    snapshot: { others: [edge, { kind: 'VirtualService', object: vs('shop', { gateways: ['infra/edge'] }) }] },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['istio-virtualservice'],
    records: ['shop.example.org. A 203.0.113.30'],
  },
  {
    name: "a VirtualService's target annotation does not apply to the template's names (external-dns's endpointsFromTemplate)",
    snapshot: {
      others: [
        edge,
        {
          kind: 'VirtualService',
          object: vs('shop', { gateways: ['infra/edge'], annotations: { [`${N}target`]: '192.0.2.50' } }),
        },
      ],
    },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['istio-virtualservice'],
    records: ['shop.example.org. A 203.0.113.30'],
  },
  {
    name: "a VirtualService with hosts, its target annotation and --combine-fqdn-annotation: its hosts at the annotation, the template's at the Gateway's",
    snapshot: {
      others: [
        edge,
        {
          kind: 'VirtualService',
          object: vs('shop', {
            hosts: ['own.example.org'],
            gateways: ['infra/edge'],
            annotations: { [`${N}target`]: '192.0.2.50' },
          }),
        },
      ],
    },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    combine: true,
    sources: ['istio-virtualservice'],
    records: ['own.example.org. A 192.0.2.50', 'shop.example.org. A 203.0.113.30'],
  },
  {
    name: 'DNSEndpoints never take the template',
    snapshot: {
      dnsEndpoints: [
        {
          apiVersion: 'externaldns.k8s.io/v1alpha1',
          kind: 'DNSEndpoint',
          metadata: { name: 'e', namespace: 'dns', uid: 'uid-e' },
          spec: { endpoints: [] },
        },
      ],
    },
    fqdnTemplate: ['{{ .Name }}.example.org'],
    sources: ['crd'],
    records: [],
  },
];

for (const row of ROWS) {
  test(`fqdn-template: ${row.name}`, () => {
    const snapshot: ClusterSnapshot = { services: [], ingresses: [], endpointSlices: [], nodes: [], ...row.snapshot };
    const result = desiredRecords(
      snapshot,
      sourceOptions({
        sources: row.sources ?? ['service'],
        fqdnTemplate: row.fqdnTemplate,
        fqdnTargetTemplate: row.fqdnTargetTemplate ?? [],
        targetTemplate: row.targetTemplate ?? [],
        combineFqdnAnnotation: row.combine ?? false,
        ...(row.labelSelector ? { labelSelector: row.labelSelector } : {}),
        ...(row.ignoreHostnameAnnotation ? { ignoreHostnameAnnotation: true } : {}),
      }),
    );
    assert.deepEqual(result.records.map((r) => `${r.name} ${r.type} ${r.target}`).sort(), [...row.records].sort());
    assert.deepEqual(
      result.problems.map((p) => `${p.reason} ${p.object.namespace}/${p.object.name}`),
      row.problems ?? [],
    );
  });
}
