// The base of the components that run the etcdns image as a long-running process (each view's
// DnsServer, the DnsController), as cdk8s-plus's Workload is the base of its Deployment: what
// they share is built here once, the object metadata of the component (a StackPart's, with the
// workloads' sync wave), its config file in a
// ConfigMap (hashed into the pod template), the `etcdns <command>` container with its HTTP port,
// probes, restricted security context and mounts, and the opt-in metrics Service.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { CONFIG_DIR, CONFIG_FILE, renderConfigFile } from './config-file.ts';
import { SYNC_WAVE } from './gitops.ts';
import { DEFAULT_IMAGES, imageReference, type ImageRef } from './image.ts';
import { podTemplateLabels, selectorLabels } from './labels.ts';
import { metricsService } from './metrics-service.ts';
import type { StackContext } from './stack-context.ts';
import { StackPart } from './stack-part.ts';
import {
  RESTRICTED_CONTAINER,
  TMP_MOUNT,
  httpProbe,
  imagePullPolicy,
  resourceRequirements,
  runtimePodAnnotations,
  tmpVolume,
  type ResourceProps,
  type TmpVolumeProps,
  type WorkloadProps,
} from './workload.ts';

/** What the stack hands each component that runs etcdns (each view's DNS server, the controller). */
export interface RuntimeComponentProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** Port of /healthz, /readyz and /metrics. */
  readonly httpPort: number;
  /** Add Prometheus scrape annotations to the pods. */
  readonly prometheusAnnotations: boolean;
  /** Emit a metrics Service for a ServiceMonitor. */
  readonly metricsService: boolean;
}

/** What the base is given by the component built on it. */
interface RuntimeComponentBaseProps extends RuntimeComponentProps, WorkloadProps, TmpVolumeProps {
  /** Name of the component's objects. */
  readonly name: string;
  /** Its app.kubernetes.io/component label. */
  readonly component: string;
}

/** The `etcdns` container of a component: what differs between them. */
export interface RuntimeContainerSpec {
  /** The etcdns subcommand, run with `--config <the ConfigMap's file>`. */
  readonly command: string;
  readonly env: k8s.EnvVar[];
  /** Ports besides "http". */
  readonly ports: k8s.ContainerPort[];
  /** Failed /readyz probes before the pod is taken out of its Services. */
  readonly readinessFailureThreshold: number;
  readonly resources: ResourceProps;
  /** Mounts besides the config file and /tmp. */
  readonly mounts: k8s.VolumeMount[];
}

export abstract class RuntimeComponent extends StackPart {
  /** Name of the component's objects: `<stack>-<part>`. */
  readonly name: string;
  /** The app.kubernetes.io/component label. */
  readonly component: string;
  /** The image its pods run. */
  readonly image: ImageRef;
  /** The fixed pod selector of the component. */
  readonly selector: Record<string, string>;
  readonly #props: RuntimeComponentBaseProps;

  protected constructor(scope: Construct, id: string, props: RuntimeComponentBaseProps) {
    const image = props.image ?? DEFAULT_IMAGES.etcdns;
    super(scope, id, props.stack, {
      component: props.component,
      version: image.tag,
      wave: SYNC_WAVE.workloads,
      labels: props.labels,
    });
    this.#props = props;
    this.name = props.name;
    this.component = props.component;
    this.image = image;
    this.selector = selectorLabels(props.stack.name, props.component);
  }

  /** Renders `config` into the component's ConfigMap; returns the file's text. */
  protected configMap(config: object): string {
    const text = renderConfigFile(config);
    new k8s.KubeConfigMap(this, 'config', { metadata: this.meta(this.name), data: { [CONFIG_FILE]: text } });
    return text;
  }

  /** The pod template's metadata: the labels without the version, and the config's hash. */
  protected podMetadata(configText: string): k8s.ObjectMeta {
    return {
      labels: podTemplateLabels(this.meta(this.name).labels),
      annotations: runtimePodAnnotations(this.#props, configText),
    };
  }

  /** The `etcdns <command>` container, named after its command. */
  protected runtimeContainer(spec: RuntimeContainerSpec): k8s.Container {
    const props = this.#props;
    return {
      name: spec.command,
      image: imageReference(this.image),
      imagePullPolicy: imagePullPolicy(props),
      args: [spec.command, '--config', `${CONFIG_DIR}/${CONFIG_FILE}`],
      env: spec.env,
      ports: [...spec.ports, { name: 'http', containerPort: props.httpPort, protocol: 'TCP' }],
      livenessProbe: httpProbe('/healthz', 3),
      readinessProbe: httpProbe('/readyz', spec.readinessFailureThreshold),
      resources: resourceRequirements(props, spec.resources),
      securityContext: RESTRICTED_CONTAINER,
      volumeMounts: [{ name: 'config', mountPath: CONFIG_DIR, readOnly: true }, TMP_MOUNT, ...spec.mounts].sort(
        (a, b) => a.name.localeCompare(b.name),
      ),
    };
  }

  /** The pod's volumes: the config file, /tmp and `extra`. */
  protected runtimeVolumes(extra: k8s.Volume[]): k8s.Volume[] {
    return [{ name: 'config', configMap: { name: this.name } }, tmpVolume(this.#props), ...extra].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  /** The metrics Service in front of the "http" port, when the stack asks for one. */
  protected addMetricsService(labels: Record<string, string> | undefined): void {
    const props = this.#props;
    if (!props.metricsService) return;
    metricsService(this, 'metrics-service', {
      name: `${this.name}-metrics`,
      selector: this.selector,
      port: props.httpPort,
      targetPort: 'http',
      labels,
    });
  }
}
