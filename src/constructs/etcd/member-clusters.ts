// Member clusters of a hub (issue 34): the clusters a hub's DnsStack names, each writing its
// records into a prefix of its own (src/skydns/cluster-prefix.ts) as an etcd user of its own
// whose role reads and writes that prefix and nothing else. The hub's etcd-roles Job creates
// the users; a SpokeStack logs in as one.
import { clusterName, dnsName, list, network } from '../../config/field-rules.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import { canonicalName, isInZone } from '../../dns/dns-name.ts';
import { CLUSTERS_PREFIX, clusterPrefix, prefixesOverlap } from '../../skydns/cluster-prefix.ts';
import type { EtcdUser } from './etcd-roles.ts';
import { show } from '../base/kubernetes-rules.ts';

export interface ClusterProps {
  /**
   * The cluster's name: its records go under "/skydns-clusters/<name>", written as the etcd user
   * "cluster-<name>". A DNS label of at most 56 characters.
   */
  readonly name: string;
  /**
   * The names the cluster may publish: its controller publishes only names at or below these
   * (each inside one of the hub's zones).
   */
  readonly suffixes: string[];
  /**
   * The networks of the cluster's site (CIDRs): the hub's policy `prefer` answers a client in
   * them with this cluster's records first (`hub.zones`). A spoke ignores them.
   * @default - none
   */
  readonly siteCidrs?: string[];
  /**
   * The networks the cluster's controller connects to the hub's etcd from, as the hub's etcd
   * pods see them (the cluster's nodes or its egress NAT; not `siteCidrs`, the DNS clients'
   * networks): with `etcd.spokeService`, etcd's NetworkPolicy admits them to its client port.
   * Required then, unless `networkPolicy.enabled` is false. A spoke ignores them.
   * @default - none
   */
  readonly etcdClientCidrs?: string[];
}

/** The etcd user (and role) of a member cluster: readwrite on its own prefix, nothing else. */
export function clusterEtcdUser(name: string): EtcdUser {
  return {
    name: `cluster-${name}`,
    secretKey: `cluster-${name}`,
    access: 'readwrite',
    prefixes: [`${clusterPrefix(name)}/`],
  };
}

/** One cluster's own rules: its name and its suffixes (a spoke checks its entry with these). */
export function clusterProblems(cluster: ClusterProps | undefined, path: string): string[] {
  if (cluster === null || typeof cluster !== 'object')
    return [`${path}: must be { name, suffixes } (got ${show(cluster)})`];
  return [
    ...problemsOf(clusterName, cluster.name, `${path}.name`),
    ...problemsOf(list(dnsName, 'domain names'), cluster.suffixes, `${path}.suffixes`),
    ...(cluster.etcdClientCidrs === undefined
      ? []
      : problemsOf(list(network, 'CIDRs'), cluster.etcdClientCidrs, `${path}.etcdClientCidrs`)),
  ];
}

/** The hub's list: each cluster's rules, unique names, suffixes in the hub's zones, no prefix overlap. */
export function clustersProblems(
  clusters: ClusterProps[] | undefined,
  hub: {
    zones: string[];
    viewPrefixes: string[];
    users: string[];
    etcdRoles: boolean;
    etcdTls: boolean;
    /** Whether etcd's NetworkPolicy admits the clusters through `etcd.spokeService`. */
    spokePolicy: boolean;
  },
  path: string,
): string[] {
  if (clusters === undefined) return [];
  if (!Array.isArray(clusters)) return [`${path}: must be a list of { name, suffixes } (got ${show(clusters)})`];
  const problems: string[] = [];
  if (clusters.length === 0) problems.push(`${path}: must list at least one cluster (or leave ${path} out)`);
  const first = new Map<string, number>();
  clusters.forEach((cluster, i) => {
    const at = `${path}[${i}]`;
    const own = clusterProblems(cluster, at);
    problems.push(...own);
    if (own.length > 0) return;
    const seen = first.get(cluster.name);
    if (seen !== undefined) problems.push(`${at}.name: ${show(cluster.name)} is also ${path}[${seen}]'s`);
    else first.set(cluster.name, i);
    if (hub.spokePolicy && (cluster.etcdClientCidrs ?? []).length === 0)
      problems.push(
        `${at}.etcdClientCidrs: required with etcd.spokeService and networkPolicy, the networks the cluster's controller connects from (etcd's NetworkPolicy admits only these)`,
      );
    const user = clusterEtcdUser(cluster.name).name;
    if (hub.users.includes(user))
      problems.push(`${at}.name: its etcd user ${show(user)} is also one of the stack's own; rename the cluster`);
    cluster.suffixes.forEach((suffix, j) => {
      if (!hub.zones.some((zone) => isInZone(canonicalName(suffix), canonicalName(zone))))
        problems.push(
          `${at}.suffixes[${j}]: ${show(suffix)} is inside none of the stack's zones (${hub.zones.map(show).join(', ')})`,
        );
    });
  });
  if (!hub.etcdRoles)
    problems.push(
      `${path}: need etcdRoles (each cluster logs in as its own etcd user, its password under the key "cluster-<name>" of etcdRoles.passwordSecret)`,
    );
  if (!hub.etcdTls) problems.push(`${path}: need etcd.tls (spokes reach the hub's etcd over TLS)`);
  hub.viewPrefixes.forEach((prefix, i) => {
    if (prefixesOverlap(prefix, CLUSTERS_PREFIX))
      problems.push(
        `views[${i}].prefix: ${show(prefix)} overlaps the member clusters' ${CLUSTERS_PREFIX}: the view's etcd users would reach their records`,
      );
  });
  return problems;
}
