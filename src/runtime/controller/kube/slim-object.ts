// What the caches keep of a Kubernetes object: the sources read metadata (name, namespace, uid,
// labels, annotations), spec and status. Bookkeeping that can be larger than the rest together
// (managedFields, kubectl's last-applied copy, a node's image list) is dropped, in place.
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

interface Slimmable {
  metadata?: { managedFields?: unknown; annotations?: Record<string, string> };
  status?: { images?: unknown };
}

export function slimObject<T>(obj: T): T {
  const o = obj as Slimmable;
  if (o.metadata) {
    delete o.metadata.managedFields;
    if (o.metadata.annotations?.[LAST_APPLIED] !== undefined) delete o.metadata.annotations[LAST_APPLIED];
  }
  if (o.status?.images !== undefined) delete o.status.images;
  return obj;
}
