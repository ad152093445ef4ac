// What every construct of a stack shares: its name, its namespace and the GitOps switches, and
// the one function that writes object metadata from them.
import type { k8s } from 'cdk8s-plus-27';
import { recommendedLabels } from './labels.ts';

export interface StackContext {
  /** Stack name: the prefix of every object name and the app.kubernetes.io/name label. */
  name: string;
  /** Namespace of every namespaced object. */
  namespace: string;
  /** Annotate objects with Argo CD sync waves (see SYNC_WAVE). */
  syncWaves: boolean;
}

/**
 * Argo CD sync order: CustomResourceDefinitions (before any object of their kinds), the Namespace,
 * the Secrets' sources (Certificates, ExternalSecrets), etcd, the workloads, and the DNS
 * LoadBalancer last (Argo CD shows it Progressing until it has an address).
 */
export const SYNC_WAVE = { definitions: -3, namespace: -2, secrets: -1, etcd: 0, workloads: 1, dnsService: 2 } as const;

export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

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
