// The base of every construct that makes objects of a stack, as cdk8s-plus's Resource is of its
// Workload: it knows the stack and whose objects it makes (their component, version, sync wave
// and labels), and writes every object's metadata by the one rule in `meta`.
import { Construct } from 'constructs';
import type { k8s } from 'cdk8s-plus-27';
import { SYNC_WAVE_ANNOTATION } from './gitops.ts';
import { recommendedLabels } from './labels.ts';
import type { StackContext } from './stack-context.ts';

/** What every object of a part starts from. */
export interface PartIdentity {
  /** The app.kubernetes.io/component label. */
  readonly component: string;
  /** app.kubernetes.io/version: the version of the image the component runs. */
  readonly version: string;
  /** The Argo CD sync wave (see gitops.ts's SYNC_WAVE). */
  readonly wave: number;
  /**
   * The user's extra labels.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

/** Where one object differs from its part. */
export interface ObjectOverrides {
  /**
   * False for cluster-scoped kinds (Namespace, ClusterRole, ClusterRoleBinding, CRD).
   * @default true
   */
  readonly namespaced?: boolean;
  /**
   * Another sync wave than the part's.
   * @default - the part's
   */
  readonly wave?: number;
  /**
   * Labels in place of the part's.
   * @default - the part's
   */
  readonly labels?: Record<string, string>;
  /**
   * The object's annotations (the sync wave's is added).
   * @default - none
   */
  readonly annotations?: Record<string, string>;
}

export abstract class StackPart extends Construct {
  readonly #stack: StackContext;
  readonly #identity: PartIdentity;

  protected constructor(scope: Construct, id: string, stack: StackContext, identity: PartIdentity) {
    super(scope, id);
    this.#stack = stack;
    this.#identity = identity;
  }

  /**
   * The metadata of the part's object `name`: in the stack's namespace unless cluster-scoped, the
   * recommended labels with the user's, its annotations and, with sync waves on, its wave.
   */
  meta(name: string, object: ObjectOverrides = {}): k8s.ObjectMeta {
    const stack = this.#stack;
    const { component, version } = this.#identity;
    const annotations = { ...object.annotations };
    if (stack.syncWaves) annotations[SYNC_WAVE_ANNOTATION] = String(object.wave ?? this.#identity.wave);
    return {
      name,
      ...(object.namespaced !== false ? { namespace: stack.namespace } : {}),
      labels: recommendedLabels(stack.name, component, version, object.labels ?? this.#identity.labels),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    };
  }
}
