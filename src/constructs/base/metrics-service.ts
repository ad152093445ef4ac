// The ClusterIP Service in front of a component's metrics port, one per component (etcd, each
// view's servers, the controller): what a ServiceMonitor selects, by its label.
import { k8s } from 'cdk8s-plus-27';
import type { StackPart } from './stack-part.ts';

/** Label that marks metrics Services; the ServiceMonitor selects on it. */
export const METRICS_SERVICE_LABEL = 'etcdns.io/metrics';
/** Label of a DNS server's metrics Service naming its view; the ServiceMonitor copies it to `view`. */
export const VIEW_SERVICE_LABEL = 'etcdns.io/view';
export const METRICS_PORT_NAME = 'metrics';

export interface MetricsServiceProps {
  /** Service name, conventionally `<workload>-metrics`. */
  readonly name: string;
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

/** A ClusterIP Service in front of the metrics port of the component `part` makes. */
export function metricsService(part: StackPart, id: string, props: MetricsServiceProps): k8s.KubeService {
  return new k8s.KubeService(part, id, {
    metadata: part.meta(props.name, { labels: { ...props.labels, [METRICS_SERVICE_LABEL]: 'true' } }),
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
