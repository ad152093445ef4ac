// What every construct of a stack shares: its name, its namespace and the GitOps switches, and
// the one function that writes object metadata from them.
import type { k8s } from 'cdk8s-plus-27';
import { SYNC_WAVE_ANNOTATION } from './gitops.ts';
import { recommendedLabels } from './labels.ts';

export interface StackContext {
  /** Stack name: the prefix of every object name and the app.kubernetes.io/name label. */
  name: string;
  /** Namespace of every namespaced object. */
  namespace: string;
  /** Annotate objects with Argo CD sync waves (see gitops.ts's SYNC_WAVE). */
  syncWaves: boolean;
}

/** What a construct of the stack is given besides its own settings. */
export interface StackPartProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** app.kubernetes.io/version of its objects: the version of the image the stack runs. */
  readonly version: string;
}

export interface ObjectIdentity {
  name: string;
  component: string;
  /** app.kubernetes.io/version: the version of the image the component runs. */
  version: string;
  /** False for cluster-scoped kinds (Namespace, ClusterRole, ClusterRoleBinding). */
  namespaced: boolean;
  wave: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function objectMeta(stack: StackContext, id: ObjectIdentity): k8s.ObjectMeta {
  const annotations = { ...id.annotations };
  if (stack.syncWaves) annotations[SYNC_WAVE_ANNOTATION] = String(id.wave);
  return {
    name: id.name,
    ...(id.namespaced ? { namespace: stack.namespace } : {}),
    labels: recommendedLabels(stack.name, id.component, id.version, id.labels),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}
