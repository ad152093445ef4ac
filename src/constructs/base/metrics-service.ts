// The ClusterIP Service in front of a component's metrics port, one per component (etcd, each
// view's servers, the controller): what a ServiceMonitor selects, by its label.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { objectMeta, type StackContext } from './stack-context.ts';

/** Label that marks metrics Services; the ServiceMonitor selects on it. */
export const METRICS_SERVICE_LABEL = 'etcdns.io/metrics';
/** Label of a DNS server's metrics Service naming its view; the ServiceMonitor copies it to `view`. */
export const VIEW_SERVICE_LABEL = 'etcdns.io/view';
export const METRICS_PORT_NAME = 'metrics';

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
