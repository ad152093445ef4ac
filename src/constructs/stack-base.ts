// What a DnsStack and a SpokeStack both start with: their props checked (and no chart namespace),
// the stack's name, namespace and GitOps switches, and the Namespace object, protected from
// pruning (with it would go etcd's volumes) unless opted out.
import { Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { assertNoProblems } from './base/kubernetes-rules.ts';
import { PRUNE_PROTECTION, SYNC_WAVE } from './base/gitops.ts';
import type { StackContext, StackPartProps } from './base/stack-context.ts';
import { StackPart } from './base/stack-part.ts';

export interface NamespaceProps {
  /**
   * Namespace of every namespaced object.
   * @default "etcdns"
   */
  readonly name?: string;
  /**
   * Emit the Namespace object. Turn off when Argo CD or Flux creates it. Careful: when a GitOps tool prunes a
   * Namespace it owns, etcd's volumes go with it.
   * @default true
   */
  readonly create?: boolean;
  /**
   * Annotate the emitted Namespace so that Argo CD and Flux never delete it, neither by pruning nor with
   * their Application or Kustomization (see base/gitops.ts). Turn off only if deleting the Namespace,
   * etcd's volumes and every record with it, is intended.
   * @default true
   */
  readonly pruneProtection?: boolean;
  /**
   * Labels of the Namespace object. Given labels replace the default.
   * @default - Pod Security "restricted" enforced (every pod of the stack complies)
   */
  readonly labels?: Record<string, string>;
}

/** The default stack name. */
export const STACK_NAME = 'etcdns';

export const NAMESPACE_DEFAULTS = {
  name: 'etcdns',
  labels: { 'pod-security.kubernetes.io/enforce': 'restricted' },
} as const;

/** The Namespace, unless `create` is false. */
export class StackNamespace extends StackPart {
  constructor(
    scope: Construct,
    id: string,
    props: StackPartProps & { readonly namespace: NamespaceProps | undefined },
  ) {
    const { stack, version, namespace: ns } = props;
    super(scope, id, stack, {
      component: 'namespace',
      version,
      wave: SYNC_WAVE.namespace,
      labels: ns?.labels ?? NAMESPACE_DEFAULTS.labels,
    });
    if (ns?.create === false) return;
    new k8s.KubeNamespace(this, 'namespace', {
      metadata: this.meta(stack.namespace, {
        namespaced: false,
        ...(ns?.pruneProtection !== false ? { annotations: PRUNE_PROTECTION } : {}),
      }),
    });
  }
}

/**
 * Fails synth with every problem of the props, and with a chart-level namespace (it would also
 * land on the ClusterRole and ClusterRoleBinding); else the stack's context.
 */
export function stackContext(
  scope: Construct,
  props: { name?: string; namespace?: NamespaceProps; gitops?: { syncWaves?: boolean } },
  problems: string[],
): StackContext {
  const chartNamespace = Chart.of(scope).namespace;
  assertNoProblems([
    ...problems,
    ...(chartNamespace !== undefined
      ? [`the chart's namespace (${JSON.stringify(chartNamespace)}): must not be set; use namespace.name`]
      : []),
  ]);
  return {
    name: props.name ?? STACK_NAME,
    namespace: props.namespace?.name ?? NAMESPACE_DEFAULTS.name,
    syncWaves: props.gitops?.syncWaves ?? false,
  };
}
