// How a DNS server is exposed: port 53 (UDP and TCP) of one mixed-protocol Service (default;
// Kubernetes >= 1.26) or of two Services, one per protocol, for load balancers that cannot mix
// them. Built on the low-level Service because cdk8s-plus cannot set externalTrafficPolicy or
// IP families.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { isIP } from 'node:net';
import { QUALIFIED_NAME, mapProblems, oneOf, show } from '../base/kubernetes-rules.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';

export type IpFamily = 'IPv4' | 'IPv6';

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

export interface DnsServiceProps {
  /**
   * Service type.
   * @default "LoadBalancer"
   */
  readonly type?: 'LoadBalancer' | 'NodePort' | 'ClusterIP';
  /**
   * "mixed": one Service with UDP and TCP 53. "split": `<name>-udp` and `<name>-tcp`; to share
   * one address with MetalLB, give both the same `loadBalancer` and the
   * metallb.universe.tf/allow-shared-ip annotation.
   * @default "mixed"
   */
  readonly protocols?: 'mixed' | 'split';
  /**
   * Requested load-balancer addresses, where the cluster's implementation reads them.
   * @default - assigned by the load balancer
   */
  readonly loadBalancer?: LoadBalancerProps;
  /**
   * Requested load-balancer address in spec.loadBalancerIP, deprecated since Kubernetes 1.24;
   * the same as `loadBalancer: { addresses: [ip], implementation: "spec" }`.
   * @default - assigned by the load balancer
   * @deprecated use `loadBalancer`, which writes the annotation of MetalLB, kube-vip or Cilium
   */
  readonly loadBalancerIP?: string;
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
  /**
   * "Cluster" or "Local" (keeps client source addresses; only nodes running a server answer).
   * @default "Cluster"
   */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  /**
   * Address families of the Service, primary first. The API refuses a family the cluster is not configured
   * for: for "dual-stack where the cluster has it", set only ipFamilyPolicy "PreferDualStack".
   * @default - the cluster's
   */
  readonly ipFamilies?: IpFamily[];
  /**
   * Single or dual stack (spec.ipFamilyPolicy).
   * @default "SingleStack" for one family, "PreferDualStack" for two, the cluster's without ipFamilies
   */
  readonly ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
}

export interface DnsServiceConstructProps extends DnsServiceProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** Service name; "split" appends -udp and -tcp. */
  readonly name: string;
  /** app.kubernetes.io/component and version of the Services. */
  readonly component: string;
  /** app.kubernetes.io/version: the image tag. */
  readonly version: string;
  /** The DNS server pods' fixed selector. */
  readonly selector: Record<string, string>;
  /**
   * Extra labels.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

export const DNS_PORT = 53;

/** Whether the Service may carry IPv6: then the pods must listen on a dual-stack socket. */
export function mayUseIpv6(props: DnsServiceProps | undefined): boolean {
  if (props?.ipFamilies) return props.ipFamilies.includes('IPv6');
  return props?.ipFamilyPolicy === 'PreferDualStack' || props?.ipFamilyPolicy === 'RequireDualStack';
}
/** Container port names of the DNS server; the Services target them by name. */
export const DNS_PORT_NAMES = { tcp: 'dns-tcp', udp: 'dns-udp' } as const;

/** The Services' names, sorted: one, or `<name>-tcp` and `<name>-udp` when split. */
export function dnsServiceNames(name: string, protocols: DnsServiceProps['protocols']): string[] {
  return protocols === 'split' ? [`${name}-tcp`, `${name}-udp`] : [name];
}

export class DnsService extends StackPart {
  /** Names of the Services, sorted. */
  readonly serviceNames: string[];

  constructor(scope: Construct, id: string, props: DnsServiceConstructProps) {
    super(scope, id, props.stack, {
      component: props.component,
      version: props.version,
      // Last: Argo CD shows a LoadBalancer Progressing until it has an address.
      wave: SYNC_WAVE.dnsService,
      labels: props.labels,
    });
    const type = props.type ?? 'LoadBalancer';
    const port = (protocol: 'TCP' | 'UDP'): k8s.ServicePort => {
      const name = protocol === 'TCP' ? DNS_PORT_NAMES.tcp : DNS_PORT_NAMES.udp;
      return { name, port: DNS_PORT, protocol, targetPort: k8s.IntOrString.fromString(name) };
    };
    const families = props.ipFamilies;
    const lb = requestedAddresses(props);
    const specAddress = lb?.implementation === 'spec' ? lb.addresses[0] : undefined;
    const annotations = {
      ...props.annotations,
      ...(lb && lb.implementation !== 'spec'
        ? { [LOAD_BALANCER_ANNOTATIONS[lb.implementation]]: lb.addresses.join(',') }
        : {}),
    };
    const spec = (ports: k8s.ServicePort[]): k8s.ServiceSpec => ({
      type,
      selector: props.selector,
      ports,
      ...(type !== 'ClusterIP' ? { externalTrafficPolicy: props.externalTrafficPolicy ?? 'Cluster' } : {}),
      ...(type === 'LoadBalancer' && specAddress ? { loadBalancerIp: specAddress } : {}),
      ...(type === 'LoadBalancer' && props.loadBalancerClass ? { loadBalancerClass: props.loadBalancerClass } : {}),
      ...(families ? { ipFamilies: families } : {}),
      ...(families || props.ipFamilyPolicy
        ? { ipFamilyPolicy: props.ipFamilyPolicy ?? (families!.length > 1 ? 'PreferDualStack' : 'SingleStack') }
        : {}),
    });
    const service = (name: string, ports: k8s.ServicePort[]) =>
      new k8s.KubeService(this, name, {
        metadata: this.meta(name, { annotations }),
        spec: spec(ports),
      });

    this.serviceNames = dnsServiceNames(props.name, props.protocols);
    if (props.protocols === 'split') {
      service(`${props.name}-tcp`, [port('TCP')]);
      service(`${props.name}-udp`, [port('UDP')]);
    } else {
      service(props.name, [port('TCP'), port('UDP')]);
    }
  }
}

/** The addresses asked for, by either prop (the old loadBalancerIP is "spec"). */
function requestedAddresses(s: DnsServiceProps): LoadBalancerProps | undefined {
  return s.loadBalancer ?? (s.loadBalancerIP ? { addresses: [s.loadBalancerIP], implementation: 'spec' } : undefined);
}

function loadBalancerProblems(s: DnsServiceProps, path: string): string[] {
  const lb = s.loadBalancer;
  if (lb === undefined) return [];
  const at = `${path}.loadBalancer`;
  const problems = oneOf(lb.implementation, `${at}.implementation`, ['metallb', 'kube-vip', 'cilium', 'spec']);
  if (lb.implementation === undefined)
    problems.push(`${at}.implementation: required ("metallb", "kube-vip", "cilium" or "spec")`);
  if (s.loadBalancerIP !== undefined)
    problems.push(
      `${path}.loadBalancerIP: leave it out with loadBalancer (it is the deprecated form of the same request)`,
    );
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
  if (annotation && s.annotations && annotation in s.annotations)
    problems.push(`${path}.annotations: leave ${show(annotation)} out, loadBalancer writes it`);
  return problems;
}

export function dnsServiceProblems(s: DnsServiceProps | undefined, path: string): string[] {
  if (!s) return [];
  const type = s.type ?? 'LoadBalancer';
  const problems = [
    ...oneOf(s.type, `${path}.type`, ['LoadBalancer', 'NodePort', 'ClusterIP']),
    ...oneOf(s.protocols, `${path}.protocols`, ['mixed', 'split']),
    ...oneOf(s.externalTrafficPolicy, `${path}.externalTrafficPolicy`, ['Cluster', 'Local']),
    ...oneOf(s.ipFamilyPolicy, `${path}.ipFamilyPolicy`, ['SingleStack', 'PreferDualStack', 'RequireDualStack']),
    ...mapProblems(s.annotations, `${path}.annotations`, false),
  ];
  if (s.loadBalancerIP !== undefined && isIP(s.loadBalancerIP) === 0)
    problems.push(`${path}.loadBalancerIP: must be an IPv4 or IPv6 address (got ${show(s.loadBalancerIP)})`);
  problems.push(...loadBalancerProblems(s, path));
  if (type !== 'LoadBalancer')
    for (const field of ['loadBalancer', 'loadBalancerIP', 'loadBalancerClass'] as const)
      if (s[field] !== undefined)
        problems.push(`${path}.${field}: only allowed with type "LoadBalancer" (type is ${show(type)})`);
  if (s.loadBalancerClass !== undefined && !QUALIFIED_NAME.test(s.loadBalancerClass))
    problems.push(
      `${path}.loadBalancerClass: must be a qualified name such as "metallb.io/metallb" (got ${show(s.loadBalancerClass)})`,
    );
  if (type === 'ClusterIP' && s.externalTrafficPolicy !== undefined)
    problems.push(`${path}.externalTrafficPolicy: only allowed with type "LoadBalancer" or "NodePort"`);
  if (s.ipFamilies !== undefined) {
    const f = s.ipFamilies;
    if (
      !Array.isArray(f) ||
      f.length < 1 ||
      f.length > 2 ||
      new Set(f).size !== f.length ||
      f.some((x) => x !== 'IPv4' && x !== 'IPv6')
    )
      problems.push(
        `${path}.ipFamilies: must be ["IPv4"], ["IPv6"], ["IPv4", "IPv6"] or ["IPv6", "IPv4"] (got ${show(f)})`,
      );
    else if (f.length === 2 && s.ipFamilyPolicy === 'SingleStack')
      problems.push(`${path}.ipFamilyPolicy: "SingleStack" allows one IP family, but ipFamilies lists two`);
  }
  return problems;
}
