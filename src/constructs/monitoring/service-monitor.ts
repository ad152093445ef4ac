// Opt-in Prometheus Operator scraping: one ServiceMonitor selecting every component's metrics
// Service (base/metrics-service.ts). The ServiceMonitor needs a CRD, so it carries Argo CD's
// SkipDryRunOnMissingResource (a first sync before the CRD exists does not fail). It names no
// namespace: without a namespaceSelector the Prometheus Operator looks in the ServiceMonitor's
// own, wherever a namespace overlay puts it.
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { LABEL_NAME } from '../base/labels.ts';
import type { StackPartProps } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SKIP_DRY_RUN, SYNC_WAVE } from '../base/gitops.ts';
import { METRICS_PORT_NAME, METRICS_SERVICE_LABEL, VIEW_SERVICE_LABEL } from '../base/metrics-service.ts';

export interface ServiceMonitorProps {
  /** Emit the metrics Services and the ServiceMonitor; default false. */
  readonly enabled: boolean;
  /**
   * Scrape interval.
   * @default "30s"
   */
  readonly interval?: string;
  /**
   * Labels the Prometheus instance selects ServiceMonitors by (e.g. release: prometheus).
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

/**
 * The relabeling that gives every series of a view's servers a `view` label (dashboards and
 * alerts group by it); targets without the Service label (etcd, controller) get none.
 */
export const VIEW_RELABELING = {
  sourceLabels: [`__meta_kubernetes_service_label_${VIEW_SERVICE_LABEL.replace(/[^a-zA-Z0-9_]/g, '_')}`],
  targetLabel: 'view',
} as const;

export class ServiceMonitor extends StackPart {
  constructor(scope: Construct, id: string, props: ServiceMonitorProps & StackPartProps) {
    const { stack, version } = props;
    super(scope, id, stack, { component: 'monitoring', version, wave: SYNC_WAVE.workloads, labels: props.labels });
    new ApiObject(this, 'resource', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: this.meta(stack.name, { annotations: SKIP_DRY_RUN }),
      spec: {
        selector: { matchLabels: { [LABEL_NAME]: stack.name, [METRICS_SERVICE_LABEL]: 'true' } },
        endpoints: [
          {
            port: METRICS_PORT_NAME,
            path: '/metrics',
            interval: props.interval ?? '30s',
            relabelings: [VIEW_RELABELING],
          },
        ],
      },
    });
  }
}
