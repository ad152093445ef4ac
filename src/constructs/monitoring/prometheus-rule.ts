// Opt-in alerts: a Prometheus Operator PrometheusRule holding alert-rules.ts's groups. Like the
// ServiceMonitor it needs a CRD, so it carries Argo CD's SkipDryRunOnMissingResource, and it names
// the namespace of the stack (the Operator's ruleNamespaceSelector decides whether it is read).
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { ALERT_DEFAULTS, alertRuleGroups } from './alert-rules.ts';
import { mapProblems, show } from '../base/kubernetes-rules.ts';
import { SKIP_DRY_RUN, SYNC_WAVE } from '../base/gitops.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';

export interface AlertsProps {
  /** Emit the PrometheusRule; default false. Needs `serviceMonitor` (the rules select its jobs). */
  readonly enabled: boolean;
  /**
   * Labels the Prometheus instance selects PrometheusRules by (e.g. release: prometheus).
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * EtcdnsDnsServfailRatioHigh fires above this share of SERVFAIL answers (0 < ratio < 1).
   * @default 0.01
   */
  readonly servfailRatio?: number;
  /**
   * EtcdnsDnsLatencyHigh fires when the 99th percentile time to an answer is over this many seconds.
   * @default 0.05
   */
  readonly latencyP99Seconds?: number;
  /**
   * Page holding a section per alert (each alert links `<url>#<alert name in lower case>`).
   * @default "https://github.com/etcdns/etcdns/blob/main/docs/operations/alerts.md"
   */
  readonly runbookUrl?: string;
}

export interface PrometheusRuleProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** etcd members the stack runs (the quorum follows). */
  readonly etcdReplicas: number;
  /** The views, one DNS server Deployment each. */
  readonly views: readonly string[];
  /** The controller's periodic resync in seconds. */
  readonly resyncSeconds: number;
  /** app.kubernetes.io/version. */
  readonly version: string;
  /** What the user set. */
  readonly alerts: AlertsProps;
}

export class PrometheusRule extends StackPart {
  constructor(scope: Construct, id: string, props: PrometheusRuleProps) {
    const { alerts } = props;
    super(scope, id, props.stack, {
      component: 'monitoring',
      version: props.version,
      wave: SYNC_WAVE.workloads,
      labels: alerts.labels,
    });
    new ApiObject(this, 'resource', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: this.meta(props.stack.name, { annotations: SKIP_DRY_RUN }),
      spec: {
        groups: alertRuleGroups({
          stack: props.stack.name,
          etcdReplicas: props.etcdReplicas,
          views: props.views,
          resyncSeconds: props.resyncSeconds,
          servfailRatio: alerts.servfailRatio ?? ALERT_DEFAULTS.servfailRatio,
          latencyP99Seconds: alerts.latencyP99Seconds ?? ALERT_DEFAULTS.latencyP99Seconds,
          runbookUrl: alerts.runbookUrl ?? ALERT_DEFAULTS.runbookUrl,
        }),
      },
    });
  }
}

export function alertsProblems(alerts: AlertsProps | undefined, serviceMonitor: boolean, path: string): string[] {
  if (alerts === undefined) return [];
  const problems = mapProblems(alerts.labels, `${path}.labels`, true);
  if (alerts.enabled && !serviceMonitor)
    problems.push(
      `${path}: needs observability.serviceMonitor.enabled (the rules select the jobs of the ServiceMonitor's Services)`,
    );
  const ratio = alerts.servfailRatio;
  if (ratio !== undefined && !(typeof ratio === 'number' && ratio > 0 && ratio < 1))
    problems.push(`${path}.servfailRatio: must be a number between 0 and 1, e.g. 0.01 (got ${show(ratio)})`);
  const latency = alerts.latencyP99Seconds;
  if (latency !== undefined && !(typeof latency === 'number' && latency > 0 && latency <= 5))
    problems.push(
      `${path}.latencyP99Seconds: must be a number of seconds above 0 and at most 5, the largest latency bucket (got ${show(latency)})`,
    );
  const url = alerts.runbookUrl;
  if (url !== undefined && !(typeof url === 'string' && /^https?:\/\/\S+$/.test(url)))
    problems.push(`${path}.runbookUrl: must be an http(s) URL (got ${show(url)})`);
  return problems;
}
