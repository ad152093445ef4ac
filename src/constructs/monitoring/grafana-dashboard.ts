// Opt-in dashboard: a ConfigMap holding dashboard.ts's JSON, labelled for the dashboard sidecar
// of Grafana's Helm chart (and kube-prometheus-stack), which loads every ConfigMap carrying its
// label (`grafana_dashboard`, by default; the sidecar's `searchNamespace` must include the
// stack's namespace). The same JSON ships in the npm package (dashboards/etcdns.json) for import.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { dashboardFile } from './dashboard.ts';
import { mapProblems } from '../base/kubernetes-rules.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';

export interface DashboardProps {
  /** Emit the dashboard ConfigMap; default false. Its queries select the ServiceMonitor's jobs. */
  readonly enabled: boolean;
  /**
   * Labels the Grafana sidecar finds dashboards by. Given labels replace the default.
   * @default { grafana_dashboard: "1" } (the Grafana chart's sidecar.dashboards.label and labelValue)
   */
  readonly labels?: Record<string, string>;
  /**
   * Annotations of the ConfigMap, e.g. the sidecar's folder annotation.
   * @default - none
   */
  readonly annotations?: Record<string, string>;
}

export const DASHBOARD_DEFAULTS = { labels: { grafana_dashboard: '1' } } as const;
/** The file name inside the ConfigMap, which the sidecar writes for Grafana. */
export const DASHBOARD_FILE = 'etcdns.json';

export interface GrafanaDashboardProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** app.kubernetes.io/version. */
  readonly version: string;
  /** What the user set. */
  readonly dashboard: DashboardProps;
}

export class GrafanaDashboard extends StackPart {
  constructor(scope: Construct, id: string, props: GrafanaDashboardProps) {
    const { dashboard, stack } = props;
    super(scope, id, stack, {
      component: 'monitoring',
      version: props.version,
      wave: SYNC_WAVE.workloads,
      labels: dashboard.labels ?? DASHBOARD_DEFAULTS.labels,
    });
    new k8s.KubeConfigMap(this, 'config-map', {
      metadata: this.meta(`${stack.name}-dashboard`, { annotations: dashboard.annotations }),
      data: { [DASHBOARD_FILE]: dashboardFile(stack.name) },
    });
  }
}

export function dashboardProblems(
  dashboard: DashboardProps | undefined,
  serviceMonitor: boolean,
  path: string,
): string[] {
  if (dashboard === undefined) return [];
  const problems = [
    ...mapProblems(dashboard.labels, `${path}.labels`, true),
    ...mapProblems(dashboard.annotations, `${path}.annotations`, false),
  ];
  if (dashboard.enabled && !serviceMonitor)
    problems.push(
      `${path}: needs observability.serviceMonitor.enabled (the panels select the jobs of the ServiceMonitor's Services)`,
    );
  return problems;
}
