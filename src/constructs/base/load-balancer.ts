// How a Service is exposed outside the cluster: where each load-balancer implementation reads
// the requested addresses, and the Service fields that go with a LoadBalancer or NodePort type.
// The DNS Services and etcd's Service for a hub's spokes share this one rule.
import { isIP } from 'node:net';
import type { k8s } from 'cdk8s-plus-27';
import { QUALIFIED_NAME, mapProblems, oneOf, show } from './kubernetes-rules.ts';

/** Who reads a Service's requested load-balancer addresses, and where. */
export type LoadBalancerImplementation = 'metallb' | 'kube-vip' | 'cilium' | 'spec';

/**
 * The annotation each implementation reads the requested addresses from (comma-separated, one
 * per IP family); "spec" writes the deprecated spec.loadBalancerIP instead (one address).
 */
export const LOAD_BALANCER_ANNOTATIONS: Record<Exclude<LoadBalancerImplementation, 'spec'>, string> = {
  metallb: 'metallb.universe.tf/loadBalancerIPs',
  'kube-vip': 'kube-vip.io/loadbalancerIPs',
  cilium: 'lbipam.cilium.io/ips',
};

export interface LoadBalancerProps {
  /** The addresses to give the Service, at most one per IP family (two for dual-stack). */
  readonly addresses: string[];
  /**
   * The load-balancer implementation of the cluster, which decides where the addresses go:
   * "metallb" (annotation metallb.universe.tf/loadBalancerIPs), "kube-vip"
   * (kube-vip.io/loadbalancerIPs), "cilium" (LB IPAM, lbipam.cilium.io/ips), or "spec"
   * (spec.loadBalancerIP: one address, deprecated since Kubernetes 1.24; for implementations
   * that read nothing else).
   */
  readonly implementation: LoadBalancerImplementation;
}

/** What a Service exposed by a load balancer shares, whichever Service it is. */
export interface LoadBalancedServiceProps {
  /**
   * Requested load-balancer addresses, where the cluster's implementation reads them.
   * @default - assigned by the load balancer
   */
  readonly loadBalancer?: LoadBalancerProps;
  /**
   * Load-balancer implementation (spec.loadBalancerClass).
   * @default - the cluster's default
   */
  readonly loadBalancerClass?: string;
  /**
   * Annotations for the load balancer (e.g. metallb.universe.tf/address-pool).
   * @default - none
   */
  readonly annotations?: Record<string, string>;
}

/** A Service's exposure: its type and, for a load balancer, the addresses and who assigns them. */
export interface ExposureProps extends LoadBalancedServiceProps {
  /** Service type. */
  readonly type: 'LoadBalancer' | 'NodePort' | 'ClusterIP';
  /**
   * spec.externalTrafficPolicy (LoadBalancer and NodePort).
   * @default - the caller's default
   */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
}

/** The Service's annotations and the spec fields of its exposure. */
export function exposure(
  e: ExposureProps,
  defaultTrafficPolicy: 'Cluster' | 'Local',
): {
  annotations: Record<string, string>;
  spec: Pick<k8s.ServiceSpec, 'type' | 'externalTrafficPolicy' | 'loadBalancerIp' | 'loadBalancerClass'>;
} {
  const lb = e.loadBalancer;
  const specAddress = lb?.implementation === 'spec' ? lb.addresses[0] : undefined;
  return {
    annotations: {
      ...e.annotations,
      ...(lb && lb.implementation !== 'spec'
        ? { [LOAD_BALANCER_ANNOTATIONS[lb.implementation]]: lb.addresses.join(',') }
        : {}),
    },
    spec: {
      type: e.type,
      ...(e.type !== 'ClusterIP' ? { externalTrafficPolicy: e.externalTrafficPolicy ?? defaultTrafficPolicy } : {}),
      ...(e.type === 'LoadBalancer' && specAddress ? { loadBalancerIp: specAddress } : {}),
      ...(e.type === 'LoadBalancer' && e.loadBalancerClass ? { loadBalancerClass: e.loadBalancerClass } : {}),
    },
  };
}

function loadBalancerProblems(lb: LoadBalancerProps | undefined, annotations: unknown, path: string): string[] {
  if (lb === undefined) return [];
  const at = `${path}.loadBalancer`;
  const problems = oneOf(lb.implementation, `${at}.implementation`, ['metallb', 'kube-vip', 'cilium', 'spec']);
  if (lb.implementation === undefined)
    problems.push(`${at}.implementation: required ("metallb", "kube-vip", "cilium" or "spec")`);
  if (!Array.isArray(lb.addresses) || lb.addresses.length === 0)
    return [
      ...problems,
      `${at}.addresses: must list one address, or two of different IP families (got ${show(lb.addresses)})`,
    ];
  lb.addresses.forEach((a, i) => {
    if (isIP(a) === 0) problems.push(`${at}.addresses[${i}]: must be an IPv4 or IPv6 address (got ${show(a)})`);
  });
  const families = lb.addresses.map((a) => isIP(a));
  if (lb.addresses.length > 2 || new Set(families).size !== families.length)
    problems.push(`${at}.addresses: at most one address per IP family (got ${show(lb.addresses)})`);
  if (lb.implementation === 'spec' && lb.addresses.length > 1)
    problems.push(
      `${at}.addresses: "spec" holds one address (spec.loadBalancerIP); use an annotation's implementation for two`,
    );
  const annotation =
    lb.implementation in LOAD_BALANCER_ANNOTATIONS
      ? LOAD_BALANCER_ANNOTATIONS[lb.implementation as keyof typeof LOAD_BALANCER_ANNOTATIONS]
      : undefined;
  if (annotation && annotations && typeof annotations === 'object' && annotation in annotations)
    problems.push(`${path}.annotations: leave ${show(annotation)} out, loadBalancer writes it`);
  return problems;
}

/** The exposure's own rules, each naming its field under `path`; `types` are those allowed. */
export function exposureProblems(e: ExposureProps, types: readonly string[], path: string): string[] {
  const problems = [
    ...oneOf(e.type, `${path}.type`, types),
    ...oneOf(e.externalTrafficPolicy, `${path}.externalTrafficPolicy`, ['Cluster', 'Local']),
    ...mapProblems(e.annotations, `${path}.annotations`, false),
    ...loadBalancerProblems(e.loadBalancer, e.annotations, path),
  ];
  if (e.type !== 'LoadBalancer')
    for (const field of ['loadBalancer', 'loadBalancerClass'] as const)
      if (e[field] !== undefined)
        problems.push(`${path}.${field}: only allowed with type "LoadBalancer" (type is ${show(e.type)})`);
  if (e.loadBalancerClass !== undefined && !QUALIFIED_NAME.test(e.loadBalancerClass))
    problems.push(
      `${path}.loadBalancerClass: must be a qualified name such as "metallb.io/metallb" (got ${show(e.loadBalancerClass)})`,
    );
  if (e.type === 'ClusterIP' && e.externalTrafficPolicy !== undefined)
    problems.push(`${path}.externalTrafficPolicy: only allowed with type "LoadBalancer" or "NodePort"`);
  return problems;
}
