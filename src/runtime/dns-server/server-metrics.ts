// The DNS server's Prometheus metrics. Per-query counts are kept in plain maps on the hot path and
// folded into the registry when /metrics is scraped.
import { LATENCY_BUCKETS, Registry } from '../shared/metrics.ts';
import { rcodeName, typeName } from './wire/dns-constants.ts';
import { StoreMetrics } from './store/store-metrics.ts';
import { TransferMetrics } from './transfer/transfer-metrics.ts';
import { UpdateMetrics } from './update/update-metrics.ts';
import type { Transport } from './wire/wire-server.ts';

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
  readonly aclRefused = this.registry.counter(
    'etcdns_dns_acl_refused_total',
    'Queries REFUSED because the client is outside allowQueryFrom.',
  );
  readonly forwarded = this.registry.counter('etcdns_dns_forwarded_total', 'Queries forwarded upstream, by outcome.');
  readonly tcpConnections = this.registry.gauge('etcdns_dns_tcp_connections', 'Open DNS-over-TCP connections.');
  readonly tcpClosedUnderPressure = this.registry.counter(
    'etcdns_dns_tcp_closed_under_pressure_total',
    'Idle TCP connections closed to make room for a new one (at the bound, least recently active first).',
  );
  readonly tcpRefused = this.registry.counter(
    'etcdns_dns_tcp_refused_total',
    'New TCP connections refused at the bound because every open one had a query in flight.',
  );
  // Each room's own metrics, on this registry (in this order on the page).
  readonly transfer = new TransferMetrics(this.registry);
  readonly store = new StoreMetrics(this.registry);
  readonly update = new UpdateMetrics(this.registry);

  /** Counts by (type, rcode, transport) packed into one number: no string per query. */
  private readonly pending = new Map<number, number>();

  countQuery(type: number, rcode: number, transport: Transport, seconds: number): void {
    const key = ((type & 0xffff) * 32 + (rcode & 0x1f)) * 2 + (transport === 'tcp' ? 1 : 0);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    this.latency.observe(seconds);
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
