// What views know about the object a record came from: its kind, namespace, ingress class,
// labels and annotations, found by the record's object.
import { apiVersionOf, sourceOfKind } from '../../../config/source-kinds.ts';
import { resourceId, type ObjectRef } from '../desired-record.ts';
import { snapshotObjects, type ClusterObject, type ClusterSnapshot } from '../sources/cluster-snapshot.ts';
import { ingressClassOf } from '../sources/ingress-source.ts';

export interface SourceObject {
  ref: ObjectRef;
  /** The kind in lower case ("service", "ingress", "httproute", "dnsendpoint"), as in rules' `kinds`. */
  kind: string;
  namespace: string;
  ingressClass?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** What views know of one object, with its resource id; undefined for an object without a name. */
export function sourceObjectOf(o: ClusterObject): { id: string; source: SourceObject } | undefined {
  const meta = o.object.metadata;
  if (!meta?.name) return undefined;
  const ref: ObjectRef = {
    kind: o.kind,
    apiVersion: o.object.apiVersion ?? apiVersionOf(sourceOfKind(o.kind).api),
    namespace: meta.namespace ?? 'default',
    name: meta.name,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
  const ingressClass = o.kind === 'Ingress' ? ingressClassOf(o.object) : undefined;
  return {
    id: resourceId(ref),
    source: {
      ref,
      kind: o.kind.toLowerCase(),
      namespace: ref.namespace,
      ...(ingressClass !== undefined ? { ingressClass } : {}),
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
    },
  };
}

/** Every source object of the snapshot by resource id. */
export function sourceObjects(snapshot: Partial<ClusterSnapshot>): Map<string, SourceObject> {
  const out = new Map<string, SourceObject>();
  for (const o of snapshotObjects(snapshot)) {
    const view = sourceObjectOf(o);
    if (view) out.set(view.id, view.source);
  }
  return out;
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
