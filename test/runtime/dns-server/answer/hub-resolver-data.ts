// A hub's resolver data for the merge's table tests, from key -> value tables: the view's copy,
// the clusters' copy (real record indexes), every cluster counting and policy `all` unless said.
import { ClusterReader, type HubData } from '../../../../src/runtime/dns-server/answer/merged-lookup.ts';
import type { ResolverData } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';

const kvs = (keys: Readonly<Record<string, object>>) =>
  Object.entries(keys).map(([key, value], i) => ({ key, value: JSON.stringify(value), modRevision: i + 2 }));

export function hubResolverData(o: {
  /** Keys under /skydns-clusters/<cluster>/. */
  clusterKeys: Readonly<Record<string, object>>;
  clusters: readonly string[];
  /** Keys under /skydns (the hub's own view). */
  viewKeys?: Readonly<Record<string, object>>;
  claims?: HubData['claims'];
}): ResolverData {
  const zones = new ZoneTable([{ name: 'example.org' }]);
  const view = RecordIndex.fromSnapshot('/skydns', zones.names, kvs(o.viewKeys ?? {}), 50);
  const clusters = RecordIndex.fromSnapshot('/skydns-clusters', [], kvs(o.clusterKeys), 100);
  const hub: HubData = {
    readers: o.clusters.map((c) => new ClusterReader(clusters, c)),
    counts: () => true,
    claims: o.claims ?? (() => true),
    policy: () => ({ kind: 'all' }),
    stale: () => undefined,
  };
  return { index: view, zones, lookup: 'own', hub };
}
