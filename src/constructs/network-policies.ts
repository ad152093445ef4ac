// NetworkPolicies: every pod of the stack accepts only the traffic it needs. etcd's client port
// from the DNS servers, the controller, the roles Job and the members themselves (etcd-member
// asks the others for the member list), and a hub's from its member clusters' networks (through
// etcd.spokeService); its peer port from members only; the HTTP ports
// (/metrics, /healthz, /readyz) from the monitoring namespaces; DNS from the configured clients
// and, when those are restricted, from the secondaries allowed zone transfers (their SOA queries
// come over UDP, the transfers over TCP). With `egress` each pod may also connect only where it
// needs to: every pod to the cluster DNS (names are resolved: etcd's Services, its members); etcd
// to its members (peer and client ports) and the API server (the member helper reads its
// StatefulSet); a DNS server to etcd's client port, the API server (EndpointSlices), its
// forwarders (UDP and TCP) and the secondaries it NOTIFYs (UDP); the controller to etcd and the
// API server; the roles Job to etcd. A policy cannot select the API server by pod: its addresses
// are given (`apiServer`). Egress is opt-in: a wrong address there stops the controller.
// Ingress ports are the containers' port names, so a changed port number needs no change here;
// egress names etcd's ports by number (a named port of another pod is not matched everywhere).
import { isIP } from 'node:net';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { network } from '../config/field-rules.ts';
import { DNS_PORT_NAMES } from './server/dns-service.ts';
import { ETCD_PORTS } from './etcd/etcd-cluster.ts';
import { SERVER_DEFAULTS, type DnsPeer } from './server/dns-server.ts';
import { COMPONENT, selectorLabels } from './base/labels.ts';
import type { StackContext, StackPartProps } from './base/stack-context.ts';
import { StackPart } from './base/stack-part.ts';
import { SYNC_WAVE } from './base/gitops.ts';
import { assertNoProblems, intProblem, k8sName, mapProblems, settingProblems, show } from './base/kubernetes-rules.ts';

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

export interface ApiServerProps {
  /**
   * The API server's addresses as the pods reach them once the `kubernetes` Service has been
   * translated: its endpoints (`kubectl get endpointslices -n default -l
   * kubernetes.io/service-name=kubernetes`), e.g. the control-plane nodes as /32s.
   */
  readonly cidrs: string[];
  /**
   * The endpoints' port (not the Service's 443, unless they are the same).
   * @default [443, 6443] (managed control planes; kubeadm, k3s and RKE2)
   */
  readonly ports?: number[];
}

export interface ClusterDnsProps {
  /**
   * Namespace of the cluster DNS pods.
   * @default "kube-system"
   */
  readonly namespace?: string;
  /**
   * Labels of the cluster DNS pods.
   * @default { "k8s-app": "kube-dns" } (CoreDNS as kubeadm, k3s, RKE2 and the managed clusters label it)
   */
  readonly podLabels?: Record<string, string>;
  /**
   * Addresses also allowed, for a DNS the pods reach outside the pod network: a node-local cache
   * (e.g. "169.254.20.10/32" and the kube-dns Service's address it takes over) or a resolver on
   * the nodes.
   * @default - none
   */
  readonly cidrs?: string[];
  /**
   * Port of the cluster DNS in its pods.
   * @default 53
   */
  readonly port?: number;
}

export interface EgressProps {
  /** Where the API server is (the controller, the DNS servers and etcd's member helper read it). */
  readonly apiServer: ApiServerProps;
  /**
   * The cluster DNS every pod resolves names with (UDP and TCP).
   * @default - the kube-dns pods of kube-system, port 53
   */
  readonly clusterDns?: ClusterDnsProps;
}

export const EGRESS_DEFAULTS = {
  apiServerPorts: [443, 6443],
  clusterDns: { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' }, port: 53 },
} as const;

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
  /**
   * Egress policies too: each pod may connect only where it needs to (etcd, its members, the
   * API server, the cluster DNS, the DNS servers' forwarders and the secondaries they NOTIFY).
   * @default - none: ingress only, the pods' egress is left to the cluster
   */
  readonly egress?: EgressProps;
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
  /**
   * Networks of a hub's member clusters admitted to etcd's client port (through
   * `etcd.spokeService`).
   * @default - none
   */
  readonly etcdClientCidrs?: string[];
  /** Whether the etcd-roles Job runs (it needs etcd's client port). */
  readonly rolesJob: boolean;
  /**
   * Where each view's DNS server sends queries and NOTIFYs (DnsServer.peers), by view name: its
   * egress allows them.
   * @default - none
   */
  readonly serverPeers?: Record<string, DnsPeer[]>;
  /**
   * The view whose server the DNSSEC signer transfers from: the signer's own policy, its DNS
   * port open to anyone (it is the server the outside asks) and, with egress, that server's pods.
   * @default - no signer
   */
  readonly signerView?: string;
}

const port = (name: string | number, protocol: 'TCP' | 'UDP' = 'TCP'): k8s.NetworkPolicyPort => ({
  port: typeof name === 'number' ? k8s.IntOrString.fromNumber(name) : k8s.IntOrString.fromString(name),
  protocol,
});

const hostCidr = (host: string) => `${host}/${isIP(host) === 6 ? 128 : 32}`;

/** One egress rule per address and port of a DNS server's peers, each once, in a fixed order. */
function peerRules(peers: DnsPeer[]): k8s.NetworkPolicyEgressRule[] {
  const byTarget = new Map<string, { cidr: string; port: number; protocols: Set<'UDP' | 'TCP'> }>();
  for (const p of peers) {
    const key = `${hostCidr(p.host)} ${p.port}`;
    const target = byTarget.get(key) ?? { cidr: hostCidr(p.host), port: p.port, protocols: new Set() };
    for (const protocol of p.protocols) target.protocols.add(protocol);
    byTarget.set(key, target);
  }
  return [...byTarget.keys()].sort().map((key) => {
    const t = byTarget.get(key)!;
    return { to: [{ ipBlock: { cidr: t.cidr } }], ports: [...t.protocols].sort().map((p) => port(t.port, p)) };
  });
}

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

/** The HTTP port (metrics, health) of a component's pods, open to the monitoring namespaces. */
export function metricsIngress(
  metricsNamespaces: readonly string[] | undefined,
  portName: string,
): k8s.NetworkPolicyIngressRule[] {
  const from = namespacePeers(metricsNamespaces ?? NETWORK_POLICY_DEFAULTS.metricsNamespaces);
  return from.length > 0 ? [{ ports: [port(portName)], from }] : [];
}

/** Every pod's egress to the cluster DNS (UDP and TCP). */
export function clusterDnsEgress(egress: EgressProps): k8s.NetworkPolicyEgressRule {
  const dns = { ...EGRESS_DEFAULTS.clusterDns, ...egress.clusterDns };
  return {
    to: [
      {
        namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: dns.namespace } },
        podSelector: { matchLabels: dns.podLabels },
      },
      ...[...(dns.cidrs ?? [])].sort().map((cidr) => ({ ipBlock: { cidr } })),
    ],
    ports: [port(dns.port, 'UDP'), port(dns.port, 'TCP')],
  };
}

/** Egress to the API server's endpoints. */
export function apiServerEgress(egress: EgressProps): k8s.NetworkPolicyEgressRule {
  return {
    to: [...egress.apiServer.cidrs].sort().map((cidr) => ({ ipBlock: { cidr } })),
    ports: [...(egress.apiServer.ports ?? EGRESS_DEFAULTS.apiServerPorts)].sort((a, b) => a - b).map((p) => port(p)),
  };
}

/** TCP from the given networks to the pods' given ports. */
export function cidrsIngress(cidrs: readonly string[], ports: (string | number)[]): k8s.NetworkPolicyIngressRule {
  return { ports: ports.map((p) => port(p)), from: [...new Set(cidrs)].sort().map((cidr) => ({ ipBlock: { cidr } })) };
}

/** TCP from the pods to the given networks on the given ports. */
export function cidrsEgress(cidrs: readonly string[], ports: number[]): k8s.NetworkPolicyEgressRule {
  return {
    to: [...new Set(cidrs)].sort().map((cidr) => ({ ipBlock: { cidr } })),
    ports: [...new Set(ports)].sort((a, b) => a - b).map((p) => port(p)),
  };
}

/**
 * One component's NetworkPolicy, labelled as the component whose pods it selects. Without
 * `egress` it restricts ingress only; an empty `ingress` admits nothing.
 */
export class ComponentPolicy extends StackPart {
  readonly name: string;

  constructor(
    scope: Construct,
    id: string,
    props: StackPartProps & {
      component: string;
      ingress: k8s.NetworkPolicyIngressRule[];
      egress?: k8s.NetworkPolicyEgressRule[];
    },
  ) {
    const { stack, component, ingress, egress } = props;
    // Before the pods they protect.
    super(scope, id, stack, { component, version: props.version, wave: SYNC_WAVE.etcd });
    this.name = `${stack.name}-${component}`;
    new k8s.KubeNetworkPolicy(this, 'policy', {
      metadata: this.meta(this.name),
      spec: {
        podSelector: { matchLabels: selectorLabels(stack.name, component) },
        policyTypes: egress ? ['Ingress', 'Egress'] : ['Ingress'],
        // No rules: nothing may connect (an empty list would be dropped by the API server anyway).
        ...(ingress.length > 0 ? { ingress } : {}),
        ...(egress ? { egress } : {}),
      },
    });
  }
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
    const metricsRule = (portName: string) => metricsIngress(props.metricsNamespaces, portName);
    const egress = props.egress;
    const common = egress ? [clusterDnsEgress(egress)] : [];
    const toApiServer = egress ? [apiServerEgress(egress)] : [];
    const toEtcd = (...ports: number[]): k8s.NetworkPolicyEgressRule => ({
      to: [pods(COMPONENT.etcd)],
      ports: ports.map((p) => port(p)),
    });
    const policy = (
      component: string,
      ingress: k8s.NetworkPolicyIngressRule[],
      egressRules: k8s.NetworkPolicyEgressRule[],
    ) => {
      const { name } = new ComponentPolicy(this, component, {
        stack,
        version: props.version,
        component,
        ingress,
        ...(egress ? { egress: [...common, ...egressRules] } : {}),
      });
      this.policies[name] = component;
    };

    const etcdClients = [
      pods(COMPONENT.controller),
      ...props.views.map((view) => pods(COMPONENT.server(view))),
      pods(COMPONENT.etcd),
      ...(props.rolesJob ? [pods(COMPONENT.etcdRoles)] : []),
    ];
    policy(
      COMPONENT.etcd,
      [
        { ports: [port('client')], from: etcdClients },
        ...((props.etcdClientCidrs ?? []).length > 0 ? [cidrsIngress(props.etcdClientCidrs!, ['client'])] : []),
        { ports: [port('peer')], from: [pods(COMPONENT.etcd)] },
        ...metricsRule('metrics'),
      ],
      [toEtcd(ETCD_PORTS.client, ETCD_PORTS.peer), ...toApiServer],
    );
    for (const view of props.views) {
      const from = dnsPeers(props.dnsFromByView?.[view] ?? props.dnsFrom, props.transferFrom?.[view] ?? []);
      policy(
        COMPONENT.server(view),
        [
          // No `from`: anyone.
          { ports: [port(DNS_PORT_NAMES.udp, 'UDP'), port(DNS_PORT_NAMES.tcp)], ...(from ? { from } : {}) },
          ...metricsRule('http'),
        ],
        [toEtcd(ETCD_PORTS.client), ...toApiServer, ...peerRules(props.serverPeers?.[view] ?? [])],
      );
    }
    policy(COMPONENT.controller, metricsRule('http'), [toEtcd(ETCD_PORTS.client), ...toApiServer]);
    // The Job serves nothing.
    if (props.rolesJob) policy(COMPONENT.etcdRoles, [], [toEtcd(ETCD_PORTS.client)]);
    if (props.signerView !== undefined)
      policy(
        COMPONENT.signer,
        [{ ports: [port(DNS_PORT_NAMES.udp, 'UDP'), port(DNS_PORT_NAMES.tcp)] }],
        // SOA queries and transfers, to the server's pods behind its Service (the pod's port).
        [
          {
            to: [pods(COMPONENT.server(props.signerView))],
            ports: [port(SERVER_DEFAULTS.dnsPort, 'UDP'), port(SERVER_DEFAULTS.dnsPort, 'TCP')],
          },
        ],
      );
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

function cidrsProblems(cidrs: unknown, path: string, required: boolean): string[] {
  if (cidrs === undefined && !required) return [];
  if (!Array.isArray(cidrs) || (required && cidrs.length === 0))
    return [`${path}: must be a list of CIDRs such as "10.0.0.10/32" (got ${show(cidrs)})`];
  return cidrs.flatMap((cidr, i) => settingProblems(network, cidr, `${path}[${i}]`));
}

function egressProblems(e: EgressProps | undefined, path: string): string[] {
  if (e === undefined) return [];
  const problems: string[] = [];
  if (e.apiServer === undefined)
    problems.push(
      `${path}.apiServer: required with egress, the API server's endpoint addresses (kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes)`,
    );
  else {
    problems.push(...cidrsProblems(e.apiServer.cidrs, `${path}.apiServer.cidrs`, true));
    const ports = e.apiServer.ports;
    if (ports !== undefined && (!Array.isArray(ports) || ports.length === 0))
      problems.push(`${path}.apiServer.ports: must be a list of ports (got ${show(ports)})`);
    else
      (ports ?? []).forEach((p, i) =>
        problems.push(...intProblem(p, `${path}.apiServer.ports[${i}]`, 1, 65535, 'a port')),
      );
  }
  const dns = e.clusterDns;
  problems.push(
    ...k8sName(dns?.namespace, `${path}.clusterDns.namespace`, 'label', 63),
    ...mapProblems(dns?.podLabels, `${path}.clusterDns.podLabels`, true),
    ...cidrsProblems(dns?.cidrs, `${path}.clusterDns.cidrs`, false),
    ...intProblem(dns?.port, `${path}.clusterDns.port`, 1, 65535, 'a port'),
  );
  return problems;
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
  problems.push(...egressProblems(p.egress, `${path}.egress`));
  return problems;
}
