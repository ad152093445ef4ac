// A hub's merge (issue 34): the servers' `hub` config (src/config/hub-config.ts, whose rules
// check it at synth too) from the stack's `clusters` and `hub` props, and which views' servers
// merge: every internal view serving a zone that holds one of the clusters' suffixes. An
// external view never does: a spoke writes its records as an internal view gets them (every
// resource, private addresses), with no view's selection or rules.
import { hubSchema, type HubConfigInput, type ZonePolicyInput } from '../../config/hub-config.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import type { Exposure } from '../../config/view-config.ts';
import { canonicalName, isInZone } from '../../dns/dns-name.ts';
import { CLUSTERS_PREFIX, HUB_WRITE_PREFIX } from '../../skydns/cluster-prefix.ts';
import type { EtcdUser } from '../etcd/etcd-roles.ts';
import type { ClusterProps } from '../etcd/member-clusters.ts';
import { show } from '../base/kubernetes-rules.ts';

export interface HubMergeProps {
  /**
   * Seconds a member cluster still counts after its lease key went (its spoke's controller
   * stopped renewing it).
   * @default 10
   */
  readonly graceSeconds?: number;
  /**
   * A merge policy per zone (`all`, `failover` with `order`, `prefer` with the clusters'
   * `siteCidrs`, `weighted` with `weights`), each zone one of the merging views' (docs/multi-cluster.md).
   * @default - every zone merges by "all"
   */
  readonly zones?: ZonePolicyInput[];
}

/** A view as the merge sees it: its exposure and the names of its zones. */
export interface MergeView {
  exposure?: Exposure | undefined;
  zones: string[];
}

/** Whether a view's servers merge the clusters: internal, and serving a zone holding a cluster's suffix. */
export function mergesClusters(view: MergeView, clusters: readonly ClusterProps[]): boolean {
  return (
    (view.exposure ?? 'internal') === 'internal' &&
    clusters.some((c) => c.suffixes.some((s) => view.zones.some((z) => isInZone(canonicalName(s), canonicalName(z)))))
  );
}

/**
 * The `hub` of a server config: every cluster in the stack's order, and the policies of the
 * view's zones (of every zone without `viewZones`, as the props give them, for their checks).
 */
export function hubConfig(
  clusters: readonly ClusterProps[],
  hub: HubMergeProps | undefined,
  viewZones?: string[],
): HubConfigInput {
  const served = viewZones?.map(canonicalName);
  const zones = served ? hub?.zones?.filter((z) => served.includes(canonicalName(z.zone))) : hub?.zones;
  return {
    clusters: clusters.map((c) => ({
      name: c.name,
      // The claims the hub checks each cluster's names against (the spoke checks them too).
      suffixes: c.suffixes,
      ...(c.siteCidrs ? { siteCidrs: c.siteCidrs } : {}),
    })),
    ...(hub?.graceSeconds !== undefined ? { graceSeconds: hub.graceSeconds } : {}),
    ...(zones !== undefined && !(served && zones.length === 0) ? { zones } : {}),
  };
}

/** A merging view's server user: it also reads every member cluster's prefix, and writes the hub's serial key. */
export function hubReader(user: EtcdUser): EtcdUser {
  return { ...user, reads: [`${CLUSTERS_PREFIX}/`], writes: [HUB_WRITE_PREFIX] };
}

/**
 * The server config's rules on the hub the stack renders (hubSchema), each named by its prop:
 * `clusters[i].siteCidrs`, `hub.graceSeconds`, `hub.zones[i]...`; and each zone policy for a zone
 * some merging view serves. Assumes well-formed `clusters` (clustersProblems found none).
 */
export function hubMergeProblems(
  clusters: readonly ClusterProps[],
  hub: HubMergeProps | undefined,
  views: MergeView[],
): string[] {
  // The config's clusters are the stack's `clusters`; the rest of it is the stack's `hub`.
  const problems = problemsOf(hubSchema, hubConfig(clusters, hub)).map((p) =>
    p.startsWith('clusters') ? p : `hub.${p}`,
  );
  const merging = views.filter((view) => mergesClusters(view, clusters));
  if (merging.length === 0)
    problems.push(
      "clusters: no internal view serves a zone holding their suffixes: no server would answer the clusters' records",
    );
  if (problems.length > 0 || hub?.zones === undefined) return problems;
  const served = merging.flatMap((view) => view.zones.map(canonicalName));
  hub.zones.forEach((z, i) => {
    if (!served.includes(canonicalName(z.zone)))
      problems.push(
        `hub.zones[${i}].zone: ${show(z.zone)} is served by no view that merges the clusters (an internal view serving a zone that holds a cluster's suffix)`,
      );
  });
  return problems;
}
