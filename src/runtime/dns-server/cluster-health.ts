// Which member clusters count at a hub (issue 34): a cluster counts while its lease key
// (clusterLeaseKey) is in the hub's copy, and for `graceSeconds` after it went; one never seen
// since this server started does not count. Pure: the hub feeds it what its copy holds, with the
// time, and answers read the set it decided last (so one answer never sees two verdicts).

export interface ClusterState {
  cluster: string;
  counts: boolean;
  /** The lease key is in the copy now. */
  leased: boolean;
  /** Seconds since this server first saw the current lease (its key at this mod revision); undefined without one. */
  leaseAgeSeconds: number | undefined;
  /** Seconds since the lease key went; undefined while it is there or when never seen. */
  goneSeconds: number | undefined;
}

interface Tracked {
  /** The lease key's mod revision in the copy, 0 when absent. */
  revision: number;
  /** When this server first saw the lease at `revision` (ms). */
  seenAt: number;
  /** When the key went (ms); undefined while present or never seen. */
  goneAt: number | undefined;
  counts: boolean;
}

export class ClusterHealth {
  private readonly graceMs: number;
  private readonly clusters = new Map<string, Tracked>();

  constructor(clusters: readonly string[], graceSeconds: number) {
    this.graceMs = graceSeconds * 1000;
    for (const cluster of clusters)
      this.clusters.set(cluster, { revision: 0, seenAt: 0, goneAt: undefined, counts: false });
  }

  counts(cluster: string): boolean {
    return this.clusters.get(cluster)?.counts ?? false;
  }

  /**
   * Takes each cluster's lease key revision in the copy now (0: absent) at time `now` (ms);
   * returns the clusters whose verdict changed.
   */
  observe(leaseRevision: (cluster: string) => number, now: number): { cluster: string; counts: boolean }[] {
    const changed: { cluster: string; counts: boolean }[] = [];
    for (const [cluster, t] of this.clusters) {
      const revision = leaseRevision(cluster);
      if (revision !== 0 && revision !== t.revision) t.seenAt = now;
      if (revision === 0 && t.revision !== 0) t.goneAt = now;
      if (revision !== 0) t.goneAt = undefined;
      t.revision = revision;
      const counts = revision !== 0 || (t.goneAt !== undefined && now - t.goneAt < this.graceMs);
      if (counts !== t.counts) changed.push({ cluster, counts });
      t.counts = counts;
    }
    return changed;
  }

  /** Each cluster's state at time `now` (ms), in the hub's order. */
  states(now: number): ClusterState[] {
    return [...this.clusters].map(([cluster, t]) => ({
      cluster,
      counts: t.counts,
      leased: t.revision !== 0,
      leaseAgeSeconds: t.revision !== 0 ? (now - t.seenAt) / 1000 : undefined,
      goneSeconds: t.goneAt !== undefined ? (now - t.goneAt) / 1000 : undefined,
    }));
  }
}
