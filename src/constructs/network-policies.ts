// NetworkPolicies: every pod of the stack accepts only the traffic it needs. etcd's client port
// from the DNS servers, the controller, the roles Job and the members themselves (etcd-member
// asks the others for the member list); its peer port from members only; the HTTP ports
// (/metrics, /healthz, /readyz) from the monitoring namespaces; DNS from the configured clients
// and, when those are restricted, from the secondaries allowed zone transfers (their SOA queries
// come over UDP, the transfers over TCP). Ingress only: the pods' egress (etcd, the API server,
// forwarders, NOTIFY to the secondaries) is left to the cluster.
// Ports are the containers' port names, so a changed port number needs no change here.
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { network } from '../config/field-rules.ts';
import { DNS_PORT_NAMES } from './dns-service.ts';
import { COMPONENT, selectorLabels } from './labels.ts';
import { SYNC_WAVE, objectMeta, type StackContext } from './stack-context.ts';
import { assertNoProblems, k8sName, settingProblems, show } from './kubernetes-rules.ts';

export interface DnsClientsProps {
  /**
   * Client networks allowed to query, e.g. an office network. Behind a LoadBalancer or NodePort
   * Service the pod sees the client's own address only with `externalTrafficPolicy: Local`;
   * otherwise it sees a node's address, so list the nodes' network too.
   * @default - none
   */
  readonly cidrs?: string[];
  /**
   * Namespaces whose pods may query; "*" allows every namespace of the cluster.
   * @default - none
   */
  readonly namespaces?: string[];
}

export interface NetworkPolicyProps {
  /**
   * Render the NetworkPolicies. They take effect only where the cluster's network plugin enforces
   * NetworkPolicy (Calico, Cilium, ...); elsewhere they are accepted and do nothing.
   * @default true
   */
  readonly enabled?: boolean;
  /**
   * Namespaces whose pods may reach the HTTP ports (metrics, health) of etcd, the DNS servers and the
   * controller, e.g. where Prometheus runs. Empty: nobody (kubelet probes come from the node, which
   * common network plugins always let through).
   * @default ["monitoring"]
   */
  readonly metricsNamespaces?: string[];
  /**
   * Who may query the DNS servers (UDP and TCP).
   * @default - anyone
   */
  readonly dnsFrom?: DnsClientsProps;
  /**
   * `dnsFrom` per view, by view name, e.g. an internal view for the cluster and the office only.
   * @default - `dnsFrom` for every view
   */
  readonly dnsFromByView?: Record<string, DnsClientsProps>;
}

export const NETWORK_POLICY_DEFAULTS = { metricsNamespaces: ['monitoring'] } as const;

/** The label Kubernetes puts on every Namespace with its name. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface NetworkPoliciesProps extends NetworkPolicyProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** app.kubernetes.io/version of the objects. */
  readonly version: string;
  /** The stack's view names (one DNS server each). */
  readonly views: string[];
  /**
   * Networks allowed zone transfers from each view's server (DnsServer.transferCidrs), by view
   * name: let through to its DNS port even when `dnsFrom` restricts who may query.
   * @default - none
   */
  readonly transferFrom?: Record<string, string[]>;
  /** Whether the etcd-roles Job runs (it needs etcd's client port). */
  readonly rolesJob: boolean;
}

const port = (name: string, protocol: 'TCP' | 'UDP' = 'TCP'): k8s.NetworkPolicyPort => ({
  port: k8s.IntOrString.fromString(name),
  protocol,
});

function namespacePeers(namespaces: readonly string[]): k8s.NetworkPolicyPeer[] {
  if (namespaces.includes('*')) return [{ namespaceSelector: {} }];
  if (namespaces.length === 0) return [];
  return [
    {
      namespaceSelector: {
        matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...namespaces].sort() }],
      },
    },
  ];
}

/** The peers of one DNS server, its clients and its secondaries; undefined means anyone. */
function dnsPeers(clients: DnsClientsProps | undefined, secondaries: string[]): k8s.NetworkPolicyPeer[] | undefined {
  if (clients === undefined) return undefined;
  return [
    ...[...new Set([...(clients.cidrs ?? []), ...secondaries])].sort().map((cidr) => ({ ipBlock: { cidr } })),
    ...namespacePeers(clients.namespaces ?? []),
  ];
}

export class NetworkPolicies extends Construct {
  /** Policy name -> the component whose pods it selects. */
  readonly policies: Record<string, string> = {};

  constructor(scope: Construct, id: string, props: NetworkPoliciesProps) {
    super(scope, id);
    assertNoProblems([
      ...networkPolicyProblems(props, props.views, 'networkPolicy'),
      ...transferFromProblems(props.transferFrom, props.views, 'transferFrom'),
    ]);
    const { stack } = props;
    const pods = (component: string): k8s.NetworkPolicyPeer => ({
      podSelector: { matchLabels: selectorLabels(stack.name, component) },
    });
    const metricsFrom = namespacePeers(props.metricsNamespaces ?? NETWORK_POLICY_DEFAULTS.metricsNamespaces);
    const metricsRule = (portName: string): k8s.NetworkPolicyIngressRule[] =>
      metricsFrom.length > 0 ? [{ ports: [port(portName)], from: metricsFrom }] : [];
    const policy = (component: string, ingress: k8s.NetworkPolicyIngressRule[]) => {
      const name = `${stack.name}-${component}`;
      this.policies[name] = component;
      new k8s.KubeNetworkPolicy(this, component, {
        metadata: objectMeta(stack, {
          name,
          component,
          version: props.version,
          namespaced: true,
          // Before the pods they protect.
          wave: SYNC_WAVE.etcd,
        }),
        spec: {
          podSelector: { matchLabels: selectorLabels(stack.name, component) },
          policyTypes: ['Ingress'],
          // No rules: nothing may connect (an empty list would be dropped by the API server anyway).
          ...(ingress.length > 0 ? { ingress } : {}),
        },
      });
    };

    const etcdClients = [
      pods(COMPONENT.controller),
      ...props.views.map((view) => pods(COMPONENT.server(view))),
      pods(COMPONENT.etcd),
      ...(props.rolesJob ? [pods(COMPONENT.etcdRoles)] : []),
    ];
    policy(COMPONENT.etcd, [
      { ports: [port('client')], from: etcdClients },
      { ports: [port('peer')], from: [pods(COMPONENT.etcd)] },
      ...metricsRule('metrics'),
    ]);
    for (const view of props.views) {
      const from = dnsPeers(props.dnsFromByView?.[view] ?? props.dnsFrom, props.transferFrom?.[view] ?? []);
      policy(COMPONENT.server(view), [
        // No `from`: anyone.
        { ports: [port(DNS_PORT_NAMES.udp, 'UDP'), port(DNS_PORT_NAMES.tcp)], ...(from ? { from } : {}) },
        ...metricsRule('http'),
      ]);
    }
    policy(COMPONENT.controller, metricsRule('http'));
    // The Job serves nothing.
    if (props.rolesJob) policy(COMPONENT.etcdRoles, []);
  }
}

function clientsProblems(c: DnsClientsProps | undefined, path: string): string[] {
  if (c === undefined) return [];
  const problems: string[] = [];
  if (!Array.isArray(c.cidrs ?? [])) problems.push(`${path}.cidrs: must be a list of CIDRs (got ${show(c.cidrs)})`);
  else (c.cidrs ?? []).forEach((cidr, i) => problems.push(...settingProblems(network, cidr, `${path}.cidrs[${i}]`)));
  problems.push(...namespacesProblems(c.namespaces, `${path}.namespaces`, true));
  if ((c.cidrs ?? []).length === 0 && (c.namespaces ?? []).length === 0)
    problems.push(`${path}: give cidrs or namespaces (leave it out to let anyone query)`);
  return problems;
}

function transferFromProblems(byView: Record<string, string[]> | undefined, views: string[], path: string): string[] {
  return Object.entries(byView ?? {}).flatMap(([view, cidrs]) => [
    ...(views.includes(view) ? [] : [`${path}.${view}: no such view (views: ${views.map(show).join(', ')})`]),
    ...(Array.isArray(cidrs)
      ? cidrs.flatMap((cidr, i) => settingProblems(network, cidr, `${path}.${view}[${i}]`))
      : [`${path}.${view}: must be a list of CIDRs (got ${show(cidrs)})`]),
  ]);
}

function namespacesProblems(namespaces: unknown, path: string, wildcard: boolean): string[] {
  if (namespaces === undefined) return [];
  if (!Array.isArray(namespaces)) return [`${path}: must be a list of namespace names (got ${show(namespaces)})`];
  return namespaces.flatMap((ns, i) => (wildcard && ns === '*' ? [] : k8sName(ns, `${path}[${i}]`, 'label', 63)));
}

export function networkPolicyProblems(p: NetworkPolicyProps | undefined, views: string[], path: string): string[] {
  if (p === undefined) return [];
  const problems: string[] = [];
  if (p.enabled !== undefined && typeof p.enabled !== 'boolean')
    problems.push(`${path}.enabled: must be true or false (got ${show(p.enabled)})`);
  problems.push(...namespacesProblems(p.metricsNamespaces, `${path}.metricsNamespaces`, true));
  problems.push(...clientsProblems(p.dnsFrom, `${path}.dnsFrom`));
  for (const [view, clients] of Object.entries(p.dnsFromByView ?? {})) {
    if (!views.includes(view))
      problems.push(`${path}.dnsFromByView.${view}: no such view (views: ${views.map(show).join(', ')})`);
    problems.push(...clientsProblems(clients, `${path}.dnsFromByView.${view}`));
  }
  return problems;
}
