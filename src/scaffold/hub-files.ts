// What `etcdns init --hub NAME --spoke CLUSTER ...` adds to the scaffold (etcdns docs,
// docs/multi-cluster.md): the member clusters in one file that the hub's environment and each
// spoke's read, so the etcd user the hub creates and the one the spoke logs in as are one object.
// Every address, suffix and network in them is an example, marked so, for the team to edit.
import { identifier, spokeEnvironment } from './environment-name.ts';

export interface HubOptions {
  /** The hub's environment (dist/<name>/): etcd and the DNS servers for every member cluster. */
  name: string;
  /** The member clusters, each a spoke environment dist/spoke-<cluster>/ with only a controller. */
  spokes: readonly string[];
}

/** A cluster name as a property of the `clusters` object: bare when it can be. */
const key = (cluster: string) => (/^[a-z_$][\w$]*$/i.test(cluster) ? cluster : `'${cluster}'`);
const member = (cluster: string) => (/^[a-z_$][\w$]*$/i.test(cluster) ? `.${cluster}` : `['${cluster}']`);

function clusterEntry(cluster: string, i: number): string {
  const site = `10.${i + 1}`;
  return `  ${key(cluster)}: {
    name: '${cluster}',
    // EXAMPLE: the names ${cluster} may publish (each in a zone of the hub). A name several
    // clusters serve goes in each one's suffixes; the hub merges it.
    suffixes: ['${cluster}.example.org'],
    // EXAMPLE: ${cluster}'s client networks; policy "prefer" answers them with its records first.
    siteCidrs: ['${site}.0.0/16'],
    // EXAMPLE: where ${cluster}'s controller reaches the hub's etcd from (its nodes or egress NAT).
    etcdClientCidrs: ['${site}.0.0/24'],
  },
`;
}

export function clustersFile(hub: HubOptions): string {
  return `// The member clusters of the hub (${hub.name}.ts), shared by its file and each spoke's: the hub
// creates each one's etcd user from the same object the spoke logs in as. Every value marked
// EXAMPLE is a placeholder: edit it before the first deployment.
import type { ClusterProps } from 'etcdns';

export const clusters = {
${hub.spokes.map(clusterEntry).join('')}} satisfies Record<string, ClusterProps>;

/** EXAMPLE: where the spokes reach the hub's etcd: its load-balancer address and DNS name. */
export const hubEtcd = { address: '10.0.53.79', name: 'etcd.hub.example.org', port: 2379 };
`;
}

export function hubEnvironmentFile(hub: HubOptions): string {
  return `// ${hub.name}: etcd and the DNS servers for every member cluster, beside its own controller. Each
// spoke writes its cluster's names into this etcd over TLS as the etcd user cluster-<name>; the
// hub merges them: a client in a cluster's siteCidrs gets that cluster's records first (policy
// "prefer"). Not rendered, so provided beside this folder: the cert-manager issuer etcdns-hub-ca
// (it also signs each spoke's client certificate) and the password Secret etcdns-etcd-users.
import type { DnsStackProps } from 'etcdns';
import { clusters, hubEtcd } from './clusters.ts';
import { shared } from './shared.ts';

export const ${identifier(hub.name)}: DnsStackProps = {
  ...shared,
  ownership: { ownerId: 'etcdns-${hub.name}' },
  etcd: {
    replicas: 3,
    tls: {
      serverSecret: 'etcdns-etcd-server-tls',
      clientSecret: 'etcdns-etcd-client-tls',
      certManager: { issuerName: 'etcdns-hub-ca' },
    },
    spokeService: {
      // EXAMPLE: a MetalLB address; "kube-vip", "cilium" or "spec" for others.
      loadBalancer: { addresses: [hubEtcd.address], implementation: 'metallb' },
      names: [hubEtcd.name],
    },
  },
  // Passwords under "root", "controller", "server-internal" and "cluster-<name>" for each spoke.
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: Object.values(clusters),
  hub: { zones: [{ zone: 'example.org', policy: 'prefer' }] },
};
`;
}

export function spokeEnvironmentFile(hub: HubOptions, cluster: string): string {
  const i = hub.spokes.indexOf(cluster);
  return `// ${spokeEnvironment(cluster)}: member cluster ${cluster} of the hub (${hub.name}.ts): only its controller,
// writing ${cluster}'s names into the hub's etcd over TLS as the etcd user cluster-${cluster}.
// Deployed to ${cluster} itself, with the two Secrets named below beside it.
import type { SpokeStackProps } from 'etcdns';
import { clusters, hubEtcd } from './clusters.ts';
import { shared } from './shared.ts';

export const ${identifier(spokeEnvironment(cluster))}: SpokeStackProps = {
  cluster: clusters${member(cluster)},
  hub: {
    endpoints: [\`https://\${hubEtcd.name}:\${hubEtcd.port}\`],
    // ca.crt (the hub's CA), tls.crt and tls.key (this cluster's client certificate).
    tlsSecret: 'hub-etcd-tls',
    // Key "password": the hub's cluster-${cluster} password.
    passwordSecret: 'hub-etcd',
    cidrs: [\`\${hubEtcd.address}/32\`],
  },
  // The controller may reach only the cluster DNS, ${cluster}'s API server and the hub's etcd.
  // EXAMPLE: ${cluster}'s API server address.
  networkPolicy: { egress: { apiServer: { cidrs: ['10.${i + 1}.0.10/32'], ports: [6443] } } },
  sources: shared.sources,
};
`;
}
