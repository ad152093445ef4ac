// The sources the controller can read, declared once: each by external-dns's source name (so a
// team's --source flags carry over), the Kubernetes kind it turns into records, where the API
// serves it, and the resource id its records carry (external-dns's, so adoption keeps matching).
// The controller's informers, the RBAC of the constructs and the config's allowed values all come
// from this table.

export const SOURCE_KINDS = [
  'service',
  'ingress',
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
  'crd',
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export type ObjectKind =
  'Service' | 'Ingress' | 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute' | 'UDPRoute' | 'DNSEndpoint';

/** A collection in the Kubernetes API. */
export interface ApiResource {
  /** API group; '' for the core group. */
  group: string;
  /** Served versions to try, the preferred first (a cluster serves at least one of them). */
  versions: readonly string[];
  /** Plural resource name, as in URLs and RBAC rules. */
  resource: string;
  namespaced: boolean;
}

export interface SourceSpec {
  source: SourceKind;
  kind: ObjectKind;
  api: ApiResource;
  /** First part of the resource id ("httproute/<ns>/<name>"), as external-dns names the resource. */
  resourcePrefix: string;
}

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

const route = (source: SourceKind, kind: ObjectKind, resource: string, versions: string[]): SourceSpec => ({
  source,
  kind,
  api: { group: GATEWAY_GROUP, versions, resource, namespaced: true },
  resourcePrefix: kind.toLowerCase(),
});

/**
 * Route versions: external-dns v0.22 reads TCP and UDP routes at v1alpha2 only, which Gateway API
 * v1.6's standard channel no longer serves; v1 first, then the older versions clusters still run.
 */
export const SOURCES: Readonly<Record<SourceKind, SourceSpec>> = {
  service: {
    source: 'service',
    kind: 'Service',
    api: { group: '', versions: ['v1'], resource: 'services', namespaced: true },
    resourcePrefix: 'service',
  },
  ingress: {
    source: 'ingress',
    kind: 'Ingress',
    api: { group: 'networking.k8s.io', versions: ['v1'], resource: 'ingresses', namespaced: true },
    resourcePrefix: 'ingress',
  },
  'gateway-httproute': route('gateway-httproute', 'HTTPRoute', 'httproutes', ['v1']),
  'gateway-grpcroute': route('gateway-grpcroute', 'GRPCRoute', 'grpcroutes', ['v1']),
  'gateway-tlsroute': route('gateway-tlsroute', 'TLSRoute', 'tlsroutes', ['v1', 'v1alpha3', 'v1alpha2']),
  'gateway-tcproute': route('gateway-tcproute', 'TCPRoute', 'tcproutes', ['v1', 'v1alpha2']),
  'gateway-udproute': route('gateway-udproute', 'UDPRoute', 'udproutes', ['v1', 'v1alpha2']),
  crd: {
    source: 'crd',
    kind: 'DNSEndpoint',
    api: { group: 'externaldns.k8s.io', versions: ['v1alpha1'], resource: 'dnsendpoints', namespaced: true },
    resourcePrefix: 'crd',
  },
};

/** What the route sources read besides the routes: the Gateways, their ListenerSets, Namespaces. */
export const GATEWAYS: ApiResource = { group: GATEWAY_GROUP, versions: ['v1'], resource: 'gateways', namespaced: true };
export const LISTENER_SETS: ApiResource = {
  group: GATEWAY_GROUP,
  versions: ['v1'],
  resource: 'listenersets',
  namespaced: true,
};
export const NAMESPACES: ApiResource = { group: '', versions: ['v1'], resource: 'namespaces', namespaced: false };
/** What the Service source reads besides Services. */
export const ENDPOINT_SLICES: ApiResource = {
  group: 'discovery.k8s.io',
  versions: ['v1'],
  resource: 'endpointslices',
  namespaced: true,
};
export const NODES: ApiResource = { group: '', versions: ['v1'], resource: 'nodes', namespaced: false };

/** The kinds as view rules name them ("service", "httproute", "dnsendpoint"). */
export const RULE_KINDS: readonly string[] = Object.values(SOURCES).map((s) => s.kind.toLowerCase());

export const ROUTE_SOURCES: readonly SourceKind[] = SOURCE_KINDS.filter((s) => s.startsWith('gateway-'));

export function isRouteSource(source: SourceKind): boolean {
  return ROUTE_SOURCES.includes(source);
}

export function sourceOfKind(kind: ObjectKind): SourceSpec {
  return Object.values(SOURCES).find((s) => s.kind === kind)!;
}

/** "gateway.networking.k8s.io/v1", or "v1" for the core group. */
export function apiVersionOf(api: ApiResource, version = api.versions[0]!): string {
  return api.group ? `${api.group}/${version}` : version;
}

/** The collection's URL path at a version, in one namespace or all. */
export function collectionPath(api: ApiResource, version: string, namespace?: string): string {
  const base = api.group ? `/apis/${api.group}/${version}` : `/api/${version}`;
  return `${base}${api.namespaced && namespace ? `/namespaces/${namespace}` : ''}/${api.resource}`;
}
