// A hub's DNS server (issue 34): the member clusters whose prefixes it reads beside its view's,
// how long a cluster whose lease is gone still counts, and how each zone merges a name that
// several clusters publish (src/runtime/dns-server/answer/cluster-merge.ts).
import * as v from 'valibot';
import { canonicalName } from '../dns/dns-name.ts';
import { clusterName, dnsName, integer, list, network, oneOf, pathTo, zoneName } from './field-rules.ts';

export const MERGE_POLICIES = ['all', 'failover', 'prefer', 'weighted'] as const;

/** How long a cluster still counts after its lease key went (seconds), unless the config says. */
export const HUB_DEFAULTS = { graceSeconds: 10 } as const;

const hubClusterSchema = v.object({
  /** The member cluster: its records are under /skydns-clusters/<name>. */
  name: clusterName,
  /** The networks of the cluster's site: `prefer` answers a client in them with this cluster's records. */
  siteCidrs: v.optional(list(network, 'networks')),
  /**
   * The cluster's claims: it may publish only names at or below these (src/skydns/cluster-claims.ts);
   * its entries for any other name never answer nor transfer, and are listed as refused. A suffix
   * outside the server's zones is no error (every view's servers get the stack's whole list).
   * Absent: unchecked, every name of the server's zones.
   */
  suffixes: v.optional(list(dnsName, 'domain names')),
});

const zonePolicySchema = v.object({
  /** One of the server's zones. */
  zone: zoneName,
  /** "all" (default): every counting cluster; "failover": the first counting one of `order`; "prefer": the client's site first; "weighted": one drawn by `weights`. */
  policy: oneOf(MERGE_POLICIES),
  /** failover: the clusters in order of preference (clusters not listed come after, in `clusters` order). */
  order: v.optional(list(clusterName, 'cluster names')),
  /** prefer: "first" (default): the client's site's records first, then the others'; "alone": only its site's while it counts. */
  prefer: v.optional(oneOf(['first', 'alone'])),
  /** weighted: each cluster's weight (0-1000); one counting cluster answers each query, drawn in proportion. */
  weights: v.optional(v.record(clusterName, integer(0, 1000))),
});

export const hubSchema = v.pipe(
  v.object({
    /** The member clusters, in the order `all` answers them. */
    clusters: list(hubClusterSchema, 'clusters'),
    /** Seconds a cluster still counts after its lease key is gone; default HUB_DEFAULTS.graceSeconds (10). */
    graceSeconds: v.optional(integer(0, 3600)),
    /** A merge policy per zone; a zone not listed merges by "all". */
    zones: v.optional(list(zonePolicySchema, 'zone policies')),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const problem of hubProblems(dataset.value))
      addIssue({ message: problem.message, path: pathTo(dataset.value, problem.at) });
  }),
);

export type HubConfig = v.InferOutput<typeof hubSchema>;
export type HubConfigInput = v.InferInput<typeof hubSchema>;
/** One zone's merge policy as a config file (or a DnsStack's `hub.zones`) gives it. */
export type ZonePolicyInput = v.InferInput<typeof zonePolicySchema>;

/** What the schema's shape cannot say: names used twice, unknown clusters, a policy missing its list. */
export function hubProblems(hub: HubConfig): { at: (string | number)[]; message: string }[] {
  const problems: { at: (string | number)[]; message: string }[] = [];
  const names = hub.clusters.map((c) => c.name);
  names.forEach((name, i) => {
    const first = names.indexOf(name);
    if (first !== i)
      problems.push({ at: ['clusters', i, 'name'], message: `${JSON.stringify(name)} is also clusters[${first}]'s` });
  });
  const zones = (hub.zones ?? []).map((z) => canonicalName(z.zone));
  (hub.zones ?? []).forEach((z, i) => {
    const first = zones.indexOf(zones[i]!);
    if (first !== i)
      problems.push({ at: ['zones', i, 'zone'], message: `${JSON.stringify(z.zone)} is also zones[${first}]'s` });
    if (z.policy === 'failover' && !z.order)
      problems.push({ at: ['zones', i, 'order'], message: 'is required with policy "failover"' });
    if (z.policy !== 'failover' && z.order)
      problems.push({ at: ['zones', i, 'order'], message: 'is only for policy "failover"' });
    if (z.policy !== 'prefer' && z.prefer)
      problems.push({ at: ['zones', i, 'prefer'], message: 'is only for policy "prefer"' });
    if (z.policy === 'weighted' && !Object.values(z.weights ?? {}).some((w) => w > 0))
      problems.push({
        at: ['zones', i, 'weights'],
        message: 'must give at least one cluster a weight above 0 with policy "weighted"',
      });
    if (z.policy !== 'weighted' && z.weights)
      problems.push({ at: ['zones', i, 'weights'], message: 'is only for policy "weighted"' });
    for (const name of Object.keys(z.weights ?? {}))
      if (!names.includes(name))
        problems.push({ at: ['zones', i, 'weights', name], message: `${JSON.stringify(name)} is not one of clusters` });
    if (z.policy === 'prefer' && !hub.clusters.some((c) => c.siteCidrs))
      problems.push({ at: ['zones', i, 'policy'], message: '"prefer" needs siteCidrs on at least one of clusters' });
    (z.order ?? []).forEach((name, j) => {
      if (!names.includes(name))
        problems.push({ at: ['zones', i, 'order', j], message: `${JSON.stringify(name)} is not one of clusters` });
    });
  });
  return problems;
}
