// A hub's lookup of one name (issue 34): the name as its view's prefix holds it, plus each member
// cluster's entries for it as cluster-merge.ts picks them. Every answer and every zone transfer
// reads names through the resolver's lookup, so both get this one rule. Delegations, the apex's
// name servers and SOA serials stay the view's.
import { labelsOf } from '../../../dns/dns-name.ts';
import { CLUSTERS_PREFIX } from '../../../skydns/cluster-prefix.ts';
import { keyToName } from '../../../skydns/skydns-key.ts';
import type { IndexNode, RecordIndex, StoredEntry } from '../store/record-index.ts';
import { mergeName, type Asker, type Contribution, type MergePolicy } from './cluster-merge.ts';
import { chooseNamePolicy } from './name-merge-policy.ts';
import { lookupName, type IndexReader, type LookupMode, type LookupPurpose, type NameData } from './name-lookup.ts';
import type { Zone } from './zones.ts';

/** One member cluster's records in the hub's copy of /skydns-clusters (the cluster is the first label). */
export class ClusterReader implements IndexReader {
  readonly cluster: string;
  readonly rootDepth = 1;
  private readonly index: RecordIndex;

  constructor(index: RecordIndex, cluster: string) {
    this.index = index;
    this.cluster = cluster;
  }

  find(labels: readonly string[]): IndexNode | undefined {
    return this.index.find([...labels, this.cluster]);
  }

  subtree(node: IndexNode): StoredEntry[] {
    return this.index.subtree(node);
  }

  nameOf(key: string): string {
    return clusterKeyName(key) ?? '.';
  }
}

/** The name of a key below /skydns-clusters/<cluster>/, or undefined for any other key. */
export function clusterKeyName(key: string): string | undefined {
  if (!key.startsWith(`${CLUSTERS_PREFIX}/`)) return undefined;
  const cluster = key.slice(CLUSTERS_PREFIX.length + 1).split('/', 1)[0]!;
  return keyToName(key, `${CLUSTERS_PREFIX}/${cluster}`);
}

export interface HubData {
  /** The member clusters, in the hub's order. */
  readers: readonly ClusterReader[];
  counts(cluster: string): boolean;
  /** Whether a cluster's claims hold a name: its entries for any other name are left out. */
  claims(cluster: string, name: string): boolean;
  /** The zone's policy (a name's own, set in its entries, wins: name-merge-policy.ts). */
  policy(zone: string): MergePolicy;
  /** A name answered from clusters none of which counts (serve-stale). */
  stale(name: string): void;
}

export interface MergedQuestion {
  zone: Zone;
  name: string;
  mode: LookupMode;
  purpose: LookupPurpose;
  /** Who asks; none for a zone transfer. */
  asker: Asker | undefined;
  /** The view's records (`own` was read from them). */
  view: IndexReader;
}

/**
 * Whether a copy's wildcard `*.<parent>` stands in for a name that no copy holds: only when
 * `<parent>` is the name's closest encloser in the merged zone (RFC 4592 3.3.1), so when neither
 * the view nor a cluster claiming it holds the name's ancestor one label below it.
 */
function encloses(hub: HubData, view: IndexReader, wildcard: string, name: string): boolean {
  const labels = labelsOf(name);
  const below = labels.slice(labels.length - labelsOf(wildcard).length);
  const holds = (copy: IndexReader) => (copy.find(below)?.size ?? 0) > 0;
  const ancestor = `${below.join('.')}.`;
  return !holds(view) && !hub.readers.some((r) => hub.claims(r.cluster, ancestor) && holds(r));
}

const NOTHING: NameData = { exists: false, entries: [] };

/** One member cluster's lookup of a name, and what it brings to the merge. */
export interface ClusterShare {
  cluster: string;
  /** Its lookup of the name, claims aside. */
  found: NameData;
  /** Its claims hold the name (and the wildcard that answers it): else it is as if it had nothing there. */
  claimed: boolean;
  /**
   * Every entry it brings says its Service has no ready endpoint (hubready false): it does not
   * count for the name, as if its lease were gone (serve-stale when no contributor counts).
   */
  unready: boolean;
  /** What the merge (cluster-merge.ts) takes of it. */
  contribution: Contribution<StoredEntry>;
}

/**
 * Each member cluster's share of a name, the merge's input. A cluster's lookup of a name outside
 * its claims (or answered by its wildcard outside them) is as if it had nothing there. A name that
 * exists in any other copy exists; then no copy's wildcard stands in for it (RFC 4592: a wildcard
 * answers only names that do not exist), nor one whose parent is not the closest encloser of the
 * copies together.
 */
export function clusterShares(hub: HubData, own: NameData, q: MergedQuestion) {
  const theirs = hub.readers.map((reader) => {
    const found = lookupName(reader, q.zone, q.name, q.mode, q.purpose);
    const claimed =
      !found.exists ||
      (hub.claims(reader.cluster, q.name) && (!found.wildcard || hub.claims(reader.cluster, found.wildcard)));
    return { cluster: reader.cluster, found, claimed, data: claimed ? found : NOTHING };
  });
  const exact = (own.exists && !own.wildcard) || theirs.some((t) => t.data.exists && !t.data.wildcard);
  const usable = (d: NameData) => d.exists && !(d.wildcard && (exact || !encloses(hub, q.view, d.wildcard, q.name)));
  const shares: (ClusterShare & { data: NameData })[] = theirs.map((t) => {
    const entries = usable(t.data) ? t.data.entries : [];
    // Nearly always every entry is ready: then no copy on this per-answer path.
    const ready = entries.some((s) => s.entry.hubready === false)
      ? entries.filter((s) => s.entry.hubready !== false)
      : entries;
    const unready = entries.length > 0 && ready.length === 0;
    return {
      ...t,
      unready,
      contribution: {
        cluster: t.cluster,
        counts: hub.counts(t.cluster) && !unready,
        entries: unready ? entries : ready,
      },
    };
  });
  return { shares, exact, usable };
}

/** The view's lookup of the name (`own`) merged with the clusters' (clusterShares). */
export function mergedLookup(hub: HubData, own: NameData, q: MergedQuestion): NameData {
  const { shares: theirs, exact, usable } = clusterShares(hub, own, q);
  const contributions = theirs.map((t) => t.contribution);
  const merged = mergeName(chooseNamePolicy(hub.policy(q.zone.name), contributions).policy, contributions, q.asker);
  if (merged.stale) hub.stale(q.name);
  const exists = [own, ...theirs.map((t) => t.data)].some((d) => (d.exists && !d.wildcard) || usable(d));
  const wildcard = exact
    ? undefined
    : ((usable(own) ? own.wildcard : undefined) ??
      theirs.find((t) => merged.from.includes(t.cluster) && usable(t.data))?.data.wildcard);
  const entries = [...merged.entries, ...(usable(own) ? own.entries : [])];
  return { exists, entries, ...(wildcard ? { wildcard } : {}), ...(merged.drawn ? { drawn: true as const } : {}) };
}
