// How a DNS server is exposed (base/load-balancer.ts): port 53 (UDP and TCP) of one mixed-protocol Service (default;
// Kubernetes >= 1.26) or of two Services, one per protocol, for load balancers that cannot mix
// them. Built on the low-level Service because cdk8s-plus cannot set externalTrafficPolicy or
// IP families.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { isIP } from 'node:net';
import { oneOf, show } from '../base/kubernetes-rules.ts';
import {
  exposure,
  exposureProblems,
  type LoadBalancedServiceProps,
  type LoadBalancerProps,
} from '../base/load-balancer.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';

export type IpFamily = 'IPv4' | 'IPv6';

export interface DnsServiceProps extends LoadBalancedServiceProps {
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
   * Requested load-balancer address in spec.loadBalancerIP, deprecated since Kubernetes 1.24;
   * the same as `loadBalancer: { addresses: [ip], implementation: "spec" }`.
   * @default - assigned by the load balancer
   * @deprecated use `loadBalancer`, which writes the annotation of MetalLB, kube-vip or Cilium
   */
  readonly loadBalancerIP?: string;
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
    const exposed = exposure(
      {
        type,
        loadBalancer: requestedAddresses(props),
        loadBalancerClass: props.loadBalancerClass,
        annotations: props.annotations,
        externalTrafficPolicy: props.externalTrafficPolicy,
      },
      'Cluster',
    );
    const annotations = exposed.annotations;
    const spec = (ports: k8s.ServicePort[]): k8s.ServiceSpec => ({
      type,
      selector: props.selector,
      ports,
      ...exposed.spec,
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

export function dnsServiceProblems(s: DnsServiceProps | undefined, path: string): string[] {
  if (!s) return [];
  const type = s.type ?? 'LoadBalancer';
  const problems = [
    ...exposureProblems({ ...s, type }, ['LoadBalancer', 'NodePort', 'ClusterIP'], path),
    ...oneOf(s.protocols, `${path}.protocols`, ['mixed', 'split']),
    ...oneOf(s.ipFamilyPolicy, `${path}.ipFamilyPolicy`, ['SingleStack', 'PreferDualStack', 'RequireDualStack']),
  ];
  if (s.loadBalancerIP !== undefined && isIP(s.loadBalancerIP) === 0)
    problems.push(`${path}.loadBalancerIP: must be an IPv4 or IPv6 address (got ${show(s.loadBalancerIP)})`);
  if (s.loadBalancer !== undefined && s.loadBalancerIP !== undefined)
    problems.push(
      `${path}.loadBalancerIP: leave it out with loadBalancer (it is the deprecated form of the same request)`,
    );
  if (type !== 'LoadBalancer' && s.loadBalancerIP !== undefined)
    problems.push(`${path}.loadBalancerIP: only allowed with type "LoadBalancer" (type is ${show(type)})`);
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
