// DnsController: `etcdns controller`, which turns Services, Ingresses, Gateway API routes and
// DNSEndpoints into records in etcd.
// A Deployment with its ServiceAccount (token mounted: it talks to the API server), the
// least-privilege RBAC, and its ControllerConfig in a ConfigMap. With more than one replica it
// elects a leader through a Lease; with one it is replaced with Recreate, so two never write.
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import {
  CONTROLLER_CONFIG_DEFAULTS,
  controllerEntries,
  type ControllerConfigInput,
  type Policy,
  type SourceKind,
} from '../../config/controller-config.ts';
import type { ViewConfig } from '../../config/view-config.ts';
import type { RecordType } from '../../dns/record-types.ts';
import { ControllerRbac } from './controller-rbac.ts';
import { etcdClientMounts, type EtcdClientAccess } from '../etcd/etcd-client-access.ts';
import { COMPONENT } from '../base/labels.ts';
import { RuntimeComponent, type RuntimeComponentProps } from '../base/runtime-component.ts';
import type { LogLevel } from '../../config/field-rules.ts';
import { assertNoProblems, intProblem, settingProblems } from '../base/kubernetes-rules.ts';
import {
  NONROOT_IDENTITY,
  podSecurityContext,
  scheduling,
  replicaSpreadProblems,
  sizeProblems,
  sortedEnv,
  spreadReplicas,
  type ReplicaSpreadProps,
  type TmpVolumeProps,
  type WorkloadProps,
  workloadProblems,
} from '../base/workload.ts';

export interface SourcesProps {
  /**
   * What is turned into records.
   * @default ["ingress", "service"]
   */
  readonly kinds?: SourceKind[];
  /**
   * Watch one namespace only.
   * @default - all namespaces
   */
  readonly namespace?: string;
  /**
   * Only Ingresses of these classes.
   * @default - all
   */
  readonly ingressClasses?: string[];
  /**
   * Label selector on watched resources.
   * @default - none
   */
  readonly labelSelector?: string;
  /**
   * Annotation filter in label-selector syntax (external-dns's --annotation-filter).
   * @default - none
   */
  readonly annotationFilter?: string;
  /**
   * The prefix of every external-dns annotation the controller reads (--annotation-prefix, as
   * external-dns v0.22), such as "external-dns.alpha.kubernetes.io/" for manifests pinned to it.
   * @default "external-dns.kubernetes.io/", and the alpha prefix too (see enableLegacyAnnotationPrefix)
   */
  readonly annotationPrefix?: string;
  /**
   * Also read "external-dns.alpha.kubernetes.io/" annotations; when an object has both spellings the
   * annotationPrefix one wins (external-dns v0.23's --enable-legacy-annotation-prefix).
   * @default - true unless annotationPrefix is set, then false as external-dns
   */
  readonly enableLegacyAnnotationPrefix?: boolean;
  /**
   * external-dns's --default-targets: a DNSEndpoint endpoint without targets takes these, IP
   * addresses (A, AAAA) or one host name (a CNAME); an endpoint's own targets win.
   * @default - none: such an endpoint is reported and not published
   */
  readonly defaultTargets?: string[];
  /**
   * --force-default-targets: every name the sources publish takes defaultTargets instead of its
   * own targets (external-dns v0.22's deprecated flag).
   * @default false
   */
  readonly forceDefaultTargets?: boolean;
  /**
   * Also publish ClusterIP Services.
   * @default false
   */
  readonly publishClusterIp?: boolean;
  /**
   * Names in these domains are never published.
   * @default - none
   */
  readonly excludeDomains?: string[];
  /**
   * Reverse zones: PTR records back to the name for every published address inside one of them.
   * @default - none (no PTR records)
   */
  readonly reverseZones?: ReverseZoneProps[];
  /**
   * SRV records per named port of every non-headless Service (annotation etcdns.io/srv per Service).
   * @default false
   */
  readonly srv?: boolean;
  /**
   * Most SRV records one Service gets; more are reported as a TooManyRecords problem.
   * @default 64
   */
  readonly srvMaxPerService?: number;
  /**
   * Routes only through Gateways of this name (external-dns's --gateway-name).
   * @default - every Gateway
   */
  readonly gatewayName?: string;
  /**
   * Routes only through Gateways of this namespace (--gateway-namespace).
   * @default - every namespace
   */
  readonly gatewayNamespace?: string;
  /**
   * Routes only through Gateways with these labels (--gateway-label-filter, label-selector syntax).
   * @default - none
   */
  readonly gatewayLabelFilter?: string;
  /**
   * Routes may attach to ListenerSets of the Gateways (--gateway-listener-sets).
   * @default false
   */
  readonly gatewayListenerSets?: boolean;
  /**
   * The hostname annotation (and a Service's internal-hostname) publishes nothing
   * (--ignore-hostname-annotation, as external-dns).
   * @default false
   */
  readonly ignoreHostnameAnnotation?: boolean;
  /**
   * traefik-proxy also reads Traefik v2's traefik.containo.us group (--traefik-enable-legacy).
   * @default false
   */
  readonly traefikEnableLegacy?: boolean;
  /**
   * traefik-proxy does not read the traefik.io group (--traefik-disable-new).
   * @default false
   */
  readonly traefikDisableNew?: boolean;
  /**
   * etcdns extension (--traefik-service): Traefik routes without a target annotation take the
   * load-balancer addresses of this Service, "NAMESPACE/NAME" (a route's etcdns.io/traefik-service
   * annotation names another). The ClusterRole then reads Services.
   * @default - such routes publish nothing, as with external-dns
   */
  readonly traefikService?: string;
  /**
   * external-dns's --fqdn-template: Go templates of names for objects that give none
   * (src/runtime/controller/fqdn/README.md says what runs and what is refused at synth).
   * @default - none
   */
  readonly fqdnTemplate?: string[];
  /**
   * --combine-fqdn-annotation: the template's names are added to the object's own.
   * @default false
   */
  readonly combineFqdnAnnotation?: boolean;
  /**
   * --target-template: Go templates of the unstructured source's targets.
   * @default - none
   */
  readonly targetTemplate?: string[];
  /**
   * --fqdn-target-template: Go templates of "host:target" pairs (unstructured source).
   * @default - none
   */
  readonly fqdnTargetTemplate?: string[];
  /**
   * --unstructured-resource: what the unstructured source reads, as resource.version.group
   * ("configmaps.v1", "virtualmachineinstances.v1.kubevirt.io"); the ClusterRole reads exactly these.
   * @default - none
   */
  readonly unstructuredResources?: string[];
  /**
   * openshift-route: only this router's admission in a Route's status (--openshift-router-name).
   * @default - the first router that admitted the route
   */
  readonly openshiftRouterName?: string;
  /**
   * node: leave out unschedulable Nodes (--exclude-unschedulable).
   * @default true
   */
  readonly excludeUnschedulable?: boolean;
  /**
   * node: with ExternalIPs, also publish a Node's IPv6 InternalIPs (--expose-internal-ipv6).
   * @default false
   */
  readonly exposeInternalIpv6?: boolean;
  /**
   * pod: publish every Pod as "<pod name>.<domain>" at its IP (--pod-source-domain).
   * @default - none
   */
  readonly podSourceDomain?: string;
  /**
   * pod: only Pods on the host network publish (--ignore-non-host-network-pods).
   * @default false
   */
  readonly ignoreNonHostNetworkPods?: boolean;
  /**
   * Only records of these types are published (--managed-record-types).
   * @default - every type etcdns publishes
   */
  readonly managedRecordTypes?: RecordType[];
  /**
   * Emit the DNSEndpoint CustomResourceDefinition (externaldns.k8s.io/v1alpha1, external-dns's
   * schema with status conditions and printer columns added). Leave it off where external-dns's
   * chart or another installation already owns the CRD.
   * @default false
   */
  readonly dnsEndpointCrd?: boolean;
}

export interface ReverseZoneProps {
  /** The network whose reverse zone is ours, IPv4 at an octet and IPv6 at a nibble boundary: "10.9.176.0/24". */
  readonly network: string;
  /**
   * Views that publish PTRs in it.
   * @default - every view
   */
  readonly views?: string[];
}

export interface OwnershipProps {
  /**
   * Written into every entry the controller owns.
   * @default - the stack name
   */
  readonly ownerId?: string;
  /**
   * "sync" (create, update, delete), "upsert-only" or "create-only".
   * @default "sync"
   */
  readonly policy?: Policy;
}

/** With more than one replica, `podDisruptionBudget` and `antiAffinity` apply as for the DNS servers. */
export interface ControllerProps extends WorkloadProps, TmpVolumeProps, ReplicaSpreadProps {
  /**
   * Pods. More than one elects a leader.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * Full resync period in seconds (events drive changes; this is a safety net).
   * @default 300
   */
  readonly resyncSeconds?: number;
  /**
   * Log level of the controller.
   * @default "info"
   */
  readonly logLevel?: LogLevel;
}

export interface DnsControllerProps extends ControllerProps, RuntimeComponentProps {
  /** Where etcd is: EtcdCluster.clientAccess. */
  readonly etcd: EtcdClientAccess;
  /** etcd prefix the controller writes (without split horizon). */
  readonly prefix: string;
  /**
   * A spoke of a hub: the cluster's name. The controller writes under the cluster's own prefix,
   * "/skydns-clusters/<cluster>", which it derives from the name, instead of `prefix` or `views`,
   * and `domains` are its claims: a name outside them is refused with a reason on the object
   * (NameNotClaimed), as the hub would refuse it.
   * @default - none
   */
  readonly cluster?: string;
  /**
   * Split horizon: every view the controller writes, instead of `prefix`.
   * @default - none (one view at `prefix`)
   */
  readonly views?: ViewConfig[];
  /** Zone names: only names inside them are published. */
  readonly domains: string[];
  /**
   * What the controller publishes.
   * @default - see SourcesProps
   */
  readonly sources?: SourcesProps;
  /**
   * Whose records the controller may change.
   * @default - see OwnershipProps
   */
  readonly ownership?: OwnershipProps;
}

export const CONTROLLER_DEFAULTS = {
  replicas: 1,
  kinds: ['ingress', 'service'],
  policy: CONTROLLER_CONFIG_DEFAULTS.policy,
  resyncSeconds: CONTROLLER_CONFIG_DEFAULTS.resyncSeconds,
  // Ephemeral storage: the logs (the kubelet keeps up to 50Mi) and /tmp.
  resources: {
    requests: { cpu: '50m', memory: '128Mi', ephemeralStorage: '64Mi' },
    limits: { memory: '512Mi', ephemeralStorage: '256Mi' },
  },
  identity: NONROOT_IDENTITY,
} as const satisfies { kinds: SourceKind[] } & Record<string, unknown>;

export class DnsController extends RuntimeComponent {
  /** The config file it renders into the ConfigMap. */
  readonly config: ControllerConfigInput;
  readonly serviceAccountName: string;

  constructor(scope: Construct, id: string, props: DnsControllerProps) {
    super(scope, id, { ...props, name: `${props.stack.name}-controller`, component: COMPONENT.controller });
    assertNoProblems(controllerProblems(props, 'controller'));
    const { stack } = props;
    const { name, component, image, selector } = this;
    const replicas = props.replicas ?? CONTROLLER_DEFAULTS.replicas;
    const leaderElection = replicas > 1;
    const sources = props.sources ?? {};
    const kinds = [...(sources.kinds ?? CONTROLLER_DEFAULTS.kinds)].sort();
    this.serviceAccountName = name;

    const etcd = etcdClientMounts(props.etcd);
    this.config = {
      etcd: etcd.connection,
      ownerId: props.ownership?.ownerId ?? stack.name,
      ...(props.cluster !== undefined
        ? { cluster: props.cluster, claims: [...props.domains].sort().map((suffix) => ({ suffix })) }
        : props.views
          ? { views: props.views }
          : { prefix: props.prefix }),
      domainFilter: [...props.domains].sort(),
      ...(sources.excludeDomains ? { excludeDomains: [...sources.excludeDomains].sort() } : {}),
      ...(sources.namespace ? { namespace: sources.namespace } : {}),
      sources: kinds,
      ...(sources.ingressClasses ? { ingressClasses: [...sources.ingressClasses].sort() } : {}),
      ...(sources.labelSelector ? { labelSelector: sources.labelSelector } : {}),
      ...(sources.annotationFilter ? { annotationFilter: sources.annotationFilter } : {}),
      ...(sources.annotationPrefix ? { annotationPrefix: sources.annotationPrefix } : {}),
      ...(sources.enableLegacyAnnotationPrefix !== undefined
        ? { enableLegacyAnnotationPrefix: sources.enableLegacyAnnotationPrefix }
        : {}),
      ...(sources.defaultTargets ? { defaultTargets: [...sources.defaultTargets] } : {}),
      ...(sources.forceDefaultTargets ? { forceDefaultTargets: true } : {}),
      publishClusterIp: sources.publishClusterIp ?? false,
      ...(sources.reverseZones
        ? {
            reverseZones: sources.reverseZones.map((z) => ({
              network: z.network,
              ...(z.views ? { views: [...z.views].sort() } : {}),
            })),
          }
        : {}),
      ...(sources.srv !== undefined ? { srv: sources.srv } : {}),
      ...(sources.srvMaxPerService !== undefined ? { srvMaxPerService: sources.srvMaxPerService } : {}),
      ...(sources.gatewayName ? { gatewayName: sources.gatewayName } : {}),
      ...(sources.gatewayNamespace ? { gatewayNamespace: sources.gatewayNamespace } : {}),
      ...(sources.gatewayLabelFilter ? { gatewayLabelFilter: sources.gatewayLabelFilter } : {}),
      ...(sources.gatewayListenerSets ? { gatewayListenerSets: true } : {}),
      ...(sources.ignoreHostnameAnnotation ? { ignoreHostnameAnnotation: true } : {}),
      ...(sources.traefikEnableLegacy ? { traefikEnableLegacy: true } : {}),
      ...(sources.traefikDisableNew ? { traefikDisableNew: true } : {}),
      ...(sources.traefikService ? { traefikService: sources.traefikService } : {}),
      ...(sources.managedRecordTypes ? { managedRecordTypes: [...sources.managedRecordTypes].sort() } : {}),
      ...(sources.fqdnTemplate ? { fqdnTemplate: [...sources.fqdnTemplate] } : {}),
      ...(sources.combineFqdnAnnotation ? { combineFqdnAnnotation: true } : {}),
      ...(sources.targetTemplate ? { targetTemplate: [...sources.targetTemplate] } : {}),
      ...(sources.fqdnTargetTemplate ? { fqdnTargetTemplate: [...sources.fqdnTargetTemplate] } : {}),
      ...(sources.unstructuredResources ? { unstructuredResources: [...sources.unstructuredResources].sort() } : {}),
      ...(sources.openshiftRouterName ? { openshiftRouterName: sources.openshiftRouterName } : {}),
      ...(sources.excludeUnschedulable === false ? { excludeUnschedulable: false } : {}),
      ...(sources.exposeInternalIpv6 ? { exposeInternalIpv6: true } : {}),
      ...(sources.podSourceDomain ? { podSourceDomain: sources.podSourceDomain } : {}),
      ...(sources.ignoreNonHostNetworkPods ? { ignoreNonHostNetworkPods: true } : {}),
      policy: props.ownership?.policy ?? CONTROLLER_DEFAULTS.policy,
      resyncSeconds: props.resyncSeconds ?? CONTROLLER_DEFAULTS.resyncSeconds,
      // No namespace: the controller takes its pod's ($POD_NAMESPACE), wherever an overlay puts it.
      leaderElection: { enabled: leaderElection, namespace: '', leaseName: name },
      httpListen: `0.0.0.0:${props.httpPort}`,
      logLevel: props.logLevel ?? 'info',
    };
    const configText = this.configMap(this.config);

    new k8s.KubeServiceAccount(this, 'service-account', {
      metadata: this.meta(this.name),
      automountServiceAccountToken: true,
    });
    new ControllerRbac(this, 'rbac', {
      stack,
      name,
      component,
      version: image.tag,
      serviceAccountName: name,
      sources: kinds,
      switches: this.config,
      ...(leaderElection ? { leaseName: name } : {}),
      labels: props.labels,
    });

    // One replica is replaced with Recreate and has nobody to spread from or keep available.
    const affinity = leaderElection ? spreadReplicas(this, props, this.meta(this.name), selector) : undefined;
    new k8s.KubeDeployment(this, 'deployment', {
      metadata: this.meta(this.name),
      spec: {
        replicas,
        revisionHistoryLimit: 5,
        selector: { matchLabels: selector },
        strategy: leaderElection ? { type: 'RollingUpdate' } : { type: 'Recreate' },
        template: {
          metadata: this.podMetadata(configText),
          spec: {
            ...scheduling(props),
            ...(affinity ? { affinity } : {}),
            serviceAccountName: name,
            automountServiceAccountToken: true,
            enableServiceLinks: false,
            securityContext: podSecurityContext(props, CONTROLLER_DEFAULTS.identity),
            containers: [
              this.runtimeContainer({
                command: 'controller',
                // The leader-election identity and the namespace of its Lease.
                env: sortedEnv({
                  POD_NAME: { fieldPath: 'metadata.name' },
                  POD_NAMESPACE: { fieldPath: 'metadata.namespace' },
                }),
                ports: [],
                readinessFailureThreshold: 3,
                resources: CONTROLLER_DEFAULTS.resources,
                mounts: etcd.mounts,
              }),
            ],
            volumes: this.runtimeVolumes(etcd.volumes),
          },
        },
      },
    });

    this.addMetricsService(props.labels);
  }
}

export function controllerProblems(
  p: ControllerProps & { sources?: SourcesProps; ownership?: OwnershipProps },
  path: string,
): string[] {
  return [
    ...workloadProblems(p, path),
    ...intProblem(p.replicas, `${path}.replicas`, 1, 10),
    ...sizeProblems(p.tmpSizeLimit, `${path}.tmpSizeLimit`),
    ...replicaSpreadProblems(p, path),
    ...settingProblems(controllerEntries.resyncSeconds, p.resyncSeconds, `${path}.resyncSeconds`),
    ...settingProblems(controllerEntries.logLevel, p.logLevel, `${path}.logLevel`),
    ...sourcesProblems(p.sources, 'sources'),
    ...ownershipProblems(p.ownership, 'ownership'),
  ];
}

function sourcesProblems(s: SourcesProps | undefined, path: string): string[] {
  const c = controllerEntries;
  return [
    ...settingProblems(c.sources, s?.kinds, `${path}.kinds`),
    ...settingProblems(c.namespace, s?.namespace, `${path}.namespace`),
    ...settingProblems(c.ignoreHostnameAnnotation, s?.ignoreHostnameAnnotation, `${path}.ignoreHostnameAnnotation`),
    ...settingProblems(c.traefikEnableLegacy, s?.traefikEnableLegacy, `${path}.traefikEnableLegacy`),
    ...settingProblems(c.traefikDisableNew, s?.traefikDisableNew, `${path}.traefikDisableNew`),
    ...settingProblems(c.traefikService, s?.traefikService, `${path}.traefikService`),
    ...settingProblems(c.ingressClasses, s?.ingressClasses, `${path}.ingressClasses`),
    ...settingProblems(c.labelSelector, s?.labelSelector, `${path}.labelSelector`),
    ...settingProblems(c.annotationFilter, s?.annotationFilter, `${path}.annotationFilter`),
    ...settingProblems(c.annotationPrefix, s?.annotationPrefix, `${path}.annotationPrefix`),
    ...settingProblems(
      c.enableLegacyAnnotationPrefix,
      s?.enableLegacyAnnotationPrefix,
      `${path}.enableLegacyAnnotationPrefix`,
    ),
    ...settingProblems(c.defaultTargets, s?.defaultTargets, `${path}.defaultTargets`),
    ...settingProblems(c.forceDefaultTargets, s?.forceDefaultTargets, `${path}.forceDefaultTargets`),
    ...settingProblems(c.publishClusterIp, s?.publishClusterIp, `${path}.publishClusterIp`),
    ...settingProblems(c.excludeDomains, s?.excludeDomains, `${path}.excludeDomains`),
    ...settingProblems(c.reverseZones, s?.reverseZones, `${path}.reverseZones`),
    ...settingProblems(c.srv, s?.srv, `${path}.srv`),
    ...settingProblems(c.srvMaxPerService, s?.srvMaxPerService, `${path}.srvMaxPerService`),
    ...settingProblems(c.gatewayName, s?.gatewayName, `${path}.gatewayName`),
    ...settingProblems(c.gatewayNamespace, s?.gatewayNamespace, `${path}.gatewayNamespace`),
    ...settingProblems(c.gatewayLabelFilter, s?.gatewayLabelFilter, `${path}.gatewayLabelFilter`),
    ...settingProblems(c.gatewayListenerSets, s?.gatewayListenerSets, `${path}.gatewayListenerSets`),
    ...settingProblems(c.managedRecordTypes, s?.managedRecordTypes, `${path}.managedRecordTypes`),
    ...settingProblems(c.fqdnTemplate, s?.fqdnTemplate, `${path}.fqdnTemplate`),
    ...settingProblems(c.combineFqdnAnnotation, s?.combineFqdnAnnotation, `${path}.combineFqdnAnnotation`),
    ...settingProblems(c.targetTemplate, s?.targetTemplate, `${path}.targetTemplate`),
    ...settingProblems(c.fqdnTargetTemplate, s?.fqdnTargetTemplate, `${path}.fqdnTargetTemplate`),
    ...settingProblems(c.unstructuredResources, s?.unstructuredResources, `${path}.unstructuredResources`),
    ...settingProblems(c.openshiftRouterName, s?.openshiftRouterName, `${path}.openshiftRouterName`),
    ...settingProblems(c.excludeUnschedulable, s?.excludeUnschedulable, `${path}.excludeUnschedulable`),
    ...settingProblems(c.exposeInternalIpv6, s?.exposeInternalIpv6, `${path}.exposeInternalIpv6`),
    ...settingProblems(c.podSourceDomain, s?.podSourceDomain, `${path}.podSourceDomain`),
    ...settingProblems(c.ignoreNonHostNetworkPods, s?.ignoreNonHostNetworkPods, `${path}.ignoreNonHostNetworkPods`),
    ...(s?.dnsEndpointCrd !== undefined && typeof s.dnsEndpointCrd !== 'boolean'
      ? [`${path}.dnsEndpointCrd: must be true or false (got ${JSON.stringify(s.dnsEndpointCrd)})`]
      : []),
  ];
}

/** A reverse zone may only name views the stack has (the controller would refuse its config). */
export function reverseZoneViewProblems(s: SourcesProps | undefined, viewNames: readonly string[]): string[] {
  return (s?.reverseZones ?? []).flatMap((zone, i) =>
    (zone.views ?? []).flatMap((view, j) =>
      viewNames.includes(view)
        ? []
        : [`sources.reverseZones[${i}].views[${j}]: "${view}" is not a view of the stack (${viewNames.join(', ')})`],
    ),
  );
}

function ownershipProblems(o: OwnershipProps | undefined, path: string): string[] {
  return [
    ...settingProblems(controllerEntries.policy, o?.policy, `${path}.policy`),
    ...settingProblems(controllerEntries.ownerId, o?.ownerId, `${path}.ownerId`),
  ];
}
