// A hub's DNS server reads its member clusters (issue 34): one more record store, over
// /skydns-clusters (each cluster's records below its name), whose lease keys tell which clusters
// count (cluster-health.ts, checked every second and on each change); each zone's merge policy,
// the clusters' sites, and their claims (the names outside them refused: refused-names.ts). What
// the resolver reads of it is HubData (answer/merged-lookup.ts).
import type { Etcd3 } from 'etcd3';
import { HUB_DEFAULTS, type HubConfig } from '../../config/hub-config.ts';
import { cidrMatcher } from '../../dns/cidr.ts';
import { canonicalName } from '../../dns/dns-name.ts';
import { claimRefusal, type Claim } from '../../skydns/cluster-claims.ts';
import { CLUSTERS_PREFIX, HUB_SERIAL_KEY, LEASE_SEGMENT } from '../../skydns/cluster-prefix.ts';
import type { Readiness } from '../shared/http-server.ts';
import type { Logger } from '../shared/log.ts';
import { Registry } from '../shared/metrics.ts';
import type { MergePolicy } from './answer/cluster-merge.ts';
import { ClusterReader, clusterShares, type HubData } from './answer/merged-lookup.ts';
import { chooseNamePolicy } from './answer/name-merge-policy.ts';
import { lookupName, type IndexReader, type LookupMode } from './answer/name-lookup.ts';
import type { Zone } from './answer/zones.ts';
import { ClusterHealth, type ClusterState } from './cluster-health.ts';
import { explainName } from './name-explanation.ts';
import type { NameExplanation } from '../status-page/name-explanation-text.ts';
import { refusedNames } from './refused-names.ts';
import type { RecordIndex } from './store/record-index.ts';
import type { RecordLimits } from './store/record-limits.ts';
import { RecordStore } from './store/record-store.ts';
import { StoreMetrics } from './store/store-metrics.ts';

const TICK_MS = 1000;
/** Stale names kept for the status page and the log (the log line is once per name). */
const STALE_NAMES_MAX = 1000;
/** Refused names listed on the status page and logged, per cluster (all are counted). */
const REFUSED_NAMES_MAX = 1000;

export interface ClusterHubOptions {
  config: HubConfig;
  client: Etcd3;
  logger: Logger;
  limits: RecordLimits;
  /** The server's registry: the hub's gauges. */
  registry: Registry;
  /**
   * The merged answers changed: `paths` (key paths below a cluster's prefix) changed, or 'all'
   * (a copy replaced, or which clusters count). The server drops cached answers, moves the
   * serials and tells its secondaries.
   */
  onChange: (paths: readonly (readonly string[])[] | 'all') => void;
  /**
   * Which clusters count changed, and the hub's serial key was written at `revision` for it: the
   * merged zones' serials go to at least that revision (HUB_SERIAL_KEY).
   */
  onSerialMark: (revision: number) => void;
}

/** A name a member cluster has entries for outside its claims: they never answer nor transfer. */
export interface RefusedName {
  cluster: string;
  name: string;
  reason: string;
}

/** What /status.json says of a hub: each member cluster, the names answered stale and those refused. */
export interface HubSummary {
  clusters: (Omit<ClusterState, 'leaseAgeSeconds' | 'goneSeconds'> & {
    leaseAgeSeconds: number | null;
    goneSeconds: number | null;
    /** Names refused (outside its claims), all of them counted. */
    refusedNames: number;
  })[];
  graceSeconds: number;
  copy: string;
  staleNames: string[];
  /** At most REFUSED_NAMES_MAX per cluster. */
  refused: RefusedName[];
}

export class ClusterHub {
  readonly store: RecordStore;
  private readonly options: ClusterHubOptions;
  private readonly health: ClusterHealth;
  private readonly policies = new Map<string, MergePolicy>();
  private readonly sites: { cluster: string; holds: (address: string) => boolean }[];
  private readonly staleNames = new Set<string>();
  /** Each cluster's claims, when they are checked (the hub sees no namespaces: suffixes only). */
  private readonly claims = new Map<string, Claim[]>();
  /** Each cluster's refused names (listed ones) and how many there are; found again after changes. */
  private refused = new Map<string, { names: RefusedName[]; count: number }>();
  private refusedStale = true;
  private readonly counting;
  private readonly staleGauge;
  private readonly refusedGauge;
  private timer: NodeJS.Timeout | undefined;
  private current: { index: RecordIndex; data: HubData } | undefined;
  /** The serial key could not be written last time (said once until it can again). */
  private markFailed = false;

  constructor(options: ClusterHubOptions) {
    this.options = options;
    const { config } = options;
    const names = config.clusters.map((c) => c.name);
    this.health = new ClusterHealth(names, config.graceSeconds ?? HUB_DEFAULTS.graceSeconds);
    for (const z of config.zones ?? []) this.policies.set(canonicalName(z.zone), policyOf(z));
    for (const c of config.clusters)
      if (c.suffixes)
        this.claims.set(
          c.name,
          c.suffixes.map((suffix) => ({ suffix: canonicalName(suffix) })),
        );
    this.sites = config.clusters.flatMap((c) =>
      c.siteCidrs ? [{ cluster: c.name, holds: cidrMatcher(c.siteCidrs) }] : [],
    );
    this.counting = options.registry.gauge(
      'etcdns_dns_hub_cluster_counts',
      '1 while a member cluster counts (its lease key at the hub, or gone less than the grace period ago), else 0.',
    );
    this.staleGauge = options.registry.gauge(
      'etcdns_dns_hub_stale_names',
      'Names answered from clusters none of which counts (serve-stale), since which clusters count last changed.',
    );
    this.refusedGauge = options.registry.gauge(
      'etcdns_dns_hub_refused_names',
      'Names a member cluster has entries for outside its claims (hub.clusters[].suffixes): never answered nor transferred.',
    );
    for (const name of names) this.counting.set(0, { cluster: name });
    for (const name of this.claims.keys()) this.refusedGauge.set(0, { cluster: name });
    this.staleGauge.set(0);
    this.store = new RecordStore({
      client: options.client,
      prefix: CLUSTERS_PREFIX,
      zones: [],
      logger: options.logger.with({ copy: CLUSTERS_PREFIX }),
      // The clusters' copy's own gauges would clash with the view's: its state is on the status page.
      metrics: new StoreMetrics(new Registry()),
      limits: options.limits,
      onChange: (changed) => {
        this.refusedStale = true;
        this.check();
        options.onChange(changed === 'all' ? 'all' : changed.filter((p) => p[1] !== LEASE_SEGMENT));
      },
    });
  }

  start(): void {
    this.store.start();
    // Refused names are found again at most once a tick, however many changes came.
    this.timer = setInterval(() => {
      this.findRefused();
      this.check();
    }, TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.store.stop();
  }

  /** What the resolver reads: one object per copy of the clusters' records. */
  data(): HubData {
    const index = this.store.index;
    if (this.current?.index === index) return this.current.data;
    const data: HubData = {
      readers: this.options.config.clusters.map((c) => new ClusterReader(index, c.name)),
      counts: (cluster) => this.health.counts(cluster),
      claims: (cluster, name) => this.claimed(cluster, name),
      policy: (zone) => this.policies.get(zone) ?? ALL,
      stale: (name) => this.stale(name),
    };
    this.current = { index, data };
    return data;
  }

  /** The member cluster whose site holds a client address (the first listed), and its place (1 up), if any. */
  siteOf(client: string): { cluster: string; index: number } | undefined {
    const i = this.sites.findIndex((s) => s.holds(client));
    return i < 0 ? undefined : { cluster: this.sites[i]!.cluster, index: i + 1 };
  }

  /** Whether answers depend on the client's site: any name may merge by `prefer` (its own policy), given sites. */
  get usesSites(): boolean {
    return this.sites.length > 0;
  }

  /** Ready once the clusters' copy is loaded too. */
  readiness(): Readiness {
    return this.store.readiness();
  }

  summary(now = Date.now()): HubSummary {
    return {
      clusters: this.health.states(now).map((s) => ({
        ...s,
        leaseAgeSeconds: s.leaseAgeSeconds === undefined ? null : Math.round(s.leaseAgeSeconds),
        goneSeconds: s.goneSeconds === undefined ? null : Math.round(s.goneSeconds),
        refusedNames: this.refused.get(s.cluster)?.count ?? 0,
      })),
      graceSeconds: this.options.config.graceSeconds ?? HUB_DEFAULTS.graceSeconds,
      copy: this.store.readiness().detail,
      staleNames: [...this.staleNames],
      refused: [...this.refused.values()].flatMap((r) => r.names),
    };
  }

  /**
   * Why each member cluster answers a canonical name of `zone`, or not (name-explanation.ts), as an
   * address question from `client` (for `prefer`) would be answered from the `view` copy.
   */
  explain(name: string, zone: Zone, mode: LookupMode, view: IndexReader, client?: string): NameExplanation {
    const hub = this.data();
    const q = { zone, name, mode, purpose: 'address' as const, asker: undefined, view };
    const { shares } = clusterShares(hub, lookupName(view, zone, name, mode, 'address'), q);
    const states = this.health.states(Date.now());
    return explainName({
      name,
      zone: zone.name,
      chosen: chooseNamePolicy(
        hub.policy(zone.name),
        shares.map((s) => s.contribution),
      ),
      site: client === undefined ? undefined : this.siteOf(client)?.cluster,
      clusters: shares.map((share, i) => ({
        state: states[i]!,
        share,
        refusal:
          this.refusal(share.cluster, name) ??
          (share.found.wildcard && this.refusal(share.cluster, share.found.wildcard)),
      })),
    });
  }

  /** Whether a cluster's claims hold a name (always, for a cluster whose claims are not checked). */
  private claimed(cluster: string, name: string): boolean {
    return this.refusal(cluster, name) === undefined;
  }

  /** Why a cluster's claims refuse a name; undefined when they hold it or are not checked. */
  private refusal(cluster: string, name: string): string | undefined {
    const claims = this.claims.get(cluster);
    return claims && claimRefusal(cluster, claims, name);
  }

  /** Each checked cluster's refused names, again; a name newly refused is logged once. */
  private findRefused(): void {
    if (!this.refusedStale || !this.store.hasCopy) return;
    this.refusedStale = false;
    const index = this.store.index;
    const next = new Map<string, { names: RefusedName[]; count: number }>();
    for (const [cluster, claims] of this.claims) {
      const found = refusedNames(
        index.find([cluster]),
        claims.map((c) => c.suffix),
        REFUSED_NAMES_MAX,
      );
      const before = new Set(this.refused.get(cluster)?.names.map((r) => r.name));
      const names = found.names.map((name) => ({ cluster, name, reason: this.refusal(cluster, name)! }));
      for (const r of names)
        if (!before.has(r.name))
          this.options.logger.warn("entries outside the cluster's claims are refused: never answered nor transferred", {
            ...r,
          });
      next.set(cluster, { names, count: found.count });
      this.refusedGauge.set(found.count, { cluster });
    }
    this.refused = next;
  }

  /** Which clusters count now; a change of verdict changes every merged answer. */
  private check(): void {
    const index = this.store.index;
    const changed = this.health.observe(
      (cluster) => index.find([LEASE_SEGMENT, cluster])?.modRevision ?? 0,
      Date.now(),
    );
    if (changed.length === 0) return;
    for (const { cluster, counts } of changed) {
      this.counting.set(counts ? 1 : 0, { cluster });
      this.options.logger.info(counts ? 'member cluster counts' : 'member cluster no longer counts', {
        cluster,
        ...(counts ? {} : { why: 'lease key gone for longer than the grace period, or never seen' }),
      });
    }
    this.staleNames.clear();
    this.staleGauge.set(0);
    this.options.onChange('all');
    void this.markSerial(changed.map((c) => `${c.cluster} ${c.counts ? 'counts' : 'gone'}`).join(', '));
  }

  /**
   * Writes the serial key, so etcd's revision (where a restarted server's serials start) passes
   * the serials this change moved one up; unwritable (etcd unreachable, no grant), they stay one up.
   */
  private async markSerial(change: string): Promise<void> {
    try {
      const put = await this.options.client
        .put(HUB_SERIAL_KEY)
        .value(JSON.stringify({ change, at: new Date().toISOString() }));
      this.markFailed = false;
      this.options.onSerialMark(Number(put.header.revision));
    } catch (err) {
      if (!this.markFailed)
        this.options.logger.warn(
          `cannot write ${HUB_SERIAL_KEY}: the merged zones' serials moved one up only, and a server started later may serve a lower one until the next change`,
          { error: err },
        );
      this.markFailed = true;
    }
  }

  private stale(name: string): void {
    if (this.staleNames.has(name) || this.staleNames.size >= STALE_NAMES_MAX) return;
    this.staleNames.add(name);
    this.staleGauge.set(this.staleNames.size);
    this.options.logger.warn('answering from clusters none of which counts (serve-stale)', { name });
  }
}

const ALL: MergePolicy = { kind: 'all' };

function policyOf(z: NonNullable<HubConfig['zones']>[number]): MergePolicy {
  switch (z.policy) {
    case 'all':
      return ALL;
    case 'failover':
      return { kind: 'failover', order: z.order ?? [] };
    case 'prefer':
      return { kind: 'prefer', alone: z.prefer === 'alone' };
    case 'weighted':
      return { kind: 'weighted', weights: z.weights ?? {} };
  }
}
