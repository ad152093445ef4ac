// Opt-in Prometheus Operator scraping: one ClusterIP metrics Service per component and one
// ServiceMonitor selecting them all. The ServiceMonitor needs a CRD, so it carries Argo CD's
// SkipDryRunOnMissingResource (a first sync before the CRD exists does not fail). It names no
// namespace: without a namespaceSelector the Prometheus Operator looks in the ServiceMonitor's
// own, wherever a namespace overlay puts it.
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { LABEL_NAME } from '../base/labels.ts';
import { SYNC_WAVE, objectMeta, type StackContext } from '../base/stack-context.ts';

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

/** Label that marks metrics Services; the ServiceMonitor selects on it. */
export const METRICS_SERVICE_LABEL = 'etcdns.io/metrics';
/** Label of a DNS server's metrics Service naming its view; the ServiceMonitor copies it to `view`. */
export const VIEW_SERVICE_LABEL = 'etcdns.io/view';
/**
 * The relabeling that gives every series of a view's servers a `view` label (dashboards and
 * alerts group by it); targets without the Service label (etcd, controller) get none.
 */
export const VIEW_RELABELING = {
  sourceLabels: [`__meta_kubernetes_service_label_${VIEW_SERVICE_LABEL.replace(/[^a-zA-Z0-9_]/g, '_')}`],
  targetLabel: 'view',
} as const;
export const METRICS_PORT_NAME = 'metrics';
export const SKIP_DRY_RUN = { 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' };

export interface MetricsServiceProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** Service name, conventionally `<workload>-metrics`. */
  readonly name: string;
  /** app.kubernetes.io/component and version of the Service. */
  readonly component: string;
  /** app.kubernetes.io/version: the image tag. */
  readonly version: string;
  /** Argo CD sync wave of the component. */
  readonly wave: number;
  /** The component's fixed pod selector. */
  readonly selector: Record<string, string>;
  /** Service port of /metrics. */
  readonly port: number;
  /** Name of the container port serving /metrics. */
  readonly targetPort: string;
  /**
   * Extra labels.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

/** A ClusterIP Service in front of a component's metrics port. */
export function metricsService(scope: Construct, id: string, props: MetricsServiceProps): k8s.KubeService {
  return new k8s.KubeService(scope, id, {
    metadata: objectMeta(props.stack, {
      name: props.name,
      component: props.component,
      version: props.version,
      namespaced: true,
      wave: props.wave,
      labels: { ...props.labels, [METRICS_SERVICE_LABEL]: 'true' },
    }),
    spec: {
      type: 'ClusterIP',
      selector: props.selector,
      ports: [
        {
          name: METRICS_PORT_NAME,
          port: props.port,
          targetPort: k8s.IntOrString.fromString(props.targetPort),
          protocol: 'TCP',
        },
      ],
    },
  });
}

export class ServiceMonitor extends Construct {
  constructor(scope: Construct, id: string, stack: StackContext, version: string, props: ServiceMonitorProps) {
    super(scope, id);
    new ApiObject(this, 'resource', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: objectMeta(stack, {
        name: stack.name,
        component: 'monitoring',
        version,
        namespaced: true,
        wave: SYNC_WAVE.workloads,
        labels: props.labels,
        annotations: SKIP_DRY_RUN,
      }),
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
