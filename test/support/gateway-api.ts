// Gateway API and DNSEndpoint objects as the tests create them: the CRDs installed into the real
// kube-apiserver from the modules setup downloads (.cache/crds/), and Gateways and routes given
// the status a Gateway controller (Envoy Gateway, Cilium, ...) would report through the /status
// subresource: no such controller runs here.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { dnsEndpointCrd } from '../../src/constructs/controller/dns-endpoint-crd.ts';
import { crdsIn, installCrds } from './crds.ts';
import { repoRoot } from './tools.ts';

export const GATEWAY_API_VERSION = 'v1.6.3';
const GATEWAY_GROUP = 'gateway.networking.k8s.io';
const crdDir = join(repoRoot, '.cache', 'crds', `gateway-api-${GATEWAY_API_VERSION}`);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The standard channel, with the TLS, TCP and UDP routes of the experimental channel (which
 * still serve v1alpha2, the version external-dns v0.22 reads), as a cluster running both
 * etcdns and external-dns would install them.
 */
function gatewayApiCrds(): Json[] {
  const experimental = ['tlsroutes', 'tcproutes', 'udproutes'];
  const files = (channel: string) =>
    readdirSync(join(crdDir, channel)).filter((f) => f.startsWith(`${GATEWAY_GROUP}_`) && f.endsWith('.yaml'));
  // The channels also ship a ValidatingAdmissionPolicy against mixing them: crdsIn leaves it out.
  const pick = (channel: string, keep: (resource: string) => boolean) =>
    crdsIn(
      files(channel)
        .filter((f) => keep(f.slice(GATEWAY_GROUP.length + 1, -'.yaml'.length)))
        .map((f) => join(crdDir, channel, f)),
    );
  return [
    ...pick('standard', (r) => !experimental.includes(r)),
    ...pick('experimental', (r) => experimental.includes(r)),
  ];
}

/** Installs the Gateway API CRDs (see gatewayApiCrds) and waits until each is served. */
export async function installGatewayApiCrds(kc: k8s.KubeConfig): Promise<void> {
  await installCrds(kc, gatewayApiCrds());
}

/** Installs the DNSEndpoint CRD etcdns synthesizes (or external-dns's own, with `ours: false`). */
export async function installDnsEndpointCrd(kc: k8s.KubeConfig, ours = true): Promise<void> {
  const crd = ours
    ? dnsEndpointCrd()
    : (loadAll(
        readFileSync(
          join(repoRoot, '.cache', 'crds', 'external-dns-v0.22.0', 'standard', 'dnsendpoints.externaldns.k8s.io.yaml'),
          'utf8',
        ),
      )[0] as Json);
  await installCrds(kc, [crd]);
}

const ACCEPTED = [
  {
    type: 'Accepted',
    status: 'True',
    reason: 'Accepted',
    message: 'accepted by the test',
    lastTransitionTime: new Date(0).toISOString(),
  },
];

export interface ListenerSpec {
  name: string;
  port?: number;
  protocol?: string;
  hostname?: string;
  allowedRoutes?: Json;
}

/** A Gateway, then given `addresses` as its status (as a Gateway controller programs it). */
export async function createGateway(
  kc: k8s.KubeConfig,
  o: {
    name: string;
    namespace: string;
    listeners: ListenerSpec[];
    addresses: string[];
    annotations?: Record<string, string>;
  },
): Promise<void> {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const coordinates = { group: GATEWAY_GROUP, version: 'v1', namespace: o.namespace, plural: 'gateways' };
  await api.createNamespacedCustomObject({
    ...coordinates,
    body: {
      apiVersion: `${GATEWAY_GROUP}/v1`,
      kind: 'Gateway',
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: {
        gatewayClassName: 'test',
        listeners: o.listeners.map((l) => ({ port: 80, protocol: 'HTTP', ...l })),
      },
    },
  });
  await setStatus(kc, coordinates, o.name, {
    addresses: o.addresses.map((value) => ({
      type: /[a-z]/i.test(value) && !value.includes(':') ? 'Hostname' : 'IPAddress',
      value,
    })),
  });
}

export type RouteKind = 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute' | 'UDPRoute';
const ROUTE_VERSION: Record<RouteKind, string> = {
  HTTPRoute: 'v1',
  GRPCRoute: 'v1',
  TLSRoute: 'v1',
  TCPRoute: 'v1alpha2',
  UDPRoute: 'v1alpha2',
};

export interface RouteSpec {
  kind: RouteKind;
  name: string;
  namespace: string;
  hostnames?: string[];
  parents: { name: string; namespace?: string; sectionName?: string }[];
  annotations?: Record<string, string>;
  /** Parents the Gateway controller accepted (default: all of them). */
  accepted?: boolean;
}

function routeCoordinates(r: Pick<RouteSpec, 'kind' | 'namespace'>) {
  return {
    group: GATEWAY_GROUP,
    version: ROUTE_VERSION[r.kind],
    namespace: r.namespace,
    plural: `${r.kind.toLowerCase()}s`,
  };
}

/** A route with backends nowhere, then its parents accepted in its status (unless `accepted: false`). */
export async function createRoute(kc: k8s.KubeConfig, r: RouteSpec): Promise<void> {
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const coordinates = routeCoordinates(r);
  const parentRefs = r.parents.map((p) => ({ group: GATEWAY_GROUP, kind: 'Gateway', ...p }));
  const backends =
    r.kind === 'HTTPRoute' || r.kind === 'GRPCRoute' ? [] : [{ backendRefs: [{ name: 'backend', port: 80 }] }];
  await api.createNamespacedCustomObject({
    ...coordinates,
    body: {
      apiVersion: `${GATEWAY_GROUP}/${coordinates.version}`,
      kind: r.kind,
      metadata: { name: r.name, annotations: r.annotations ?? {} },
      spec: {
        parentRefs,
        ...(r.hostnames ? { hostnames: r.hostnames } : {}),
        ...(backends.length > 0 ? { rules: backends } : {}),
      },
    },
  });
  if (r.accepted !== false) await acceptRoute(kc, r);
}

/** Sets the route's status as its Gateway controller would: every parent accepted. */
export async function acceptRoute(kc: k8s.KubeConfig, r: RouteSpec): Promise<void> {
  await setStatus(kc, routeCoordinates(r), r.name, {
    parents: r.parents.map((p) => ({
      parentRef: { group: GATEWAY_GROUP, kind: 'Gateway', ...p },
      controllerName: 'example.org/test-gateway-controller',
      conditions: ACCEPTED,
    })),
  });
}

export async function deleteRoute(
  kc: k8s.KubeConfig,
  r: Pick<RouteSpec, 'kind' | 'name' | 'namespace'>,
): Promise<void> {
  await kc.makeApiClient(k8s.CustomObjectsApi).deleteNamespacedCustomObject({ ...routeCoordinates(r), name: r.name });
}

/** Merges `status` into a custom object through its /status subresource, as its controller would. */
export async function setStatus(
  kc: k8s.KubeConfig,
  coordinates: { group: string; version: string; namespace: string; plural: string },
  name: string,
  status: Json,
): Promise<void> {
  await kc
    .makeApiClient(k8s.CustomObjectsApi)
    .patchNamespacedCustomObjectStatus(
      { ...coordinates, name, body: { status } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
}

const DNS_ENDPOINTS = { group: 'externaldns.k8s.io', version: 'v1alpha1', plural: 'dnsendpoints' };

export interface EndpointSpec {
  dnsName: string;
  recordType: string;
  targets: string[];
  recordTTL?: number;
  providerSpecific?: { name: string; value: string }[];
}

export async function createDnsEndpoint(
  kc: k8s.KubeConfig,
  o: { name: string; namespace: string; endpoints: EndpointSpec[] },
): Promise<void> {
  await kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    ...DNS_ENDPOINTS,
    namespace: o.namespace,
    body: {
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: o.name },
      spec: { endpoints: o.endpoints },
    },
  });
}

export async function readDnsEndpoint(kc: k8s.KubeConfig, namespace: string, name: string): Promise<Json> {
  return (await kc
    .makeApiClient(k8s.CustomObjectsApi)
    .getNamespacedCustomObject({ ...DNS_ENDPOINTS, namespace, name })) as Json;
}

export async function deleteDnsEndpoint(kc: k8s.KubeConfig, namespace: string, name: string): Promise<void> {
  await kc.makeApiClient(k8s.CustomObjectsApi).deleteNamespacedCustomObject({ ...DNS_ENDPOINTS, namespace, name });
}
