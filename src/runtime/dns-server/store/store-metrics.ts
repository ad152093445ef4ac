// The store's Prometheus metrics, next to the stage that counts them: the state of the copy, how
// current it is, what it skipped, and its reloads. The server's registry holds them (server-metrics.ts).
import type { Registry } from '../../shared/metrics.ts';
import { SKIP_REASONS, type SkipReason } from './record-limits.ts';

export const STORE_STATES = ['loading', 'synced', 'resyncing', 'stale'] as const;
export type StoreState = (typeof STORE_STATES)[number];

export class StoreMetrics {
  readonly zoneSerials;
  readonly records;
  readonly storeState;
  readonly revision;
  readonly watchLag;
  readonly sinceContact;
  readonly skipped;
  readonly skippedTotal;
  readonly resyncs;

  constructor(registry: Registry) {
    this.zoneSerials = registry.gauge(
      'etcdns_dns_zone_serial',
      "Each zone's SOA serial as this server answers it now (what a secondary's acknowledged serial is compared with).",
    );
    this.records = registry.gauge('etcdns_dns_records', 'Decoded entries in the in-memory copy.');
    this.storeState = registry.gauge('etcdns_dns_store_state', 'Record store state (1 for the current one).');
    this.revision = registry.gauge('etcdns_dns_store_revision', 'etcd revision of the in-memory copy.');
    this.watchLag = registry.gauge(
      'etcdns_dns_etcd_watch_lag_revisions',
      "etcd revision at the last probe minus the copy's revision (watch events and progress notifications); 0 when current.",
    );
    this.sinceContact = registry.gauge(
      'etcdns_dns_etcd_seconds_since_contact',
      'Seconds since etcd last answered (watch event or probe).',
    );
    this.skipped = registry.gauge(
      'etcdns_dns_skipped_values',
      'Keys left out of the copy, by reason: undecodable, or over a limit (record-limits.ts).',
    );
    this.skippedTotal = registry.counter(
      'etcdns_dns_skipped_values_total',
      'Values skipped (each key and value once), by reason.',
    );
    this.resyncs = registry.counter(
      'etcdns_dns_store_resyncs_total',
      'Full reloads after a watch cancel, compaction or outage.',
    );
  }

  setSkipped(byReason: ReadonlyMap<SkipReason, number>): void {
    for (const reason of SKIP_REASONS) this.skipped.set(byReason.get(reason) ?? 0, { reason });
  }

  setState(state: StoreState): void {
    for (const s of STORE_STATES) this.storeState.set(s === state ? 1 : 0, { state: s });
  }
}
