// Which objects and names the sources consider: the filters of the command line, parsed once.
import { canonicalName, isInZone } from '../../../dns/dns-name.ts';
import type { SourceKind, SourceSwitches } from '../../../config/source-kinds.ts';
import type { RecordType } from '../../../dns/record-types.ts';
import type { Claim } from '../../../skydns/cluster-claims.ts';
import { annotationPrefixes, readAnnotation, type Annotations } from './annotations.ts';
import { matchesSelector, parseSelector, type Selector } from '../../../config/label-selector.ts';
import type { GatewayFilters } from './gateway/route-parents.ts';
import { FqdnTemplates } from '../fqdn/fqdn-templates.ts';
import { defaultTargets, type DefaultTargets } from './default-targets.ts';

export interface SourceOptions {
  sources: SourceKind[];
  /** Canonical domains; empty means every name. */
  domainFilter: string[];
  excludeDomains: string[];
  /**
   * A spoke of a hub: its cluster, the claims a name must lie in (src/skydns/cluster-claims.ts),
   * when it has any; its objects may set their names' policy at the hub (src/skydns/name-policy.ts).
   */
  spoke?: { cluster: string; claims?: readonly Claim[] | undefined };
  /** Only this namespace; undefined means all. */
  namespace?: string;
  labelSelector: Selector;
  annotationFilter: Selector;
  /** Only Ingresses of these classes; empty means all. */
  ingressClasses: string[];
  /** Publish ClusterIP Services through their hostname annotation (external-dns's --publish-internal-services). */
  publishClusterIp: boolean;
  /** SRV records per named Service port for every non-headless Service (service-srv.ts). */
  srv: boolean;
  /** At most this many SRV records per Service. */
  srvMaxPerService: number;
  /** Which Gateways (and ListenerSets) the route sources follow. */
  gateway: GatewayFilters;
  /** Only records of these types are published (external-dns's --managed-record-types); empty: all. */
  managedRecordTypes: RecordType[];
  /** --ignore-hostname-annotation: the hostname annotation publishes nothing (nor a Service's internal-hostname). */
  ignoreHostnameAnnotation: boolean;
  /** The annotation prefixes, the winner first (--annotation-prefix, --enable-legacy-annotation-prefix). */
  annotationPrefixes: string[];
  /** --default-targets, --force-default-targets (default-targets.ts). */
  defaultTargets: DefaultTargets;
  /** What the sources read (--gateway-listener-sets, the traefik-proxy flags). */
  switches: SourceSwitches;
  /** --fqdn-template, --target-template, --fqdn-target-template, --combine-fqdn-annotation. */
  templates: FqdnTemplates;
  /** The openshift-route source reads only this router's status (--openshift-router-name); default the first. */
  openshiftRouterName?: string;
  node: NodeSourceOptions;
  pod: PodSourceOptions;
}

export interface NodeSourceOptions {
  /** Leave out nodes with spec.unschedulable (--exclude-unschedulable); default true, as external-dns. */
  excludeUnschedulable: boolean;
  /** With ExternalIPs, also publish the InternalIP IPv6 addresses (--expose-internal-ipv6); default false. */
  exposeInternalIpv6: boolean;
}

export const NODE_SOURCE_DEFAULTS: NodeSourceOptions = { excludeUnschedulable: true, exposeInternalIpv6: false };

export interface PodSourceOptions {
  /** Publish every pod as "<pod name>.<domain>" (--pod-source-domain); default none. */
  sourceDomain?: string;
  /** Only pods with hostNetwork (--ignore-non-host-network-pods); default false, as external-dns v0.22. */
  ignoreNonHostNetwork: boolean;
}

export const POD_SOURCE_DEFAULTS: PodSourceOptions = { ignoreNonHostNetwork: false };

/** A Service's SRV records stop here unless configured otherwise (srvMaxPerService). */
export const DEFAULT_SRV_MAX_PER_SERVICE = 64;

/** Values of the controller annotation that mean "us"; external-dns itself uses "dns-controller". */
export const OUR_CONTROLLER_NAMES = ['etcdns', 'dns-controller'];

export function sourceOptions(input: {
  sources?: SourceKind[];
  domainFilter?: string[];
  excludeDomains?: string[];
  cluster?: string;
  claims?: Claim[];
  namespace?: string;
  labelSelector?: string;
  annotationFilter?: string;
  ingressClasses?: string[];
  publishClusterIp?: boolean;
  srv?: boolean;
  srvMaxPerService?: number;
  gatewayName?: string;
  gatewayNamespace?: string;
  gatewayLabelFilter?: string;
  gatewayListenerSets?: boolean;
  managedRecordTypes?: RecordType[];
  traefikEnableLegacy?: boolean;
  traefikDisableNew?: boolean;
  traefikService?: string;
  fqdnTemplate?: string[];
  targetTemplate?: string[];
  fqdnTargetTemplate?: string[];
  combineFqdnAnnotation?: boolean;
  unstructuredResources?: string[];
  ignoreHostnameAnnotation?: boolean;
  annotationPrefix?: string;
  enableLegacyAnnotationPrefix?: boolean;
  defaultTargets?: string[];
  forceDefaultTargets?: boolean;
  openshiftRouterName?: string;
  excludeUnschedulable?: boolean;
  exposeInternalIpv6?: boolean;
  podSourceDomain?: string;
  ignoreNonHostNetworkPods?: boolean;
}): SourceOptions {
  return {
    sources: input.sources ?? ['service', 'ingress'],
    domainFilter: (input.domainFilter ?? []).map(canonicalName),
    excludeDomains: (input.excludeDomains ?? []).map(canonicalName),
    ...(input.cluster !== undefined ? { spoke: { cluster: input.cluster, claims: input.claims } } : {}),
    ...(input.namespace ? { namespace: input.namespace } : {}),
    labelSelector: parseSelector(input.labelSelector ?? ''),
    annotationFilter: parseSelector(input.annotationFilter ?? ''),
    ingressClasses: input.ingressClasses ?? [],
    publishClusterIp: input.publishClusterIp ?? false,
    srv: input.srv ?? false,
    srvMaxPerService: input.srvMaxPerService ?? DEFAULT_SRV_MAX_PER_SERVICE,
    gateway: {
      ...(input.gatewayName ? { name: input.gatewayName } : {}),
      ...(input.gatewayNamespace ? { namespace: input.gatewayNamespace } : {}),
      labels: parseSelector(input.gatewayLabelFilter ?? ''),
      listenerSets: input.gatewayListenerSets ?? false,
    },
    managedRecordTypes: input.managedRecordTypes ?? [],
    ignoreHostnameAnnotation: input.ignoreHostnameAnnotation ?? false,
    annotationPrefixes: annotationPrefixes(input),
    defaultTargets: defaultTargets(input.defaultTargets ?? [], input.forceDefaultTargets ?? false),
    switches: {
      gatewayListenerSets: input.gatewayListenerSets ?? false,
      traefikEnableLegacy: input.traefikEnableLegacy ?? false,
      traefikDisableNew: input.traefikDisableNew ?? false,
      ...(input.traefikService ? { traefikService: input.traefikService } : {}),
      unstructuredResources: input.unstructuredResources ?? [],
    },
    templates: FqdnTemplates.parse({
      fqdnTemplate: input.fqdnTemplate ?? [],
      targetTemplate: input.targetTemplate ?? [],
      fqdnTargetTemplate: input.fqdnTargetTemplate ?? [],
      combineFqdnAnnotation: input.combineFqdnAnnotation ?? false,
    }),
    ...(input.openshiftRouterName ? { openshiftRouterName: input.openshiftRouterName } : {}),
    node: {
      excludeUnschedulable: input.excludeUnschedulable ?? NODE_SOURCE_DEFAULTS.excludeUnschedulable,
      exposeInternalIpv6: input.exposeInternalIpv6 ?? NODE_SOURCE_DEFAULTS.exposeInternalIpv6,
    },
    pod: {
      ...(input.podSourceDomain ? { sourceDomain: input.podSourceDomain } : {}),
      ignoreNonHostNetwork: input.ignoreNonHostNetworkPods ?? POD_SOURCE_DEFAULTS.ignoreNonHostNetwork,
    },
  };
}

interface Meta {
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Annotations;
}

/** Namespace (not for cluster-scoped objects: a Node), label selector, annotation filter, and the controller annotation. */
export function objectSelected(meta: Meta | undefined, options: SourceOptions): boolean {
  if (options.namespace !== undefined && meta?.namespace !== undefined && meta.namespace !== options.namespace)
    return false;
  if (!matchesSelector(options.labelSelector, meta?.labels)) return false;
  if (!matchesSelector(options.annotationFilter, meta?.annotations ?? undefined)) return false;
  return controllerSelected(meta);
}

/** The controller annotation is absent or names us. */
export function controllerSelected(meta: Meta | undefined): boolean {
  const controller = readAnnotation(meta?.annotations, 'controller');
  return controller === undefined || OUR_CONTROLLER_NAMES.includes(controller.value);
}

export type DomainVerdict = 'in' | 'excluded' | 'outside';

/** Where a canonical name stands against the domain filter and exclusions. */
export function domainVerdict(name: string, options: SourceOptions): DomainVerdict {
  if (options.excludeDomains.some((d) => isInZone(name, d))) return 'excluded';
  if (options.domainFilter.length > 0 && !options.domainFilter.some((d) => isInZone(name, d))) return 'outside';
  return 'in';
}
