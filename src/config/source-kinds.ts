// The sources the controller can read, declared once, one row each: by external-dns's source
// name (so a team's --source flags carry over), the objects it turns into records (their kind,
// where the API serves them, and the first part of the resource id their records carry:
// external-dns's, so adoption keeps matching), what else it reads (informers), and what it writes
// besides Events. The config's allowed values, the views' rule kinds, the constructs' RBAC and
// the controller's informers all come from this table; the runtime half of each source (its
// records and index keys) is its row in src/runtime/controller/sources/source-registry.ts.
// Declarative only: this module imports nothing of src/runtime/.
import { parseUnstructuredResource } from './unstructured-resource.ts';

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

/**
 * The controller's settings that change what a source reads (fields of its config, by the same
 * names); a switch is on when its value is set and not false.
 */
export interface SourceSwitches {
  /** --gateway-listener-sets: routes may attach to ListenerSets. */
  gatewayListenerSets?: boolean;
  /** --traefik-enable-legacy: also the traefik.containo.us group. */
  traefikEnableLegacy?: boolean;
  /** --traefik-disable-new: not the traefik.io group. */
  traefikDisableNew?: boolean;
  /** --traefik-service NAMESPACE/NAME: routes without targets take this Service's addresses. */
  traefikService?: string;
  /** --unstructured-resource: the unstructured source's objects ("configmaps.v1"). */
  unstructuredResources?: readonly string[];
}

/** Whether a spec with `when` and `unless` switches applies. */
function switchedOn(spec: { when?: keyof SourceSwitches; unless?: keyof SourceSwitches }, switches: SourceSwitches) {
  const on = (k: keyof SourceSwitches) => switches[k] !== undefined && switches[k] !== false;
  return (!spec.when || on(spec.when)) && (!spec.unless || !on(spec.unless));
}

/** An object a source turns into records. */
export interface ObjectSpec {
  /** The Kubernetes kind; also how the informers, the status page and the metrics name it. */
  kind: string;
  /**
   * The Kubernetes kind when `kind` must differ from it, being taken by the same kind of another
   * group ("IngressRoute.traefik.containo.us"); its records, Events and view rules say this one.
   */
  kubernetesKind?: string;
  /** Read only when this switch is on, or `unless` it is. */
  when?: keyof SourceSwitches;
  unless?: keyof SourceSwitches;
  api: ApiResource;
  /** First part of the resource id ("httproute/<ns>/<name>"), as external-dns names the resource. */
  resourcePrefix: string;
  /**
   * The id keeps an empty namespace part for a cluster-scoped object ("kind//name"), as
   * external-dns's unstructured source writes it; otherwise it has none ("node/<name>").
   */
  idKeepsEmptyNamespace?: true;
}

/** Something a source reads besides its objects: one of READ_KINDS. */
export interface ReadSpec {
  kind: ReadKind;
  /** Read only when this switch is on, or `unless` it is. */
  when?: keyof SourceSwitches;
  unless?: keyof SourceSwitches;
  /** Without it (not served) the source's records cannot be computed: they are kept as they are. */
  essential?: boolean;
}

export interface SourceSpec {
  objects: readonly ObjectSpec[];
  /** Objects named by a switch instead (the unstructured source's --unstructured-resource). */
  objectsFrom?: 'unstructuredResources';
  reads: readonly ReadSpec[];
  /** Subresources written besides Events (the DNSEndpoint status). */
  writesStatus?: boolean;
}

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

const core = (resource: string, namespaced: boolean): ApiResource => ({
  group: '',
  versions: ['v1'],
  resource,
  namespaced,
});
const gatewayApi = (resource: string, versions: string[] = ['v1']): ApiResource => ({
  group: GATEWAY_GROUP,
  versions,
  resource,
  namespaced: true,
});

/** What sources read besides their own objects, by kind. */
export const READ_KINDS = {
  EndpointSlice: { group: 'discovery.k8s.io', versions: ['v1'], resource: 'endpointslices', namespaced: true },
  Node: core('nodes', false),
  Gateway: gatewayApi('gateways'),
  ListenerSet: gatewayApi('listenersets'),
  Namespace: core('namespaces', false),
  Service: core('services', true),
  Ingress: { group: 'networking.k8s.io', versions: ['v1'], resource: 'ingresses', namespaced: true },
  IstioGateway: { group: 'networking.istio.io', versions: ['v1'], resource: 'gateways', namespaced: true },
} as const satisfies Record<string, ApiResource>;
export type ReadKind = keyof typeof READ_KINDS;

/** What the Gateway API route sources read besides the routes: Gateways, ListenerSets, Namespaces. */
const ROUTE_READS: readonly ReadSpec[] = [
  { kind: 'Gateway', essential: true },
  { kind: 'ListenerSet', when: 'gatewayListenerSets', essential: true },
  { kind: 'Namespace' },
];
const route = <K extends string>(kind: K, resource: string, versions: string[]) => ({
  objects: [{ kind, api: gatewayApi(resource, versions), resourcePrefix: kind.toLowerCase() }],
  reads: ROUTE_READS,
});

const TRAEFIK_KINDS = [
  ['IngressRoute', 'ingressroutes'],
  ['IngressRouteTCP', 'ingressroutetcps'],
  ['IngressRouteUDP', 'ingressrouteudps'],
] as const;
/** Traefik's routes: traefik.io unless --traefik-disable-new, Traefik v2's group with --traefik-enable-legacy. */
function traefik<K extends string, G extends 'traefik.io' | 'traefik.containo.us'>(
  kind: K,
  resource: string,
  group: G,
) {
  const legacy = group === 'traefik.containo.us';
  return {
    kind: (legacy ? `${kind}.${group}` : kind) as G extends 'traefik.io' ? K : `${K}.${G}`,
    ...(legacy
      ? { kubernetesKind: kind, when: 'traefikEnableLegacy' as const }
      : { unless: 'traefikDisableNew' as const }),
    api: { group, versions: ['v1alpha1'], resource, namespaced: true },
    resourcePrefix: kind.toLowerCase(),
  };
}

/**
 * The registry, in --help's order (new rows at the end: error messages list them in this order). Route versions: external-dns v0.22 reads TCP and UDP routes at
 * v1alpha2 only, which Gateway API v1.6's standard channel no longer serves; v1 first, then the
 * older versions clusters still run.
 */
export const SOURCES = {
  service: {
    objects: [{ kind: 'Service', api: READ_KINDS.Service, resourcePrefix: 'service' }],
    // EndpointSlices and Nodes turn headless and NodePort Services into addresses.
    reads: [{ kind: 'EndpointSlice' }, { kind: 'Node' }],
  },
  ingress: {
    objects: [{ kind: 'Ingress', api: READ_KINDS.Ingress, resourcePrefix: 'ingress' }],
    reads: [],
  },
  'gateway-httproute': route('HTTPRoute', 'httproutes', ['v1']),
  'gateway-grpcroute': route('GRPCRoute', 'grpcroutes', ['v1']),
  'gateway-tlsroute': route('TLSRoute', 'tlsroutes', ['v1', 'v1alpha3', 'v1alpha2']),
  'gateway-tcproute': route('TCPRoute', 'tcproutes', ['v1', 'v1alpha2']),
  'gateway-udproute': route('UDPRoute', 'udproutes', ['v1', 'v1alpha2']),
  crd: {
    objects: [
      {
        kind: 'DNSEndpoint',
        api: { group: 'externaldns.k8s.io', versions: ['v1alpha1'], resource: 'dnsendpoints', namespaced: true },
        resourcePrefix: 'crd',
      },
    ],
    reads: [],
    writesStatus: true,
  },
  'traefik-proxy': {
    objects: [
      ...TRAEFIK_KINDS.map(([kind, resource]) => traefik(kind, resource, 'traefik.io')),
      ...TRAEFIK_KINDS.map(([kind, resource]) => traefik(kind, resource, 'traefik.containo.us')),
    ],
    // The Service whose addresses routes without a target annotation take (an etcdns extension).
    reads: [{ kind: 'Service', when: 'traefikService' }],
  },
  // Any kind, named by --unstructured-resource; its kinds are the API server's (discovery at start-up).
  unstructured: { objects: [], objectsFrom: 'unstructuredResources', reads: [] },
  'contour-httpproxy': {
    objects: [
      {
        kind: 'HTTPProxy',
        api: { group: 'projectcontour.io', versions: ['v1'], resource: 'httpproxies', namespaced: true },
        resourcePrefix: 'HTTPProxy',
      },
    ],
    reads: [],
  },
  'openshift-route': {
    objects: [
      {
        kind: 'Route',
        api: { group: 'route.openshift.io', versions: ['v1'], resource: 'routes', namespaced: true },
        resourcePrefix: 'route',
      },
    ],
    reads: [],
  },
  node: { objects: [{ kind: 'Node', api: READ_KINDS.Node, resourcePrefix: 'node' }], reads: [] },
  // A pod's hostname annotation points at its Node's addresses.
  pod: { objects: [{ kind: 'Pod', api: core('pods', true), resourcePrefix: 'pod' }], reads: [{ kind: 'Node' }] },
  // Istio's Gateway is IstioGateway here, apart from the Gateway API's (which routes read).
  'istio-gateway': {
    objects: [
      { kind: 'IstioGateway', kubernetesKind: 'Gateway', api: READ_KINDS.IstioGateway, resourcePrefix: 'gateway' },
    ],
    // Its targets: the Services its selector selects, or the Ingress its annotation names.
    reads: [{ kind: 'Service' }, { kind: 'Ingress' }],
  },
  'istio-virtualservice': {
    objects: [
      {
        kind: 'VirtualService',
        api: { group: 'networking.istio.io', versions: ['v1'], resource: 'virtualservices', namespaced: true },
        resourcePrefix: 'virtualservice',
      },
    ],
    // Its targets are its Gateways'.
    reads: [{ kind: 'Service' }, { kind: 'Ingress' }, { kind: 'IstioGateway', essential: true }],
  },
} as const satisfies Record<string, SourceSpec>;

export type SourceKind = keyof typeof SOURCES;
export const SOURCE_KINDS = Object.keys(SOURCES) as readonly SourceKind[] as readonly [SourceKind, ...SourceKind[]];

/** A source's row, as the SourceSpec type has it. */
export function sourceSpec(source: SourceKind): SourceSpec {
  return SOURCES[source];
}

/**
 * A kind of object some source turns into records: a row's, or (at run time) one the unstructured
 * source was given and discovery named (addDiscoveredKinds).
 */
export type ObjectKind = (typeof SOURCES)[SourceKind]['objects'][number]['kind'] | DiscoveredKind;
export type DiscoveredKind = string & { readonly discovered: unique symbol };
/** Every kind the controller may keep an informer of. */
export type ClusterKind = ObjectKind | ReadKind;

/** Each object kind with the source that reads it. */
const OBJECT_KINDS = new Map<string, ObjectSpec & { source: SourceKind }>(
  SOURCE_KINDS.flatMap((source) => SOURCES[source].objects.map((o) => [o.kind, { ...o, source }] as const)),
);

/** Records name a renamed kind by its Kubernetes kind ("Gateway" for IstioGateway): those no other row has. */
const BY_KUBERNETES_KIND = new Map(
  [...OBJECT_KINDS.values()].flatMap((o) =>
    o.kubernetesKind && !OBJECT_KINDS.has(o.kubernetesKind) ? [[o.kubernetesKind, o] as const] : [],
  ),
);

/** The unstructured source's objects by --unstructured-resource value, as discovery named them. */
const DISCOVERED = new Map<string, ObjectSpec & { kind: DiscoveredKind }>();

/**
 * Registers the kinds discovery found for a source's switch-named objects (once, at start-up,
 * before any object is read). A kind another source reads already is refused.
 */
export function addDiscoveredKinds(
  source: SourceKind,
  found: readonly { value: string; kind: string; api: ApiResource }[],
): string[] {
  const problems: string[] = [];
  for (const { value, kind, api } of found) {
    const taken = OBJECT_KINDS.get(kind) ?? (kind in READ_KINDS ? { source: 'the other sources' } : undefined);
    if (taken) {
      problems.push(`--unstructured-resource ${value}: kind ${kind} is read by ${taken.source} already`);
      continue;
    }
    const spec = {
      kind: kind as DiscoveredKind,
      api,
      resourcePrefix: kind.toLowerCase(),
      idKeepsEmptyNamespace: true as const,
    };
    DISCOVERED.set(value, spec);
    OBJECT_KINDS.set(kind, { ...spec, source });
  }
  return problems;
}

/**
 * A source's objects with the switches given: its row's, or those its switch names (by their
 * discovered kind; before discovery, as at synth, by the value: enough for RBAC).
 */
export function objectsOf(source: SourceKind, switches: SourceSwitches): readonly ObjectSpec[] {
  const spec = sourceSpec(source);
  if (!spec.objectsFrom) return spec.objects.filter((o) => switchedOn(o, switches));
  return (switches[spec.objectsFrom] ?? []).flatMap((value) => {
    const found = DISCOVERED.get(value);
    if (found) return [found];
    const parsed = parseUnstructuredResource(value);
    return parsed.ok ? [{ kind: value as DiscoveredKind, api: parsed.api, resourcePrefix: value }] : [];
  });
}

/** The object spec of a kind, and its source. */
export function objectSpec(kind: ObjectKind): ObjectSpec & { source: SourceKind } {
  return OBJECT_KINDS.get(kind) ?? BY_KUBERNETES_KIND.get(kind)!;
}

/** The namespace an object is known by: its own ("default" when unset), "" for a cluster-scoped kind (a Node). */
export function objectNamespace(kind: ObjectKind, namespace: string | undefined): string {
  return objectSpec(kind).api.namespaced ? (namespace ?? 'default') : '';
}

export function isObjectKind(kind: string): kind is ObjectKind {
  return OBJECT_KINDS.has(kind);
}

/** Whether the switches have the controller read objects of this kind. */
export function objectEnabled(kind: ObjectKind, switches: SourceSwitches): boolean {
  return switchedOn(objectSpec(kind), switches);
}

/** The Kubernetes kind of an object kind ("IngressRoute" for both of Traefik's groups). */
export function kubernetesKind(kind: ObjectKind): string {
  return objectSpec(kind).kubernetesKind ?? kind;
}

/** How view rules name an object kind: its Kubernetes kind in lower case ("service", "httproute"). */
const ruleKind = (o: ObjectSpec) => (o.kubernetesKind ?? o.kind).toLowerCase();

/** The kinds as view rules name them ("service", "httproute", "dnsendpoint"), before discovery. */
export const RULE_KINDS: readonly string[] = [...new Set([...OBJECT_KINDS.values()].map(ruleKind))];

/** Whether a view rule's kind names a row's kind or one the unstructured source discovered. */
export function ruleKindKnown(kind: string): boolean {
  return RULE_KINDS.includes(kind) || [...DISCOVERED.values()].some((o) => ruleKind(o) === kind);
}

/** What a source reads besides its objects, with the switches given. */
export function readsOf(source: SourceKind, switches: SourceSwitches): ReadKind[] {
  return sourceSpec(source)
    .reads.filter((r) => switchedOn(r, switches))
    .map((r) => r.kind);
}

/** Every API resource the enabled sources read, once each: their objects, then what else they read (READ_KINDS' order). */
export function readApis(sources: readonly SourceKind[], switches: SourceSwitches): Map<ClusterKind, ApiResource> {
  const apis = new Map<ClusterKind, ApiResource>();
  for (const source of sources) for (const o of objectsOf(source, switches)) apis.set(o.kind as ObjectKind, o.api);
  const reads = new Set(sources.flatMap((source) => readsOf(source, switches)));
  for (const kind of Object.keys(READ_KINDS) as ReadKind[]) if (reads.has(kind)) apis.set(kind, READ_KINDS[kind]);
  return apis;
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

/** The DNSEndpoint collection (the crd source's objects; the constructs install its CRD). */
export const DNS_ENDPOINTS: ApiResource = SOURCES.crd.objects[0].api;
