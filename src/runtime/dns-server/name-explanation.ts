// Explain a name at a hub (issue 34): per member cluster, whether it has entries at the name,
// whether it counts (its lease), whether its claims refuse them, and whether the zone's merge
// policy (or the name's own, set in its entries) lets it answer. The verdict is the merge's own
// (mergeName over clusterShares), so the explanation cannot disagree with the answers. Its shape,
// and the words the status page and `etcdns status --explain` say it in:
// ../status-page/name-explanation-text.ts. Pure.
import { drawChances, mergeName, type MergePolicy } from './answer/cluster-merge.ts';
import type { ClusterShare } from './answer/merged-lookup.ts';
import type { ChosenPolicy } from './answer/name-merge-policy.ts';
import type { ClusterState } from './cluster-health.ts';
import { NAME_POLICY_KEYS } from '../../skydns/name-policy.ts';
import { leaseText, type ClusterExplanation, type NameExplanation } from '../status-page/name-explanation-text.ts';

export interface ClusterAtName {
  state: ClusterState;
  share: ClusterShare;
  /** Why its claims refuse the name (claimRefusal), when they do. */
  refusal: string | undefined;
}

export function explainName(input: {
  name: string;
  zone: string;
  chosen: ChosenPolicy;
  site: string | undefined;
  clusters: readonly ClusterAtName[];
}): NameExplanation {
  const { site } = input;
  const { policy, setBy, overruled } = input.chosen;
  const merged = mergeName(
    policy,
    input.clusters.map((c) => c.share.contribution),
    { site },
  );
  // Weighted: the merge without a draw lists every counting contributor; each answer is one of
  // them, by its chance of being drawn.
  const chances = policy.kind === 'weighted' ? drawChances(merged.from, policy.weights) : undefined;
  const chance = (cluster: string) => chances?.[merged.from.indexOf(cluster)] ?? 0;
  const answering = chances ? merged.from.filter((c) => chance(c) > 0) : merged.from;
  const clusters = input.clusters.map(({ state, share, refusal }): ClusterExplanation => {
    const answers = answering.includes(share.cluster);
    return {
      cluster: share.cluster,
      entries: share.found.entries.length,
      counts: state.counts,
      leaseAgeSeconds: state.leaseAgeSeconds === undefined ? null : Math.round(state.leaseAgeSeconds),
      goneSeconds: state.goneSeconds === undefined ? null : Math.round(state.goneSeconds),
      refused: share.found.exists && !share.claimed ? (refusal ?? null) : null,
      answers,
      why: why(share, state, refusal, answers),
    };
  });
  return {
    name: input.name,
    zone: input.zone,
    policy: [
      policyText(policy),
      setBy ? `, set by ${setBy}'s entries` : '',
      overruled.length > 0 ? `; ${overruled.join(', ')} ask another, not obeyed` : '',
    ].join(''),
    site: site ?? null,
    stale: merged.stale,
    answering,
    clusters,
  };

  function why(share: ClusterShare, state: ClusterState, refusal: string | undefined, answers: boolean): string {
    if (!share.found.exists || share.found.entries.length === 0) return 'no entries at the name';
    if (!share.claimed) return `refused by its claims: ${refusal ?? 'outside them'}`;
    if (share.contribution.entries.length === 0)
      return `its wildcard ${share.found.wildcard ?? ''} does not stand in: the name exists elsewhere, or it is not the closest encloser`;
    const lease = share.unready && state.counts ? UNREADY : leaseText(state);
    if (merged.stale) return `answers stale: no contributing cluster counts (${lease})`;
    if (!state.counts || share.unready) return `does not count: ${lease}`;
    const first = answering[0];
    switch (policy.kind) {
      case 'all':
        return 'answers (policy all)';
      case 'failover':
        return answers
          ? `answers: the first counting contributor in the failover order (${policy.order.join(', ')})`
          : `failover: ${first} answers ahead of it (order ${policy.order.join(', ')})`;
      case 'prefer':
        if (site === undefined || !merged.from.includes(site))
          return 'answers (prefer: the client is at no contributing site)';
        if (share.cluster === site) return `answers first: the client's site${policy.alone ? ', alone' : ''}`;
        return answers
          ? `answers after the client's site ${site}`
          : `prefer alone: the client's site ${site} answers alone`;
      case 'weighted':
        return answers
          ? `answers ${Math.round(chance(share.cluster) * 100)}% of the answers (weighted, weight ${policy.weights[share.cluster] ?? 0})`
          : 'not drawn: weighs 0, drawn only when no counting contributor weighs more';
    }
  }
}

const UNREADY = `no ready endpoint behind its Service (${NAME_POLICY_KEYS.health})`;

function policyText(policy: MergePolicy): string {
  switch (policy.kind) {
    case 'all':
      return 'all';
    case 'failover':
      return `failover (${policy.order.join(', ')})`;
    case 'prefer':
      return policy.alone ? 'prefer (alone)' : 'prefer';
    case 'weighted':
      return `weighted (${Object.entries(policy.weights)
        .map(([c, w]) => `${c}=${w}`)
        .join(', ')})`;
  }
}
