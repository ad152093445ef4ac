// Every annotation the stack writes for Argo CD and Flux, and the ordering they give: the sync
// waves, the dry-run skip of custom resources, the Namespace's prune protection, and the CRDs'
// first wave, independent of which construct made them.
import { ApiObject } from 'cdk8s';
import type { IConstruct } from 'constructs';

/**
 * Argo CD sync order: CustomResourceDefinitions (before any object of their kinds), the Namespace,
 * the Secrets' sources (Certificates, ExternalSecrets), etcd, the workloads, and the DNS
 * LoadBalancer last (Argo CD shows it Progressing until it has an address).
 */
export const SYNC_WAVE = { definitions: -3, namespace: -2, secrets: -1, etcd: 0, workloads: 1, dnsService: 2 } as const;

export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/**
 * On a custom resource whose CRD may not exist yet: Argo CD skips its dry run, so a first sync
 * before the CRD exists does not fail.
 */
export const SKIP_DRY_RUN = { 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' };

// Annotations that keep Argo CD and Flux from ever deleting an object they apply: neither when it
// leaves the manifests (pruning) nor with the Application or Kustomization that applied it. The
// Namespace carries them: deleting it deletes etcd's PersistentVolumeClaims, and the records.
export const PRUNE_PROTECTION = {
  // Argo CD: Prune=false skips it when pruning, Delete=false keeps it when the Application goes.
  'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
  // Flux: left out of garbage collection, also when the Kustomization is deleted.
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
} as const;

// Ordering that does not depend on which construct made an object: a CustomResourceDefinition of
// the stack goes into the first Argo CD sync wave, so that a custom resource of its kind in the
// same dist/<env>/ folder, whatever its own wave, is applied after it on a first sync (Argo CD
// applies wave by wave and skips the dry run of a resource whose CRD is in the same sync).
// Flux needs nothing: kustomize-controller applies CRDs and Namespaces first and waits until they
// are established before it dry-runs and applies the rest.

/** Puts every CustomResourceDefinition under `scope` into the first sync wave (with sync waves on). */
export function orderDefinitionsFirst(scope: IConstruct, stack: { readonly syncWaves: boolean }): void {
  if (!stack.syncWaves) return;
  for (const c of scope.node.findAll()) {
    if (c instanceof ApiObject && c.kind === 'CustomResourceDefinition')
      c.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, String(SYNC_WAVE.definitions));
  }
}
