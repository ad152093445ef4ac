// A hub's etcd client port for its spokes (issue 34): a Service of its own, of type LoadBalancer
// or NodePort, exposed by the same rule as the DNS Services (base/load-balancer.ts). The peer
// port stays inside. The names the spokes dial go into etcd's server certificate
// (etcd-certificates.ts) and the clusters' networks into etcd's NetworkPolicy.
import { isIP } from 'node:net';
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { dnsName } from '../../config/field-rules.ts';
import { SYNC_WAVE } from '../base/gitops.ts';
import { COMPONENT } from '../base/labels.ts';
import { exposure, exposureProblems, type LoadBalancedServiceProps } from '../base/load-balancer.ts';
import { intProblem, settingProblems, show } from '../base/kubernetes-rules.ts';
import type { StackPartProps } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import type { SubjectNames } from './etcd-certificates.ts';

/** The load balancer's `loadBalancer.addresses` also go into etcd's server certificate. */
export interface EtcdSpokeServiceProps extends LoadBalancedServiceProps {
  /**
   * Service type.
   * @default "LoadBalancer"
   */
  readonly type?: 'LoadBalancer' | 'NodePort';
  /**
   * With type "NodePort": the port on every node.
   * @default - assigned by Kubernetes
   */
  readonly nodePort?: number;
  /**
   * "Local" keeps the spokes' source addresses, which etcd's NetworkPolicy admits by the
   * clusters' `etcdClientCidrs` (only nodes running an etcd member answer); with "Cluster" etcd
   * sees a node's address, so list the hub's nodes' network in `etcdClientCidrs` too.
   * @default "Local"
   */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  /**
   * The host names and IP addresses the spokes dial (the hosts of their `hub.endpoints`) besides
   * `loadBalancer.addresses`: `tls.certManager` puts both in etcd's server certificate (with
   * Secrets of your own, their certificate must name them). Required without
   * `loadBalancer.addresses`.
   * @default - none
   */
  readonly names?: string[];
}

export const SPOKE_SERVICE_DEFAULTS = { type: 'LoadBalancer', externalTrafficPolicy: 'Local' } as const;

/** What the spokes dial, for the server certificate: host names and IP addresses. */
export function spokeServiceNames(s: EtcdSpokeServiceProps): SubjectNames {
  const all = [...(s.loadBalancer?.addresses ?? []), ...(s.names ?? [])];
  return {
    dnsNames: [...new Set(all.filter((n) => isIP(n) === 0))],
    ipAddresses: [...new Set(all.filter((n) => isIP(n) !== 0))],
  };
}

export class EtcdSpokeService extends StackPart {
  constructor(
    scope: Construct,
    id: string,
    props: StackPartProps & {
      service: EtcdSpokeServiceProps;
      name: string;
      selector: Record<string, string>;
      port: number;
      labels?: Record<string, string>;
    },
  ) {
    // Last: Argo CD shows a LoadBalancer Progressing until it has an address.
    super(scope, id, props.stack, {
      component: COMPONENT.etcd,
      version: props.version,
      wave: SYNC_WAVE.dnsService,
      labels: props.labels,
    });
    const s = props.service;
    const exposed = exposure(
      { ...s, type: s.type ?? SPOKE_SERVICE_DEFAULTS.type },
      SPOKE_SERVICE_DEFAULTS.externalTrafficPolicy,
    );
    new k8s.KubeService(this, 'service', {
      metadata: this.meta(props.name, { annotations: exposed.annotations }),
      spec: {
        ...exposed.spec,
        selector: props.selector,
        ports: [
          {
            name: 'client',
            port: props.port,
            targetPort: k8s.IntOrString.fromString('client'),
            protocol: 'TCP',
            ...(s.nodePort !== undefined ? { nodePort: s.nodePort } : {}),
          },
        ],
      },
    });
  }
}

export function spokeServiceProblems(s: EtcdSpokeServiceProps | undefined, path: string): string[] {
  if (s === undefined) return [];
  if (s === null || typeof s !== 'object') return [`${path}: must be an object (got ${show(s)})`];
  const type = s.type ?? SPOKE_SERVICE_DEFAULTS.type;
  const problems = [
    ...exposureProblems({ ...s, type }, ['LoadBalancer', 'NodePort'], path),
    ...intProblem(s.nodePort, `${path}.nodePort`, 1, 65535, 'a port'),
  ];
  if (s.nodePort !== undefined && type !== 'NodePort')
    problems.push(`${path}.nodePort: only allowed with type "NodePort" (type is ${show(type)})`);
  if (s.names !== undefined && !Array.isArray(s.names))
    problems.push(`${path}.names: must be a list of host names and IP addresses (got ${show(s.names)})`);
  else
    (s.names ?? []).forEach((n, i) => {
      if (isIP(String(n)) !== 0) return;
      const own = settingProblems(dnsName, n, `${path}.names[${i}]`);
      problems.push(...own);
      if (own.length === 0 && n.endsWith('.'))
        problems.push(
          `${path}.names[${i}]: write it without the final dot, as a certificate names it (got ${show(n)})`,
        );
    });
  if ((s.names ?? []).length === 0 && (s.loadBalancer?.addresses ?? []).length === 0)
    problems.push(
      `${path}.names: required without loadBalancer.addresses: the host names or addresses the spokes dial, which etcd's server certificate must name`,
    );
  return problems;
}
