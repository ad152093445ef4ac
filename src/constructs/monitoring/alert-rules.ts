// The Prometheus alerting rules of a stack: etcd, the DNS servers (one per view), the controller
// and the secondaries. Pure: what the PrometheusRule carries (prometheus-rule.ts), also written as
// a plain rules file by the tests that run promtool on it. Every series is selected by the `job`
// the ServiceMonitor's metrics Services give it (the Prometheus Operator names a target's job
// after its Service), so two stacks in one Prometheus do not mix. Each alert has a runbook section
// in docs/operations/alerts.md, which says why each threshold and `for:` is what it is.

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface AlertRuleGroup {
  name: string;
  rules: AlertRule[];
}

export interface AlertRulesInput {
  /** Stack name: the prefix of the metrics Services, so of the jobs. */
  stack: string;
  etcdReplicas: number;
  views: readonly string[];
  /** The controller's periodic resync: a leader completes a sync at least this often. */
  resyncSeconds: number;
  /** SERVFAIL answers over all answers of a view's servers. */
  servfailRatio: number;
  /** p99 of the time from a query's arrival to its answer, per view. */
  latencyP99Seconds: number;
  /** Where the runbook sections are; each alert links `<url>#<alert name in lower case>`. */
  runbookUrl: string;
}

export const ALERT_DEFAULTS = {
  servfailRatio: 0.01,
  latencyP99Seconds: 0.05,
  runbookUrl: 'https://github.com/etcdns/etcdns/blob/main/docs/operations/alerts.md',
} as const;

/** The jobs of a stack's metrics Services (service-monitor.ts metricsService). */
export function stackJobs(stack: string) {
  return {
    etcd: `${stack}-etcd-metrics`,
    controller: `${stack}-controller-metrics`,
    server: (view: string) => `${stack}-server-${view}-metrics`,
    /** Every view's servers, as a regular expression. */
    servers: `${stack}-server-.+-metrics`,
  };
}

export function alertRuleGroups(input: AlertRulesInput): AlertRuleGroup[] {
  const jobs = stackJobs(input.stack);
  const etcd = `job="${jobs.etcd}"`;
  const servers = `job=~"${jobs.servers}"`;
  const controller = `job="${jobs.controller}"`;
  const quorum = Math.floor(input.etcdReplicas / 2) + 1;
  const rule = (
    alert: string,
    severity: 'critical' | 'warning',
    forDuration: string,
    expr: string,
    summary: string,
    description: string,
    labels: Record<string, string> = {},
  ): AlertRule => ({
    alert,
    expr,
    for: forDuration,
    labels: { severity, ...labels },
    annotations: { summary, description, runbook_url: `${input.runbookUrl}#${alert.toLowerCase()}` },
  });
  // Answers per second of a view's servers over 5 minutes, for ratios with a floor of traffic.
  const answers = (selector: string) => `sum by (job, view) (rate(etcdns_dns_queries_total{${selector}}[5m]))`;

  const etcdRules = [
    rule(
      'EtcdnsEtcdNoLeader',
      'critical',
      '1m',
      `etcd_server_has_leader{${etcd}} == 0`,
      'etcd member {{ $labels.instance }} has no leader',
      'Without a leader etcd takes no writes: the controller cannot publish, the DNS servers answer from their last copy.',
    ),
    rule(
      'EtcdnsEtcdQuorumLost',
      'critical',
      '1m',
      `(sum(up{${etcd}}) or vector(0)) < ${quorum}`,
      `fewer than ${quorum} of ${input.etcdReplicas} etcd members answer`,
      'etcd has lost its quorum: no record changes until members return; the DNS servers answer from their last copy.',
    ),
    ...(input.etcdReplicas > 1
      ? [
          rule(
            'EtcdnsEtcdMemberDown',
            'warning',
            '10m',
            `(sum(up{${etcd}}) or vector(0)) < ${input.etcdReplicas}`,
            `fewer than ${input.etcdReplicas} etcd members answer`,
            'An etcd member is down or unreachable: one more failure may cost the quorum.',
          ),
        ]
      : []),
  ];

  const serverRules = [
    // Per view: a view with no ready replica does not answer at all.
    ...input.views.map((view) =>
      rule(
        'EtcdnsDnsViewDown',
        'critical',
        '1m',
        `absent(etcdns_dns_store_state{job="${jobs.server(view)}", state=~"synced|resyncing|stale"} == 1)`,
        `no DNS server of view ${view} is ready`,
        `No replica of view ${view} has its records loaded (or none is scraped): its clients get no answers.`,
        { view },
      ),
    ),
    rule(
      'EtcdnsDnsServerNotReady',
      'warning',
      '5m',
      `etcdns_dns_store_state{${servers}, state="loading"} == 1 or up{${servers}} == 0`,
      'DNS server {{ $labels.instance }} is not ready',
      'The server has not loaded its records (or does not answer on its HTTP port); Kubernetes sends it no queries.',
    ),
    rule(
      'EtcdnsDnsServerStale',
      'warning',
      '5m',
      `etcdns_dns_store_state{${servers}, state="stale"} == 1`,
      'DNS server {{ $labels.instance }} answers from a stale copy',
      'The server cannot reach etcd and answers from its last copy: changes do not reach its answers.',
    ),
    rule(
      'EtcdnsDnsServerBehindEtcd',
      'warning',
      '5m',
      [
        `min_over_time(etcdns_dns_etcd_watch_lag_revisions{${servers}}[15m]) > 0`,
        `and changes(etcdns_dns_store_revision{${servers}}[15m]) == 0`,
        `and (time() - process_start_time_seconds{${servers}}) > 900`,
      ].join(' '),
      "DNS server {{ $labels.instance }}'s copy is behind etcd",
      "etcd's revision is ahead of the server's copy and the copy has not moved in 15 minutes: its watch is stuck.",
    ),
    rule(
      'EtcdnsDnsServfailRatioHigh',
      'warning',
      '10m',
      [
        `sum by (job, view) (rate(etcdns_dns_queries_total{${servers}, rcode="SERVFAIL"}[5m]))`,
        `/ ${answers(servers)} > ${input.servfailRatio}`,
        `and ${answers(servers)} > 1`,
      ].join(' '),
      'DNS servers of view {{ $labels.view }} answer SERVFAIL too often',
      `More than ${percent(input.servfailRatio)} of the answers are SERVFAIL: not loaded, an internal error, or a failing forwarder.`,
    ),
    rule(
      'EtcdnsDnsLatencyHigh',
      'warning',
      '10m',
      [
        `histogram_quantile(0.99, sum by (job, view, le) (rate(etcdns_dns_query_duration_seconds_bucket{${servers}}[5m])))`,
        `> ${input.latencyP99Seconds}`,
        `and ${answers(servers)} > 1`,
      ].join(' '),
      'DNS servers of view {{ $labels.view }} answer slowly',
      `The 99th percentile of the time to an answer is over ${input.latencyP99Seconds * 1000} ms.`,
    ),
    rule(
      'EtcdnsDnsRateLimitDropping',
      'warning',
      '15m',
      [
        `sum by (job, view) (rate(etcdns_dns_rate_limited_total{${servers}, action="dropped"}[5m]))`,
        `/ sum by (job, view) (rate(etcdns_dns_queries_total{${servers}, transport="udp"}[5m])) > 0.05`,
      ].join(' '),
      'DNS servers of view {{ $labels.view }} drop answers over the rate limit',
      'More than 5% of the UDP answers are dropped by response rate limiting: a flood, or a client network over the limit.',
    ),
    rule(
      'EtcdnsDnsUpdatesRefused',
      'warning',
      '5m',
      `sum by (job, view, key) (increase(etcdns_dns_updates_total{${servers}, result=~"REFUSED|NOTAUTH"}[10m])) > 0`,
      'DNS servers of view {{ $labels.view }} refused updates (key {{ $labels.key }})',
      'A DNS UPDATE (an ACME DNS-01 challenge) was refused or failed its TSIG check: an issuer whose certificates will not renew, or someone trying keys (key "-": unsigned or no key verified).',
    ),
    rule(
      'EtcdnsSecondaryNotifyUnacknowledged',
      'warning',
      '10m',
      [
        // Acknowledged a serial older than the zone's serial 15 minutes ago ...
        `etcdns_dns_notify_acked_serial{${servers}} < ignoring (secondary) group_left () (etcdns_dns_zone_serial{${servers}} offset 15m)`,
        // ... or NOTIFYs sent and never one acknowledged.
        `or (sum without (outcome) (etcdns_dns_notify_total{${servers}, outcome="sent"}) unless on (job, instance, zone, secondary) etcdns_dns_notify_acked_serial{${servers}})`,
      ].join(' '),
      'secondary {{ $labels.secondary }} has not acknowledged zone {{ $labels.zone }}',
      'The secondary did not acknowledge a NOTIFY for a serial of zone {{ $labels.zone }} that is at least 15 minutes old; it may answer old data.',
    ),
  ];

  const controllerRules = [
    rule(
      'EtcdnsControllerNoLeader',
      'warning',
      '2m',
      `(sum(etcdns_controller_leader{${controller}}) or vector(0)) < 1`,
      'no etcdns controller is the leader',
      'No controller replica leads (or none is scraped): no record changes are published.',
    ),
    rule(
      'EtcdnsControllerNotSyncing',
      'warning',
      '2m',
      `(time() - etcdns_controller_last_sync_timestamp_seconds{${controller}}) > ${2 * input.resyncSeconds} and on (job, instance) etcdns_controller_leader{${controller}} == 1`,
      'the leading controller {{ $labels.instance }} has not completed a sync',
      `The leader completes a sync at least every ${input.resyncSeconds} s (its resync); none for twice that.`,
    ),
    rule(
      'EtcdnsControllerSyncErrors',
      'warning',
      '10m',
      `sum by (job, instance) (increase(etcdns_controller_syncs_total{${controller}, result="error"}[5m])) > 0`,
      'controller {{ $labels.instance }} keeps failing syncs',
      'Syncs have failed in every 5 minutes for 10 minutes (etcd errors: see the log lines "etcd unavailable").',
    ),
    rule(
      'EtcdnsControllerSourceNotServed',
      'warning',
      '15m',
      `max by (job, kind) (etcdns_controller_kind_not_served{${controller}}) == 1`,
      'the API server does not serve {{ $labels.kind }}, which the controller reads',
      'No {{ $labels.kind }} can be read (its CRD is not installed): the records the controller wrote for it are kept as they are, and no change to them is published.',
    ),
    rule(
      'EtcdnsObjectProblemsGrowing',
      'warning',
      '30m',
      `max by (job, reason) (etcdns_controller_problems{${controller}}) > max by (job, reason) (etcdns_controller_problems{${controller}} offset 1h)`,
      'more objects with problems ({{ $labels.reason }}) than an hour ago',
      'More Services, Ingresses or other sources have {{ $labels.reason }} problems than an hour ago; their names are skipped or refused.',
    ),
  ];

  return [
    { name: `${input.stack}-etcd`, rules: etcdRules },
    { name: `${input.stack}-dns-server`, rules: serverRules },
    { name: `${input.stack}-controller`, rules: controllerRules },
  ];
}

function percent(ratio: number): string {
  return `${Number((ratio * 100).toPrecision(3))}%`;
}
