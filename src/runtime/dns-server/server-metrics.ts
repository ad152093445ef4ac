// The DNS server's Prometheus metrics. Per-query counts are kept in plain maps on the hot path and
// folded into the registry when /metrics is scraped.
import { LATENCY_BUCKETS, Registry } from '../shared/metrics.ts';
import { rcodeName, typeName } from './dns-constants.ts';
import { SKIP_REASONS, type SkipReason } from './record-limits.ts';

/** A registry that runs hooks (fold hot-path counts, sample gauges) before it renders. */
class SampledRegistry extends Registry {
  private readonly hooks: (() => void)[] = [];
  beforeRender(hook: () => void): void {
    this.hooks.push(hook);
  }
  override render(): string {
    for (const hook of this.hooks) hook();
    return super.render();
  }
}

export type Transport = 'udp' | 'tcp';

export const STORE_STATES = ['loading', 'synced', 'resyncing', 'stale'] as const;
export type StoreState = (typeof STORE_STATES)[number];

export class ServerMetrics {
  readonly registry = new SampledRegistry();
  readonly queries = this.registry.counter(
    'etcdns_dns_queries_total',
    'DNS queries answered, by type, rcode and transport.',
  );
  readonly latency = this.registry.histogram(
    'etcdns_dns_query_duration_seconds',
    'Time from receiving a query to handing its answer to the socket.',
    LATENCY_BUCKETS,
  );
  readonly cacheHits = this.registry.counter(
    'etcdns_dns_cache_hits_total',
    'Answers sent from the encoded-answer cache.',
  );
  readonly cacheMisses = this.registry.counter('etcdns_dns_cache_misses_total', 'Answers resolved and encoded.');
  readonly cacheEntries = this.registry.gauge('etcdns_dns_cache_entries', 'Encoded answers in the cache.');
  readonly cacheBytes = this.registry.gauge(
    'etcdns_dns_cache_bytes',
    'Estimated memory held by the answer cache (its budget: 16 MiB; NXDOMAIN answers at most 4,096).',
  );
  readonly rateLimited = this.registry.counter(
    'etcdns_dns_rate_limited_total',
    'UDP responses over the rate limit, by action: dropped, or slipped (sent truncated).',
  );
  readonly dropped = this.registry.counter(
    'etcdns_dns_dropped_total',
    'Packets dropped unanswered (too short, or responses).',
  );
  readonly internalErrors = this.registry.counter(
    'etcdns_dns_internal_errors_total',
    'Queries answered SERVFAIL after an unexpected error.',
  );
  readonly forwarded = this.registry.counter('etcdns_dns_forwarded_total', 'Queries forwarded upstream, by outcome.');
  readonly transfers = this.registry.counter(
    'etcdns_dns_transfers_total',
    'Zone transfer (AXFR, IXFR) requests, by outcome: served, refused (address, unsigned, AXFR over UDP, zone without transfers), notauth (TSIG failed).',
  );
  readonly transferBytes = this.registry.counter(
    'etcdns_dns_transfer_bytes_total',
    'Bytes of zone transfers served, by zone and form (as etcdns_dns_transfers_served_total).',
  );
  readonly transferKinds = this.registry.counter(
    'etcdns_dns_transfers_served_total',
    "Zone transfers served, by zone and form: axfr, ixfr (the changes since the secondary's serial), ixfr_full (IXFR asked, whole zone sent: history compacted or the changes larger than the zone), soa (IXFR from the current serial, or over UDP: the current SOA only).",
  );
  readonly transferSerial = this.registry.gauge(
    'etcdns_dns_transfer_served_serial',
    'The SOA serial last transferred to each secondary, by zone and client address.',
  );
  readonly notifies = this.registry.counter(
    'etcdns_dns_notify_total',
    'NOTIFY messages, by zone, secondary and outcome: sent (each try), acked, refused (an error answer), unanswered (every try timed out).',
  );
  readonly notifyAckedSerial = this.registry.gauge(
    'etcdns_dns_notify_acked_serial',
    'The SOA serial each secondary last acknowledged a NOTIFY of, by zone and secondary.',
  );
  readonly zoneSerials = this.registry.gauge(
    'etcdns_dns_zone_serial',
    "Each zone's SOA serial as this server answers it now (what a secondary's acknowledged serial is compared with).",
  );
  readonly records = this.registry.gauge('etcdns_dns_records', 'Decoded entries in the in-memory copy.');
  readonly storeState = this.registry.gauge('etcdns_dns_store_state', 'Record store state (1 for the current one).');
  readonly revision = this.registry.gauge('etcdns_dns_store_revision', 'etcd revision of the in-memory copy.');
  readonly watchLag = this.registry.gauge(
    'etcdns_dns_etcd_watch_lag_revisions',
    "etcd revision at the last probe minus the copy's revision (watch events and progress notifications); 0 when current.",
  );
  readonly sinceContact = this.registry.gauge(
    'etcdns_dns_etcd_seconds_since_contact',
    'Seconds since etcd last answered (watch event or probe).',
  );
  readonly skipped = this.registry.gauge(
    'etcdns_dns_skipped_values',
    'Keys left out of the copy, by reason: undecodable, or over a limit (record-limits.ts).',
  );
  readonly skippedTotal = this.registry.counter(
    'etcdns_dns_skipped_values_total',
    'Values skipped (each key and value once), by reason.',
  );
  readonly resyncs = this.registry.counter(
    'etcdns_dns_store_resyncs_total',
    'Full reloads after a watch cancel, compaction or outage.',
  );

  /** Counts by (type, rcode, transport) packed into one number: no string per query. */
  private readonly pending = new Map<number, number>();

  countQuery(type: number, rcode: number, transport: Transport, seconds: number): void {
    const key = ((type & 0xffff) * 32 + (rcode & 0x1f)) * 2 + (transport === 'tcp' ? 1 : 0);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    this.latency.observe(seconds);
  }

  setSkipped(byReason: ReadonlyMap<SkipReason, number>): void {
    for (const reason of SKIP_REASONS) this.skipped.set(byReason.get(reason) ?? 0, { reason });
  }

  setState(state: StoreState): void {
    for (const s of STORE_STATES) this.storeState.set(s === state ? 1 : 0, { state: s });
  }

  constructor() {
    this.registry.beforeRender(() => {
      for (const [key, n] of this.pending) {
        const transport = key % 2 === 1 ? 'tcp' : 'udp';
        const rcode = Math.floor(key / 2) % 32;
        const type = Math.floor(key / 64);
        this.queries.inc({ type: typeName(type), rcode: rcodeName(rcode), transport }, n);
      }
      this.pending.clear();
    });
  }
}
