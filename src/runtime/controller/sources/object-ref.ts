// The reference a source's records and problems carry: the object's kind, API version, namespace
// (empty for cluster-scoped kinds, such as Nodes), name and uid.
import { objectNamespace, type ObjectKind } from '../../../config/source-kinds.ts';
import type { ObjectRef } from '../desired-record.ts';

/** The metadata the sources read of any object. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The object's reference, or undefined when it has no name (nothing to publish or report). */
export function objectRef(kind: ObjectKind, apiVersion: string, meta: ObjectMeta | undefined): ObjectRef | undefined {
  if (!meta?.name) return undefined;
  return {
    kind,
    apiVersion,
    namespace: objectNamespace(kind, meta.namespace),
    name: meta.name,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
}
