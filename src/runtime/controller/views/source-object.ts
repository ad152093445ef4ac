// What views know about the object a record came from: its kind, namespace, ingress class,
// labels and annotations, found by the record's object.
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import { resourceId, type ObjectRef } from '../desired-record.ts';
import type { ClusterSnapshot } from '../sources/cluster-snapshot.ts';
import { ingressClassOf } from '../sources/ingress-source.ts';

export interface SourceObject {
  ref: ObjectRef;
  /** "service" or "ingress", as in rules' `kinds`. */
  kind: string;
  namespace: string;
  ingressClass?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Every Service and Ingress of the snapshot by resource id. */
export function sourceObjects(snapshot: Pick<ClusterSnapshot, 'services' | 'ingresses'>): Map<string, SourceObject> {
  const out = new Map<string, SourceObject>();
  const add = (obj: V1Service | V1Ingress, ref: ObjectRef, ingressClass: string | undefined) => {
    out.set(resourceId(ref), {
      ref,
      kind: ref.kind.toLowerCase(),
      namespace: ref.namespace,
      ...(ingressClass !== undefined ? { ingressClass } : {}),
      labels: obj.metadata?.labels ?? {},
      annotations: obj.metadata?.annotations ?? {},
    });
  };
  for (const svc of snapshot.services) {
    if (svc.metadata?.name) add(svc, objectRef('Service', 'v1', svc), undefined);
  }
  for (const ing of snapshot.ingresses) {
    if (ing.metadata?.name) add(ing, objectRef('Ingress', 'networking.k8s.io/v1', ing), ingressClassOf(ing));
  }
  return out;
}

function objectRef(kind: ObjectRef['kind'], apiVersion: string, obj: V1Service | V1Ingress): ObjectRef {
  const meta = obj.metadata!;
  return {
    kind,
    apiVersion,
    namespace: meta.namespace ?? 'default',
    name: meta.name!,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
}

/** The record's object as the snapshot has it, or a stand-in known only by its reference. */
export function sourceOf(sources: ReadonlyMap<string, SourceObject>, ref: ObjectRef): SourceObject {
  return (
    sources.get(resourceId(ref)) ?? {
      ref,
      kind: ref.kind.toLowerCase(),
      namespace: ref.namespace,
      labels: {},
      annotations: {},
    }
  );
}
