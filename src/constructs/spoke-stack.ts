// SpokeStack: a member cluster of a hub (issue 34). Only the controller, its RBAC and references
// to the Secrets that reach the hub's etcd over TLS: no etcd, no DNS server. The controller logs
// in as the cluster's own etcd user (which the hub's etcd-roles Job creates from the same
// ClusterProps) and writes under the cluster's own prefix, "/skydns-clusters/<name>".
import { Construct } from 'constructs';
import { clusterPrefix } from '../skydns/cluster-prefix.ts';
import {
  DnsController,
  controllerProblems,
  type ControllerProps,
  type OwnershipProps,
  type SourcesProps,
} from './controller/dns-controller.ts';
import { DnsEndpointCrd } from './controller/dns-endpoint-crd.ts';
import { STACK_DEFAULTS, type GitOpsProps, type ObservabilityProps } from './dns-stack.ts';
import type { EtcdClientAccess } from './etcd/etcd-client-access.ts';
import { orderDefinitionsFirst } from './base/gitops.ts';
import { DEFAULT_IMAGES } from './base/image.ts';
import { SECRET_KEY, intProblem, k8sName, settingProblems, show } from './base/kubernetes-rules.ts';
import { clusterEtcdUser, clusterProblems, type ClusterProps } from './etcd/member-clusters.ts';
import { stackContext, StackNamespace, type NamespaceProps } from './stack-base.ts';
import {
  ComponentPolicy,
  apiServerEgress,
  cidrsEgress,
  clusterDnsEgress,
  metricsIngress,
  networkPolicyProblems,
  type NetworkPolicyProps,
} from './network-policies.ts';
import { network } from '../config/field-rules.ts';
import { COMPONENT } from './base/labels.ts';
import type { StackContext } from './base/stack-context.ts';

export interface HubConnectionProps {
  /** The hub's etcd client URLs, each "https://HOST:PORT" (the hub's etcd serves TLS). */
  readonly endpoints: string[];
  /**
   * Existing Secret (cert-manager's layout) with the hub's CA under `ca.crt` and this cluster's
   * client certificate and key under `tls.crt` and `tls.key`.
   */
  readonly tlsSecret: string;
  /** Existing Secret with this cluster's etcd password: the hub's `cluster-<name>` password. */
  readonly passwordSecret: string;
  /**
   * Key of the password in `passwordSecret`.
   * @default "password"
   */
  readonly passwordKey?: string;
  /**
   * The addresses of `endpoints` as this cluster's pods reach them (e.g. the hub's etcd
   * load-balancer address as a /32): the controller's egress NetworkPolicy allows these on the
   * endpoints' ports. Required with `networkPolicy.egress`.
   * @default - none
   */
  readonly cidrs?: string[];
}

/** A spoke's NetworkPolicy: the controller's, as a hub's controller has it. */
export type SpokeNetworkPolicyProps = Pick<NetworkPolicyProps, 'enabled' | 'metricsNamespaces' | 'egress'>;

export interface SpokeStackProps {
  /**
   * Prefix of every object name; the ClusterRole and ClusterRoleBinding carry it too.
   * @default "etcdns"
   */
  readonly name?: string;
  /**
   * The namespace of the spoke's controller.
   * @default - namespace "etcdns", created, protected from pruning
   */
  readonly namespace?: NamespaceProps;
  /** This cluster: the hub's `clusters` entry of the same name (share the object between the files). */
  readonly cluster: ClusterProps;
  /** Where the hub's etcd is and the Secrets this cluster logs in with. */
  readonly hub: HubConnectionProps;
  /**
   * What the controller publishes (names at or below the cluster's suffixes only).
   * @default - see SourcesProps
   */
  readonly sources?: SourcesProps;
  /**
   * Whose records the controller may change.
   * @default - owner id: the cluster's name
   */
  readonly ownership?: OwnershipProps;
  /**
   * The controller Deployment.
   * @default - see ControllerProps (1 replica)
   */
  readonly controller?: ControllerProps;
  /**
   * Health, readiness and metrics endpoints.
   * @default - port 8080, Prometheus scrape annotations
   */
  readonly observability?: Pick<ObservabilityProps, 'metricsPort' | 'prometheusAnnotations'>;
  /**
   * The controller's NetworkPolicy: its HTTP port (metrics, health) from `metricsNamespaces`,
   * nothing else in; with `egress`, out only to the cluster DNS, the API server and the hub's
   * etcd (`hub.cidrs`, on the ports of `hub.endpoints`).
   * @default - on, ingress only
   */
  readonly networkPolicy?: SpokeNetworkPolicyProps;
  /**
   * Argo CD and Flux specifics.
   * @default - see GitOpsProps
   */
  readonly gitops?: GitOpsProps;
}

export const HUB_DEFAULTS = { passwordKey: 'password' } as const;

export class SpokeStack extends Construct {
  readonly controller: DnsController;
  readonly context: StackContext;

  constructor(scope: Construct, id: string, props: SpokeStackProps) {
    super(scope, id);
    const stack = stackContext(this, props, spokeProblems(props));
    this.context = stack;
    const version = (props.controller?.image ?? DEFAULT_IMAGES.etcdns).tag;
    new StackNamespace(this, 'namespace', { stack, version, namespace: props.namespace });

    const { cluster, hub } = props;
    const hubEtcd: EtcdClientAccess = {
      endpoints: [...hub.endpoints],
      tls: { secretName: hub.tlsSecret, caKey: 'ca.crt', certKey: 'tls.crt', keyKey: 'tls.key' },
      auth: {
        username: clusterEtcdUser(cluster.name).name,
        password: { name: hub.passwordSecret, key: hub.passwordKey ?? HUB_DEFAULTS.passwordKey },
      },
    };
    this.controller = new DnsController(this, 'controller', {
      ...props.controller,
      stack,
      etcd: hubEtcd,
      cluster: cluster.name,
      prefix: clusterPrefix(cluster.name),
      domains: cluster.suffixes,
      ...(props.sources ? { sources: props.sources } : {}),
      ownership: { ownerId: cluster.name, ...props.ownership },
      httpPort: props.observability?.metricsPort ?? STACK_DEFAULTS.metricsPort,
      prometheusAnnotations: props.observability?.prometheusAnnotations ?? true,
      metricsService: false,
    });
    const policy = props.networkPolicy;
    if (policy?.enabled !== false)
      new ComponentPolicy(this, 'network-policy', {
        stack,
        version,
        component: COMPONENT.controller,
        ingress: metricsIngress(policy?.metricsNamespaces, 'http'),
        ...(policy?.egress
          ? {
              egress: [
                clusterDnsEgress(policy.egress),
                apiServerEgress(policy.egress),
                cidrsEgress(hub.cidrs ?? [], hub.endpoints.map(endpointPort)),
              ],
            }
          : {}),
      });
    if (props.sources?.dnsEndpointCrd) new DnsEndpointCrd(this, 'dns-endpoint-crd', { stack, version });
    orderDefinitionsFirst(this, stack);
  }
}

/** The port of a checked "https://HOST:PORT" endpoint. */
const endpointPort = (url: string): number => Number(new URL(url).port);

export function spokeProblems(props: SpokeStackProps): string[] {
  const hub = props.hub;
  const problems = [
    ...k8sName(props.name, 'name', 'label', 30),
    ...k8sName(props.namespace?.name, 'namespace.name', 'label', 63),
    ...clusterProblems(props.cluster, 'cluster'),
    ...controllerProblems({ ...props.controller, sources: props.sources, ownership: props.ownership }, 'controller'),
    ...intProblem(props.observability?.metricsPort, 'observability.metricsPort', 1024, 65535, 'an unprivileged port'),
    ...networkPolicyProblems(props.networkPolicy, [], 'networkPolicy'),
  ];
  if (hub === null || typeof hub !== 'object')
    return [...problems, `hub: must be { endpoints, tlsSecret, passwordSecret } (got ${show(hub)})`];
  if (!Array.isArray(hub.endpoints) || hub.endpoints.length === 0)
    problems.push(
      `hub.endpoints: must list the hub's etcd client URLs, "https://HOST:PORT" (got ${show(hub.endpoints)})`,
    );
  else
    hub.endpoints.forEach((url, i) => {
      if (typeof url !== 'string' || !/^https:\/\/[^/\s]+:\d{1,5}$/.test(url))
        problems.push(`hub.endpoints[${i}]: must be "https://HOST:PORT": the hub's etcd serves TLS (got ${show(url)})`);
    });
  for (const field of ['tlsSecret', 'passwordSecret'] as const)
    problems.push(
      ...(typeof hub[field] === 'string'
        ? k8sName(hub[field], `hub.${field}`, 'subdomain', 253)
        : [`hub.${field}: required, the name of an existing Secret (got ${show(hub[field])})`]),
    );
  if (hub.passwordKey !== undefined && (typeof hub.passwordKey !== 'string' || !SECRET_KEY.test(hub.passwordKey)))
    problems.push(
      `hub.passwordKey: must be a Secret key of letters, digits, "-", "_" and "." (got ${show(hub.passwordKey)})`,
    );
  if (hub.cidrs !== undefined && !Array.isArray(hub.cidrs))
    problems.push(`hub.cidrs: must be a list of CIDRs such as "192.0.2.10/32" (got ${show(hub.cidrs)})`);
  else (hub.cidrs ?? []).forEach((cidr, i) => problems.push(...settingProblems(network, cidr, `hub.cidrs[${i}]`)));
  if (props.networkPolicy?.egress && props.networkPolicy.enabled !== false && (hub.cidrs ?? []).length === 0)
    problems.push(
      "hub.cidrs: required with networkPolicy.egress, the addresses of the hub's etcd endpoints as this cluster reaches them",
    );
  return problems;
}
