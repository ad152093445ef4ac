// A hub's refused names (issue 34): the names a member cluster has entries for outside its claims
// (src/skydns/cluster-claims.ts), which the merge leaves out of answers and transfers
// (answer/merged-lookup.ts). Found by walking the cluster's records in the hub's copy, skipping
// every subtree a claim holds, so a cluster publishing only what it claims costs a few nodes. Pure.
import { labelsOf } from '../../dns/dns-name.ts';
import { LEASE_SEGMENT } from '../../skydns/cluster-prefix.ts';
import { childrenOf, type IndexNode } from './store/record-index.ts';

export interface RefusedNames {
  /** Distinct owner names, in the order found, at most `max`. */
  names: string[];
  /** Every distinct name refused (more than `names` holds when the list is cut). */
  count: number;
}

/**
 * The names with entries below `clusterNode` (the cluster's node in the copy of /skydns-clusters)
 * that none of `suffixes` holds. The lease key is not a record.
 */
export function refusedNames(
  clusterNode: IndexNode | undefined,
  suffixes: readonly string[],
  max: number,
): RefusedNames {
  const claimed = suffixes.map((s) => labelsOf(s).reverse());
  const seen = new Set<string>();
  const names: string[] = [];
  const walk = (node: IndexNode, path: string[]) => {
    if (claimed.some((c) => c.length <= path.length && c.every((label, i) => label === path[i]))) return;
    if (node.entry) {
      const name = ownerName(path, !node.children);
      if (!seen.has(name)) {
        seen.add(name);
        if (names.length < max) names.push(name);
      }
    }
    for (const child of childrenOf(node)) walk(child, [...path, child.label]);
  };
  if (clusterNode)
    for (const child of childrenOf(clusterNode)) if (child.label !== LEASE_SEGMENT) walk(child, [child.label]);
  return { names, count: seen.size };
}

/** A child entry's 8-hex label (src/skydns/child-label.ts, and external-dns's random ids). */
const CHILD_ID = /^[0-9a-f]{8}$/;

/**
 * The name whose record a stored key (its labels below the cluster, in key order) is: a zone's
 * `dns/apex/<id>` and a cut's `dns/ns/<id>` are the name above `dns`; a leaf with a child id is its
 * parent's record; any other key is its own name's.
 */
function ownerName(path: readonly string[], leaf: boolean): string {
  const dns = path.findIndex((label, i) => label === 'dns' && (path[i + 1] === 'apex' || path[i + 1] === 'ns'));
  const labels =
    dns >= 0 ? path.slice(0, dns) : leaf && path.length > 1 && CHILD_ID.test(path.at(-1)!) ? path.slice(0, -1) : path;
  return labels.length === 0 ? '.' : `${[...labels].reverse().join('.')}.`;
}
