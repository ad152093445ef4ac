// Annotations that keep Argo CD and Flux from ever deleting an object they apply: neither when it
// leaves the manifests (pruning) nor with the Application or Kustomization that applied it. The
// Namespace carries them: deleting it deletes etcd's PersistentVolumeClaims, and the records.
export const PRUNE_PROTECTION = {
  // Argo CD: Prune=false skips it when pruning, Delete=false keeps it when the Application goes.
  'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
  // Flux: left out of garbage collection, also when the Kustomization is deleted.
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
} as const;
