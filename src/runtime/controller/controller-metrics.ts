// The controller's Prometheus metrics.
import { LATENCY_BUCKETS, Registry } from '../shared/metrics.ts';

export function controllerMetrics(registry = new Registry()) {
  const lastSync = registry.gauge(
    'etcdns_controller_last_sync_timestamp_seconds',
    'When the last sync completed (applied, unchanged, conflicted or dry run), Unix seconds; the process start until then',
  );
  lastSync.set(Date.now() / 1000);
  return {
    registry,
    records: registry.gauge('etcdns_controller_records', 'Records published by this controller, by type and view'),
    changes: registry.counter(
      'etcdns_controller_changes_applied_total',
      'Keys written to etcd, by operation (create, update, delete)',
    ),
    transactions: registry.counter('etcdns_controller_etcd_transactions_total', 'etcd transactions committed'),
    syncs: registry.counter(
      'etcdns_controller_syncs_total',
      'Syncs, by result (applied, unchanged, skipped, dry-run, error)',
    ),
    lastSync,
    syncDuration: registry.histogram(
      'etcdns_controller_sync_duration_seconds',
      'Time of one sync: snapshot, read, plan and write',
      LATENCY_BUCKETS,
    ),
    eventToEtcd: registry.histogram(
      'etcdns_controller_event_to_etcd_seconds',
      'From a Kubernetes watch event to its change committed in etcd',
      LATENCY_BUCKETS,
    ),
    errors: registry.counter('etcdns_controller_errors_total', 'Errors, by kind (etcd, conflict, kubernetes)'),
    problems: registry.gauge('etcdns_controller_problems', 'Current problems (skipped names, conflicts), by reason'),
    notServed: registry.gauge(
      'etcdns_controller_kind_not_served',
      '1 while the API server does not serve a kind the sources read (a CRD not installed): its records are kept as they are',
    ),
    undecodable: registry.gauge(
      'etcdns_controller_undecodable_entries',
      'Values under the prefix that are not valid SkyDNS entries (skipped, never touched)',
    ),
    memory: registry.gauge(
      'etcdns_controller_memory_bytes',
      'Process memory after the last sync, by kind (rss, heap_used, external)',
    ),
    leader: registry.gauge(
      'etcdns_controller_leader',
      '1 while this replica is the leader (or runs without leader election)',
    ),
  };
}

export type ControllerMetrics = ReturnType<typeof controllerMetrics>;
