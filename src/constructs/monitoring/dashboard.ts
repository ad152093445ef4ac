// The Grafana dashboard of a stack, as Grafana's dashboard JSON: DNS answers (by rcode, type and
// view, latency, the answer cache), records and the etcd watch, the controller (syncs,
// propagation, problems), etcd's health, zone transfers and NOTIFY per secondary, rate limiting.
// Pure. Its queries select by the jobs of the ServiceMonitor's Services, through the `stack`
// variable (default: the stack's name), so the same JSON imported by hand works for any stack.
import { stackJobs } from './alert-rules.ts';

export interface DashboardTarget {
  expr: string;
  legendFormat: string;
}

export interface DashboardPanel {
  title: string;
  description: string;
  unit: string;
  /** Stat panels show one number per series; time series panels plot them. */
  kind?: 'stat';
  targets: DashboardTarget[];
}

interface Section {
  title: string;
  panels: DashboardPanel[];
}

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** Grafana picks a window of at least four scrape intervals for rate(). */
const RATE = '[$__rate_interval]';

/** The sections and their panels; `$stack`, `$view` and `$__rate_interval` are Grafana's variables. */
export function dashboardSections(): Section[] {
  const jobs = stackJobs('$stack');
  const servers = `job=~"${jobs.servers}", view=~"$view"`;
  const controller = `job="${jobs.controller}"`;
  const etcd = `job="${jobs.etcd}"`;
  const queries = (extra = '') => `etcdns_dns_queries_total{${servers}${extra}}`;
  const t = (expr: string, legendFormat: string): DashboardTarget => ({ expr, legendFormat });
  const quantile = (q: number, metric: string, selector: string, by: string) =>
    `histogram_quantile(${q}, sum by (${by}le) (rate(${metric}_bucket{${selector}}${RATE})))`;
  return [
    {
      title: 'DNS answers',
      panels: [
        {
          title: 'Answers by rcode',
          description: 'Answers per second of the selected views, by response code.',
          unit: 'reqps',
          targets: [t(`sum by (rcode) (rate(${queries()}${RATE}))`, '{{rcode}}')],
        },
        {
          title: 'Answers by question type',
          description: 'Answers per second, by the type asked for.',
          unit: 'reqps',
          targets: [t(`sum by (type) (rate(${queries()}${RATE}))`, '{{type}}')],
        },
        {
          title: 'Answers by view',
          description: 'Answers per second of each view (UDP and TCP).',
          unit: 'reqps',
          targets: [t(`sum by (view, transport) (rate(${queries()}${RATE}))`, '{{view}} {{transport}}')],
        },
        {
          title: 'SERVFAIL share',
          description: 'SERVFAIL answers over all answers, per view (alert: EtcdnsDnsServfailRatioHigh).',
          unit: 'percentunit',
          targets: [
            t(
              `(sum by (view) (rate(${queries(', rcode="SERVFAIL"')}${RATE})) or sum by (view) (rate(${queries()}${RATE})) * 0) / sum by (view) (rate(${queries()}${RATE}))`,
              '{{view}}',
            ),
          ],
        },
        {
          title: 'Time to answer',
          description:
            'From a query arriving to its answer handed to the socket, per view (alert: EtcdnsDnsLatencyHigh).',
          unit: 's',
          targets: [
            t(quantile(0.5, 'etcdns_dns_query_duration_seconds', servers, 'view, '), 'p50 {{view}}'),
            t(quantile(0.99, 'etcdns_dns_query_duration_seconds', servers, 'view, '), 'p99 {{view}}'),
          ],
        },
        {
          title: 'Answer cache hit ratio',
          description: 'Answers sent from the cache of encoded answers over all answers, per view.',
          unit: 'percentunit',
          targets: [
            t(
              `sum by (view) (rate(etcdns_dns_cache_hits_total{${servers}}${RATE})) / (sum by (view) (rate(etcdns_dns_cache_hits_total{${servers}}${RATE})) + sum by (view) (rate(etcdns_dns_cache_misses_total{${servers}}${RATE})))`,
              '{{view}}',
            ),
          ],
        },
      ],
    },
    {
      title: 'Records and the etcd watch',
      panels: [
        {
          title: 'Records held',
          description: 'Entries in the in-memory copy of each server replica.',
          unit: 'short',
          targets: [t(`etcdns_dns_records{${servers}}`, '{{view}} {{instance}}')],
        },
        {
          title: 'Watch lag',
          description:
            'The etcd revision minus the revision of the copy at the last probe: an upper bound between the progress notifications of etcd (alert: EtcdnsDnsServerBehindEtcd).',
          unit: 'short',
          targets: [t(`etcdns_dns_etcd_watch_lag_revisions{${servers}}`, '{{view}} {{instance}}')],
        },
        {
          title: 'Server replicas by state',
          description: 'loading (not ready), synced, resyncing, stale (answering from the last copy).',
          unit: 'short',
          targets: [t(`sum by (view, state) (etcdns_dns_store_state{${servers}})`, '{{view}} {{state}}')],
        },
        {
          title: 'Zone serials',
          description: 'The SOA serial of each zone as each replica answers it (the etcd revision of its last change).',
          unit: 'none',
          targets: [t(`etcdns_dns_zone_serial{${servers}}`, '{{zone}} {{instance}}')],
        },
        {
          title: 'Values skipped in etcd',
          description: 'Keys left out of the copy (undecodable, or over a limit), by reason.',
          unit: 'short',
          targets: [t(`sum by (reason) (etcdns_dns_skipped_values{${servers}})`, '{{reason}}')],
        },
        {
          title: 'Memory (resident)',
          description: 'Resident memory of each DNS server and controller process.',
          unit: 'bytes',
          targets: [
            t(`process_resident_memory_bytes{job=~"${jobs.servers}|${jobs.controller}"}`, '{{job}} {{instance}}'),
          ],
        },
      ],
    },
    {
      title: 'Controller',
      panels: [
        {
          title: 'Sync duration',
          description: 'Time of one sync: snapshot, read, plan and write.',
          unit: 's',
          targets: [
            t(quantile(0.5, 'etcdns_controller_sync_duration_seconds', controller, ''), 'p50'),
            t(quantile(0.99, 'etcdns_controller_sync_duration_seconds', controller, ''), 'p99'),
          ],
        },
        {
          title: 'Syncs by result',
          description: 'Syncs per second: applied, unchanged, skipped (standby), conflicted, error.',
          unit: 'ops',
          targets: [t(`sum by (result) (rate(etcdns_controller_syncs_total{${controller}}${RATE}))`, '{{result}}')],
        },
        {
          title: 'Errors',
          description: 'Controller errors per second, by kind (etcd, conflict).',
          unit: 'ops',
          targets: [t(`sum by (kind) (rate(etcdns_controller_errors_total{${controller}}${RATE}))`, '{{kind}}')],
        },
        {
          title: 'Propagation: watch event to etcd',
          description: 'From a Kubernetes watch event to its change committed in etcd.',
          unit: 's',
          targets: [
            t(quantile(0.5, 'etcdns_controller_event_to_etcd_seconds', controller, ''), 'p50'),
            t(quantile(0.99, 'etcdns_controller_event_to_etcd_seconds', controller, ''), 'p99'),
          ],
        },
        {
          title: 'Records published',
          description: 'Records the controller publishes, by view and type.',
          unit: 'short',
          targets: [t(`max by (view, type) (etcdns_controller_records{${controller}})`, '{{view}} {{type}}')],
        },
        {
          title: 'Objects with problems',
          description: 'Current problems by reason (alert: EtcdnsObjectProblemsGrowing); the status page lists them.',
          unit: 'short',
          targets: [t(`max by (reason) (etcdns_controller_problems{${controller}})`, '{{reason}}')],
        },
        {
          title: 'Leader',
          description: '1 for the replica that leads (writes); time since its last completed sync.',
          unit: 'short',
          targets: [
            t(`etcdns_controller_leader{${controller}}`, 'leader {{instance}}'),
            t(
              `time() - etcdns_controller_last_sync_timestamp_seconds{${controller}} and on (instance) etcdns_controller_leader{${controller}} == 1`,
              'seconds since the last sync',
            ),
          ],
        },
      ],
    },
    {
      title: 'etcd',
      panels: [
        {
          title: 'Members up',
          description: 'etcd members answering their metrics scrape (alerts: EtcdnsEtcdQuorumLost, MemberDown).',
          unit: 'short',
          kind: 'stat',
          targets: [t(`sum(up{${etcd}})`, 'members up')],
        },
        {
          title: 'Members with a leader',
          description: 'Members that see a leader (alert: EtcdnsEtcdNoLeader).',
          unit: 'short',
          kind: 'stat',
          targets: [t(`sum(etcd_server_has_leader{${etcd}})`, 'with a leader')],
        },
        {
          title: 'Leader changes',
          description: 'Leader changes each member saw in the window.',
          unit: 'short',
          targets: [t(`increase(etcd_server_leader_changes_seen_total{${etcd}}[1h])`, '{{instance}}')],
        },
        {
          title: 'Database size',
          description: 'The backend database of each member (etcd refuses writes at its quota, 2 GiB by default).',
          unit: 'bytes',
          targets: [t(`etcd_mvcc_db_total_size_in_bytes{${etcd}}`, '{{instance}}')],
        },
        {
          title: 'WAL fsync p99',
          description: 'Disk latency of the write-ahead log of etcd: slow disks slow every write.',
          unit: 's',
          targets: [t(quantile(0.99, 'etcd_disk_wal_fsync_duration_seconds', etcd, 'instance, '), '{{instance}}')],
        },
      ],
    },
    {
      title: 'Zone transfers and NOTIFY',
      panels: [
        {
          title: 'Transfer requests by outcome',
          description: 'AXFR and IXFR requests: served, refused (address, unsigned, zone), notauth (TSIG).',
          unit: 'ops',
          targets: [t(`sum by (outcome) (rate(etcdns_dns_transfers_total{${servers}}${RATE}))`, '{{outcome}}')],
        },
        {
          title: 'Transfers served by zone and form',
          description: 'axfr, ixfr, ixfr_full (history compacted), soa (already current).',
          unit: 'short',
          targets: [
            t(
              `sum by (zone, form) (increase(etcdns_dns_transfers_served_total{${servers}}${RATE}))`,
              '{{zone}} {{form}}',
            ),
          ],
        },
        {
          title: 'NOTIFY by secondary',
          description: 'NOTIFY messages per second, by secondary and outcome (sent, acked, refused, unanswered).',
          unit: 'ops',
          targets: [
            t(
              `sum by (secondary, outcome) (rate(etcdns_dns_notify_total{${servers}}${RATE}))`,
              '{{secondary}} {{outcome}}',
            ),
          ],
        },
        {
          title: 'Serials behind, per secondary',
          description:
            'Zone serial minus the serial the secondary last acknowledged, per replica (alert: EtcdnsSecondaryNotifyUnacknowledged).',
          unit: 'none',
          targets: [
            t(
              `etcdns_dns_zone_serial{${servers}} - ignoring (secondary) group_right () etcdns_dns_notify_acked_serial{${servers}}`,
              '{{zone}} {{secondary}} {{instance}}',
            ),
          ],
        },
      ],
    },
    {
      title: 'Abuse protection',
      panels: [
        {
          title: 'Rate limited answers',
          description:
            'UDP answers over the rate limit per second: dropped, or slipped (sent truncated) (alert: EtcdnsDnsRateLimitDropping).',
          unit: 'ops',
          targets: [
            t(`sum by (view, action) (rate(etcdns_dns_rate_limited_total{${servers}}${RATE}))`, '{{view}} {{action}}'),
          ],
        },
      ],
    },
  ];
}

/** Grafana's dashboard JSON (schema 39) for the stack named `stack`; dashboardFile() as text. */
export function grafanaDashboard(stack: string): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let id = 1;
  let y = 0;
  for (const section of dashboardSections()) {
    panels.push({ id: id++, type: 'row', title: section.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y } });
    y += 1;
    const n = section.panels.length;
    const width = n === 1 ? 24 : n === 2 || n === 4 ? 12 : 8;
    section.panels.forEach((p, i) => {
      const perRow = 24 / width;
      const x = (i % perRow) * width;
      panels.push({
        id: id++,
        type: p.kind ?? 'timeseries',
        title: p.title,
        description: p.description,
        datasource: DATASOURCE,
        gridPos: { h: 8, w: width, x, y: y + Math.floor(i / perRow) * 8 },
        fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
        options:
          p.kind === 'stat'
            ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value' }
            : { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi', sort: 'desc' } },
        targets: p.targets.map((target, n) => ({
          datasource: DATASOURCE,
          expr: target.expr,
          legendFormat: target.legendFormat,
          refId: String.fromCharCode(65 + n),
        })),
      });
    });
    y += Math.ceil(section.panels.length / (24 / width)) * 8;
  }
  const viewQuery = `label_values(etcdns_dns_queries_total{job=~"${stackJobs('$stack').servers}"}, view)`;
  return {
    title: stack === 'etcdns' ? 'etcdns' : `etcdns (${stack})`,
    uid: stack === 'etcdns' ? 'etcdns' : `etcdns-${stack}`,
    description: 'etcdns: DNS answers, records, controller, etcd, zone transfers, rate limiting.',
    tags: ['etcdns', 'dns'],
    editable: true,
    graphTooltip: 1,
    refresh: '30s',
    schemaVersion: 39,
    time: { from: 'now-3h', to: 'now' },
    timezone: 'browser',
    version: 1,
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {} },
        {
          name: 'stack',
          label: 'Stack',
          description: 'The stack name: its metrics Services, so the jobs, are named after it.',
          type: 'textbox',
          query: stack,
          current: { text: stack, value: stack },
        },
        {
          name: 'view',
          label: 'View',
          type: 'query',
          datasource: DATASOURCE,
          definition: viewQuery,
          query: { query: viewQuery, refId: 'view' },
          refresh: 2,
          includeAll: true,
          multi: true,
          allValue: '.*',
          current: { text: 'All', value: '$__all' },
          sort: 1,
        },
      ],
    },
    panels,
  };
}

/** The dashboard as the file Grafana imports (the ConfigMap's data, dashboards/etcdns.json). */
export function dashboardFile(stack: string): string {
  return `${JSON.stringify(grafanaDashboard(stack), null, 2)}\n`;
}
