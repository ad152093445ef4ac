// One member cluster's state at a name, as a hub's name explanation (name-explanation.ts) takes
// it, from a short description: its entries, its lease, its claims' refusal. Shared by the
// explanation's tests and those of the words `etcdns status --explain` prints it in.
import type { ClusterAtName } from '../../../src/runtime/dns-server/name-explanation.ts';

export interface At {
  /** Entries at the name. */
  entries: number;
  /** Lease: held (seconds), gone (seconds ago, still counting?), or never seen. */
  lease: { held: number } | { gone: number; counts: boolean } | 'never';
  /** Why its claims refuse the name. */
  refusal?: string;
  /** Its entries say its Service has no ready endpoint. */
  unready?: boolean;
}

export function at(cluster: string, a: At): ClusterAtName {
  const entries = Array.from({ length: a.entries }, (_, i) => ({
    key: `/skydns-clusters/${cluster}/org/example/web/x${i}`,
    entry: { host: `10.0.0.${i + 1}` },
    modRevision: 1,
    depth: 5,
  }));
  const claimed = a.refusal === undefined;
  const leased = typeof a.lease === 'object' && 'held' in a.lease;
  const counts = leased || (typeof a.lease === 'object' && 'gone' in a.lease && a.lease.counts);
  return {
    state: {
      cluster,
      counts,
      leased,
      leaseAgeSeconds: typeof a.lease === 'object' && 'held' in a.lease ? a.lease.held : undefined,
      goneSeconds: typeof a.lease === 'object' && 'gone' in a.lease ? a.lease.gone : undefined,
    },
    share: {
      cluster,
      found: { exists: a.entries > 0, entries },
      claimed,
      unready: a.unready ?? false,
      contribution: { cluster, counts: counts && !a.unready, entries: claimed ? entries : [] },
    },
    refusal: a.refusal,
  };
}
