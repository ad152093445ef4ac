// What every pod of the stack has in common, and the props users tune per component:
// image, resources, scheduling, priority class, security context, extra labels/annotations.
// Resources are always explicit (CPU and memory, and ephemeral storage: container logs and
// emptyDirs count against it, and a pod without it is evicted first under disk pressure),
// containers run restricted (non-root, read-only root, no capabilities) as a user that is no
// login user of a node, every emptyDir has a size limit, and list-valued fields are built in a
// sorted order.
import { k8s } from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import { CONFIG_HASH_ANNOTATION, configHash } from './config-file.ts';
import { imageProblems, type ImageRef } from './image.ts';
import { CPU, MAX_ID, MEMORY, intProblem, k8sName, mapProblems, oneOf, show } from './kubernetes-rules.ts';
import { LABEL_COMPONENT, LABEL_NAME } from './labels.ts';

/**
 * Kubernetes quantities, e.g. cpu "100m", memory "128Mi", ephemeralStorage "256Mi"; a field left
 * out keeps the component's default.
 */
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
    /**
     * Ephemeral-storage request (container logs, emptyDirs).
     * @default - the component's (64Mi)
     */
    readonly ephemeralStorage?: string;
  };
  /**
   * Limits.
   * @default - the component's limits (memory and ephemeral storage; no CPU limit)
   */
  readonly limits?: {
    /**
     * CPU limit.
     * @default - none (no CPU throttling: it shows up as DNS latency)
     */
    readonly cpu?: string;
    /**
     * Memory limit.
     * @default - the component's
     */
    readonly memory?: string;
    /**
     * Ephemeral-storage limit: the kubelet evicts a pod whose logs and emptyDirs outgrow the sum
     * of its containers' limits. Keep it above the kubelet's log rotation (5 files of 10Mi by
     * default) plus the component's emptyDirs.
     * @default - the component's
     */
    readonly ephemeralStorage?: string;
  };
}

/** A writable /tmp, for components whose root file system is read-only. */
export interface TmpVolumeProps {
  /**
   * Size limit of the /tmp emptyDir; a pod writing more is evicted.
   * @default "64Mi"
   */
  readonly tmpSizeLimit?: string;
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
     * @default 65532 (no login user of a node; the image's user)
     */
    readonly runAsUser?: number;
    /**
     * Primary group id.
     * @default 65532
     */
    readonly runAsGroup?: number;
    /**
     * Group owning mounted volumes and Secret files.
     * @default 65532
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

/**
 * Who every container of the stack runs as: 65532, distroless's "nonroot", is no login user of
 * a node (1000 usually is the first one), and the user of the etcdns image (Dockerfile). The
 * etcd image has no user of its own: any id works there with fsGroup.
 */
export const NONROOT_IDENTITY = { runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 } as const;

export function podSecurityContext(
  props: WorkloadProps,
  defaults: PodIdentity = NONROOT_IDENTITY,
): k8s.PodSecurityContext {
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

/** Kubernetes's resource names of the props' fields. */
const RESOURCE_NAMES = { cpu: 'cpu', memory: 'memory', ephemeralStorage: 'ephemeral-storage' } as const;
type Quantities = { [field in keyof typeof RESOURCE_NAMES]?: string };

export function resourceRequirements(props: WorkloadProps, defaults: ResourceProps): k8s.ResourceRequirements {
  const quantities = (q: Quantities) =>
    Object.fromEntries(
      (Object.keys(RESOURCE_NAMES) as (keyof Quantities)[])
        .filter((field) => q[field] !== undefined)
        .map((field) => [RESOURCE_NAMES[field], k8s.Quantity.fromString(q[field]!)]),
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

/** How the replicas of a Deployment stay available through node drains. */
export interface ReplicaSpreadProps {
  /**
   * PodDisruptionBudget allowing one pod down at a time.
   * @default - on
   */
  readonly podDisruptionBudget?: boolean;
  /**
   * Spread pods across nodes.
   * @default "preferred"
   */
  readonly antiAffinity?: AntiAffinity;
}

export const REPLICA_SPREAD_DEFAULTS = { antiAffinity: 'preferred' } as const satisfies ReplicaSpreadProps;

/**
 * Replicas kept apart and available, the one rule of the DNS servers and the controller: pods
 * spread across nodes ("preferred" unless told) and at most one down at a time under voluntary
 * disruptions (a PodDisruptionBudget, made here in `scope`). Returns the pods' affinity.
 */
export function spreadReplicas(
  scope: Construct,
  props: ReplicaSpreadProps,
  metadata: k8s.ObjectMeta,
  matchLabels: Record<string, string>,
): k8s.Affinity | undefined {
  if (props.podDisruptionBudget !== false)
    new k8s.KubePodDisruptionBudget(scope, 'pdb', {
      metadata,
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels } },
    });
  return nodeAntiAffinity(props.antiAffinity ?? REPLICA_SPREAD_DEFAULTS.antiAffinity, matchLabels);
}

export function replicaSpreadProblems(p: ReplicaSpreadProps, path: string): string[] {
  return [
    ...oneOf(p.antiAffinity, `${path}.antiAffinity`, ['required', 'preferred', 'none']),
    ...(p.podDisruptionBudget !== undefined && typeof p.podDisruptionBudget !== 'boolean'
      ? [`${path}.podDisruptionBudget: must be true or false (got ${show(p.podDisruptionBudget)})`]
      : []),
  ];
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

/** The requests and limits of the short-lived etcdns helpers: etcd's member helper, the etcd-roles Job. */
export const HELPER_RESOURCES: k8s.ResourceRequirements = {
  requests: {
    cpu: k8s.Quantity.fromString('10m'),
    memory: k8s.Quantity.fromString('64Mi'),
    'ephemeral-storage': k8s.Quantity.fromString('16Mi'),
  },
  // Their logs are short; 64Mi holds the kubelet's rotated log files too.
  limits: { memory: k8s.Quantity.fromString('256Mi'), 'ephemeral-storage': k8s.Quantity.fromString('64Mi') },
};

export const TMP_DEFAULTS = { sizeLimit: '64Mi' } as const;

/** A writable /tmp for containers with a read-only root filesystem, bounded. */
export function tmpVolume(props: TmpVolumeProps): k8s.Volume {
  return {
    name: 'tmp',
    emptyDir: { sizeLimit: k8s.Quantity.fromString(props.tmpSizeLimit ?? TMP_DEFAULTS.sizeLimit) },
  };
}
export const TMP_MOUNT: k8s.VolumeMount = { name: 'tmp', mountPath: '/tmp' };

/** Problems of a size limit (of an emptyDir), naming the field. */
export function sizeProblems(value: unknown, path: string): string[] {
  return value === undefined || (typeof value === 'string' && MEMORY.test(value))
    ? []
    : [`${path}: must be a storage quantity such as "64Mi" (got ${show(value)})`];
}

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
    problems.push(...sizeProblems(q?.ephemeralStorage, `${path}.resources.${side}.ephemeralStorage`));
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
