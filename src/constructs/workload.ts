// What every pod of the stack has in common, and the props users tune per component:
// image, resources, scheduling, priority class, security context, extra labels/annotations.
// Resources are always explicit, containers run restricted (non-root, read-only root, no
// capabilities), and list-valued fields are built in a sorted order.
import { k8s } from 'cdk8s-plus-27';
import { CONFIG_HASH_ANNOTATION, configHash } from './config-file.ts';
import { imageProblems, type ImageRef } from './image.ts';
import { CPU, MAX_ID, MEMORY, intProblem, k8sName, mapProblems, oneOf, show } from './kubernetes-rules.ts';
import { LABEL_COMPONENT, LABEL_NAME } from './labels.ts';

/** Kubernetes quantities, e.g. cpu "100m", memory "128Mi"; a field left out keeps the component's default. */
export interface ResourceProps {
  /**
   * Requests (what the scheduler reserves).
   * @default - the component's requests
   */
  readonly requests?: {
    /**
     * CPU request.
     * @default - the component's
     */
    readonly cpu?: string;
    /**
     * Memory request.
     * @default - the component's
     */
    readonly memory?: string;
  };
  /**
   * Limits.
   * @default - the component's limits (memory only)
   */
  readonly limits?: {
    /**
     * CPU limit.
     * @default - none (no CPU throttling)
     */
    readonly cpu?: string;
    /**
     * Memory limit.
     * @default - the component's
     */
    readonly memory?: string;
  };
}

export interface WorkloadProps {
  /**
   * Container image.
   * @default - the component's entry in DEFAULT_IMAGES
   */
  readonly image?: ImageRef;
  /**
   * When the kubelet pulls the image; "Never" runs only what the node already has (no registry).
   * @default "IfNotPresent" (tags are pinned and never "latest": a pulled tag does not change)
   */
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /**
   * Requests and limits, merged field by field over the component's defaults. No CPU limit by
   * default: CPU throttling shows up as DNS latency.
   * @default - the component's (see its construct)
   */
  readonly resources?: ResourceProps;
  /**
   * Node labels the pods must match (spec.nodeSelector).
   * @default - none
   */
  readonly nodeSelector?: Record<string, string>;
  /**
   * Tolerations of the pods.
   * @default - none
   */
  readonly tolerations?: k8s.Toleration[];
  /**
   * PriorityClass of the pods.
   * @default - none (the cluster's default priority)
   */
  readonly priorityClassName?: string;
  /**
   * Numeric identity of the pod; the rest is fixed to "restricted".
   * @default - see the fields below
   */
  readonly securityContext?: {
    /**
     * Non-root user id.
     * @default - the component's (1000 for etcdns, 65532 for etcd)
     */
    readonly runAsUser?: number;
    /**
     * Primary group id.
     * @default - the component's (1000 for etcdns, 65532 for etcd)
     */
    readonly runAsGroup?: number;
    /**
     * Group owning mounted volumes and Secret files.
     * @default - the component's (1000 for etcdns, 65532 for etcd)
     */
    readonly fsGroup?: number;
  };
  /**
   * Extra labels on every object of the component; never part of a selector.
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * Extra annotations on the component's pods.
   * @default - none
   */
  readonly podAnnotations?: Record<string, string>;
}

export interface PodIdentity {
  runAsUser: number;
  runAsGroup: number;
  fsGroup?: number;
}

export function podSecurityContext(props: WorkloadProps, defaults: PodIdentity): k8s.PodSecurityContext {
  const user = { ...defaults, ...props.securityContext };
  return {
    runAsNonRoot: true,
    runAsUser: user.runAsUser,
    runAsGroup: user.runAsGroup,
    ...(user.fsGroup !== undefined ? { fsGroup: user.fsGroup } : {}),
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export const imagePullPolicy = (props: WorkloadProps) => props.imagePullPolicy ?? 'IfNotPresent';

/** The "restricted" Pod Security Standard for a container. */
export const RESTRICTED_CONTAINER: k8s.SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
};

export function resourceRequirements(props: WorkloadProps, defaults: ResourceProps): k8s.ResourceRequirements {
  const quantities = (q: { cpu?: string; memory?: string }) =>
    Object.fromEntries(
      Object.entries(q)
        .filter((e): e is [string, string] => e[1] !== undefined)
        .map(([k, v]) => [k, k8s.Quantity.fromString(v)]),
    );
  return {
    requests: quantities({ ...defaults.requests, ...props.resources?.requests }),
    limits: quantities({ ...defaults.limits, ...props.resources?.limits }),
  };
}

/** Pod-level scheduling fields shared by all components. */
export function scheduling(props: WorkloadProps): Partial<k8s.PodSpec> {
  return {
    ...(props.nodeSelector ? { nodeSelector: props.nodeSelector } : {}),
    ...(props.tolerations ? { tolerations: props.tolerations } : {}),
    ...(props.priorityClassName ? { priorityClassName: props.priorityClassName } : {}),
  };
}

export type AntiAffinity = 'required' | 'preferred' | 'none';

/** Spread the pods of one selector across nodes. */
export function nodeAntiAffinity(mode: AntiAffinity, matchLabels: Record<string, string>): k8s.Affinity | undefined {
  const term: k8s.PodAffinityTerm = { labelSelector: { matchLabels }, topologyKey: 'kubernetes.io/hostname' };
  if (mode === 'none') return undefined;
  if (mode === 'required') return { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } };
  return {
    podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] },
  };
}

/** Environment variables from a map, sorted by name; `fieldRef` values come from the pod. */
export function sortedEnv(vars: Record<string, string | { fieldPath: string }>): k8s.EnvVar[] {
  return Object.keys(vars)
    .sort()
    .map((name) => {
      const v = vars[name]!;
      return typeof v === 'string' ? { name, value: v } : { name, valueFrom: { fieldRef: { fieldPath: v.fieldPath } } };
    });
}

/** A writable /tmp for containers with a read-only root filesystem. */
export const TMP_VOLUME: k8s.Volume = { name: 'tmp', emptyDir: {} };
export const TMP_MOUNT: k8s.VolumeMount = { name: 'tmp', mountPath: '/tmp' };

/** A probe on the etcdns HTTP port (named "http"): /healthz for liveness, /readyz for readiness. */
export function httpProbe(path: string, failureThreshold: number): k8s.Probe {
  return {
    httpGet: { path, port: k8s.IntOrString.fromString('http'), scheme: 'HTTP' },
    periodSeconds: 10,
    timeoutSeconds: 2,
    failureThreshold,
  };
}

/**
 * Pod annotations of an etcdns component: the user's, the hash of its rendered config (so the
 * pods roll exactly when the config changes) and, when asked, Prometheus's scrape hints.
 */
export function runtimePodAnnotations(
  props: { podAnnotations?: Record<string, string>; prometheusAnnotations: boolean; httpPort: number },
  configText: string,
): Record<string, string> {
  return {
    ...props.podAnnotations,
    [CONFIG_HASH_ANNOTATION]: configHash(configText),
    ...(props.prometheusAnnotations
      ? {
          'prometheus.io/path': '/metrics',
          'prometheus.io/port': String(props.httpPort),
          'prometheus.io/scrape': 'true',
        }
      : {}),
  };
}

export function workloadProblems(props: WorkloadProps, path: string): string[] {
  const problems: string[] = [];
  if (props.image) problems.push(...imageProblems(props.image, `${path}.image`));
  problems.push(...oneOf(props.imagePullPolicy, `${path}.imagePullPolicy`, ['Always', 'IfNotPresent', 'Never']));
  for (const side of ['requests', 'limits'] as const) {
    const q = props.resources?.[side];
    if (q?.cpu !== undefined && !CPU.test(q.cpu))
      problems.push(
        `${path}.resources.${side}.cpu: must be a CPU quantity such as "100m" or "0.5" (got ${show(q.cpu)})`,
      );
    if (q?.memory !== undefined && !MEMORY.test(q.memory))
      problems.push(
        `${path}.resources.${side}.memory: must be a memory quantity such as "128Mi" or "1Gi" (got ${show(q.memory)})`,
      );
  }
  const sc = props.securityContext;
  problems.push(
    ...intProblem(sc?.runAsUser, `${path}.securityContext.runAsUser`, 1, MAX_ID, 'a non-root user id'),
    ...intProblem(sc?.runAsGroup, `${path}.securityContext.runAsGroup`, 0, MAX_ID, 'a group id'),
    ...intProblem(sc?.fsGroup, `${path}.securityContext.fsGroup`, 0, MAX_ID, 'a group id'),
    ...k8sName(props.priorityClassName, `${path}.priorityClassName`, 'subdomain', 253),
    ...mapProblems(props.labels, `${path}.labels`, true),
    ...mapProblems(props.podAnnotations, `${path}.podAnnotations`, false),
    ...mapProblems(props.nodeSelector, `${path}.nodeSelector`, true),
  );
  for (const reserved of [LABEL_NAME, LABEL_COMPONENT])
    if (props.labels && reserved in props.labels)
      problems.push(`${path}.labels: may not set ${show(reserved)}: it is part of the fixed selector`);
  return problems;
}
