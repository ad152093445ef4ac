// A hub's one rule for a name that several member clusters publish (issue 34): which clusters'
// records answer it. Answers and zone transfers both read a name through it (merged-lookup.ts),
// so a secondary holds what a client outside every site is answered. Pure.
//
// A cluster *contributes* to a name when it has entries for it, and *counts* while its lease key
// is at the hub (or went less than the grace period ago). Only counting contributors answer; when
// none of a name's contributors counts, all of them answer (serve-stale, flagged `stale`) rather
// than NXDOMAIN.

/**
 * - all: every counting contributor, in the hub's cluster order;
 * - failover: the first counting contributor in `order` (clusters not listed come after them);
 * - prefer: the client's site cluster (its address in the cluster's site CIDRs), when it counts
 *   and contributes, first (`alone`: only it), then the others; from no site: as `all`;
 * - weighted: one counting contributor per answer, drawn in proportion to its weight (a cluster
 *   not listed weighs 0, drawn only when no listed one counts); without a draw (a zone
 *   transfer), as `all`.
 */
export type MergePolicy =
  | { kind: 'all' }
  | { kind: 'failover'; order: readonly string[] }
  | { kind: 'prefer'; alone: boolean }
  | { kind: 'weighted'; weights: Readonly<Record<string, number>> };

/** Who asks: the member cluster whose site holds the client, and the answer's draw in [0, 1). */
export interface Asker {
  site?: string | undefined;
  draw?: number | undefined;
}

export interface Contribution<T> {
  cluster: string;
  counts: boolean;
  entries: readonly T[];
}

export interface Merged<T> {
  entries: T[];
  /** The clusters whose entries answer, in answer order. */
  from: string[];
  /** No contributor counts: what is there answers anyway. */
  stale: boolean;
  /** Drawn (weighted, among several): the answer is this query's alone. */
  drawn: boolean;
}

/** `contributions` in the hub's cluster order; `asker`: none for a zone transfer. */
export function mergeName<T>(
  policy: MergePolicy,
  contributions: readonly Contribution<T>[],
  asker: Asker = {},
): Merged<T> {
  const present = contributions.filter((c) => c.entries.length > 0);
  const counting = present.filter((c) => c.counts);
  if (counting.length === 0) return result(present, present.length > 0);
  switch (policy.kind) {
    case 'all':
      return result(counting, false);
    case 'failover': {
      const rank = (c: Contribution<T>) => {
        const i = policy.order.indexOf(c.cluster);
        return i >= 0 ? i : policy.order.length + contributions.indexOf(c);
      };
      return result([counting.reduce((best, c) => (rank(c) < rank(best) ? c : best))], false);
    }
    case 'prefer': {
      const own = counting.find((c) => c.cluster === asker.site);
      if (!own) return result(counting, false);
      return result(policy.alone ? [own] : [own, ...counting.filter((c) => c !== own)], false);
    }
    case 'weighted':
      if (asker.draw === undefined || counting.length === 1) return result(counting, false);
      return { ...result([drawn(counting, policy.weights, asker.draw)], false), drawn: true };
  }
}

/**
 * Each cluster's chance of being drawn, by `weighted`: its share of the total weight of
 * `clusters` (the counting contributors); all weighing 0: the first, always.
 */
export function drawChances(clusters: readonly string[], weights: Readonly<Record<string, number>>): number[] {
  const weight = (c: string) => weights[c] ?? 0;
  const total = clusters.reduce((sum, c) => sum + weight(c), 0);
  return clusters.map((c, i) => (total > 0 ? weight(c) / total : i === 0 ? 1 : 0));
}

/** The contributor whose share of the chances holds `draw`. */
function drawn<T>(counting: readonly Contribution<T>[], weights: Readonly<Record<string, number>>, draw: number) {
  const chances = drawChances(
    counting.map((c) => c.cluster),
    weights,
  );
  let left = draw;
  for (const [i, c] of counting.entries()) {
    left -= chances[i]!;
    if (left < 0) return c;
  }
  // Rounding left a sliver past the last share: the last that can be drawn.
  return counting[chances.findLastIndex((p) => p > 0)]!;
}

function result<T>(chosen: readonly Contribution<T>[], stale: boolean): Merged<T> {
  return { entries: chosen.flatMap((c) => c.entries), from: chosen.map((c) => c.cluster), stale, drawn: false };
}
