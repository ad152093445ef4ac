// Hub and spokes (issue 34): every member cluster writes its records under a prefix of its own,
// with the SkyDNS layout below it: www.example.org. of cluster "dc1" is
// /skydns-clusters/dc1/org/example/www/<id>. So a CoreDNS etcd plugin (or an etcdns server)
// pointed at one cluster's prefix answers that cluster, and an etcd role on "<prefix>/" grants
// exactly one cluster's keys: no other cluster's, no view's.
import { normalizePrefix } from './skydns-key.ts';

/** Where every member cluster's prefix lives; beside the views' prefixes, never below one. */
export const CLUSTERS_PREFIX = '/skydns-clusters';

/**
 * A cluster name: a DNS label of at most 56 characters (the etcd user "cluster-<name>" has at
 * most 64); no "/" or ".", so it is exactly one key segment and one object-name part.
 */
export const CLUSTER_NAME = /^(?=.{1,56}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

/** The prefix cluster `name` writes under: "/skydns-clusters/<name>". */
export function clusterPrefix(name: string): string {
  if (!CLUSTER_NAME.test(name)) throw new Error(`${JSON.stringify(name)}: not a cluster name`);
  return `${CLUSTERS_PREFIX}/${name}`;
}

/**
 * The key a member cluster's controller keeps on an etcd lease while it runs (the hub counts the
 * cluster while it exists): "/skydns-clusters/<name>/etcdns.lease". Inside the cluster's prefix,
 * since its etcd role reaches nothing else; and never a record: CoreDNS's etcd plugin and etcdns
 * make a name's key from its labels split at the dots, so no name's key, nor any key below one,
 * has a segment holding a "." (only a zone "." served from the cluster's prefix reads it).
 */
export function clusterLeaseKey(name: string): string {
  return `${clusterPrefix(name)}/${LEASE_SEGMENT}`;
}

/** The last segment of clusterLeaseKey. */
export const LEASE_SEGMENT = 'etcdns.lease';

/** Where a hub's servers may write (and nothing else does): beside the clusters' prefix, not below it. */
export const HUB_WRITE_PREFIX = '/etcdns-hub/';

/**
 * The key a hub's server writes when which clusters count changes: etcd's revision moves with it,
 * and the merged zones' serials go to that revision, so a server started later (whose serials
 * start from etcd's revision) never serves a serial below one served before.
 */
export const HUB_SERIAL_KEY = `${HUB_WRITE_PREFIX}serial`;

/**
 * Whether one prefix holds keys of the other (equal, or one is a whole-segment ancestor of the
 * other): a role granted on either would reach the other's records.
 */
export function prefixesOverlap(a: string, b: string): boolean {
  const [x, y] = [normalizePrefix(a), normalizePrefix(b)];
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}
