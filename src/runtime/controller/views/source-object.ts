// What views know about the object a record came from: its kind, namespace, ingress class,
// labels and annotations, found by the record's object.
import {
  apiVersionOf,
  kubernetesKind,
  objectNamespace,
  objectSpec,
  type ObjectKind,
} from '../../../config/source-kinds.ts';
import { resourceId, type ObjectRef } from '../desired-record.ts';
import type { ClusterObject } from '../incremental/cluster-objects.ts';
import { SOURCE_RUNTIMES } from '../sources/source-registry.ts';

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
  const spec = objectSpec(o.kind);
  const ref: ObjectRef = {
    kind: kubernetesKind(o.kind) as ObjectKind,
    apiVersion: o.object.apiVersion ?? apiVersionOf(spec.api),
    namespace: objectNamespace(o.kind, meta.namespace),
    name: meta.name,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
  const ingressClass = SOURCE_RUNTIMES[spec.source].ingressClass?.(o.object);
  return {
    id: resourceId(ref),
    source: {
      ref,
      kind: ref.kind.toLowerCase(),
      namespace: ref.namespace,
      ...(ingressClass !== undefined ? { ingressClass } : {}),
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
    },
  };
}

/** The record's object as `sources` has it, or a stand-in known only by its reference. */
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
