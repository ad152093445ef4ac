// The controller's Prometheus metrics, and what a sync sets of them.
import { LATENCY_BUCKETS, Registry } from '../shared/metrics.ts';
import { PROBLEM_REASONS, RECORD_TYPES, type Problem } from './desired-record.ts';

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

/** The gauges of what a sync planned: kinds not served, problems by reason, records by type and view. */
export function setPlanGauges(
  metrics: ControllerMetrics,
  planned: {
    servedState: readonly { kind: string; notServed: string }[];
    problems: readonly Problem[];
    /** Each view's name and its records by type. */
    views: readonly { name: string; recordCounts: ReadonlyMap<string, number> }[];
  },
): void {
  for (const { kind, notServed } of planned.servedState) metrics.notServed.set(notServed ? 1 : 0, { kind });
  const byReason = new Map<string, number>();
  for (const p of planned.problems) byReason.set(p.reason, (byReason.get(p.reason) ?? 0) + 1);
  for (const reason of PROBLEM_REASONS) metrics.problems.set(byReason.get(reason) ?? 0, { reason });
  for (const view of planned.views)
    for (const type of RECORD_TYPES) metrics.records.set(view.recordCounts.get(type) ?? 0, { type, view: view.name });
}

/** A sync's end: its outcome counted, when it last completed, its duration, the process's memory. */
export function countSync(
  metrics: ControllerMetrics,
  outcome: string,
  completed: boolean,
  started: number | undefined,
): void {
  metrics.syncs.inc({ result: outcome });
  if (completed) metrics.lastSync.set(Date.now() / 1000);
  const memory = process.memoryUsage();
  metrics.memory.set(memory.rss, { kind: 'rss' });
  metrics.memory.set(memory.heapUsed, { kind: 'heap_used' });
  metrics.memory.set(memory.external, { kind: 'external' });
  if (started !== undefined) metrics.syncDuration.observe((performance.now() - started) / 1000);
}
