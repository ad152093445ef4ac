// What the incremental planner reads of the cluster: the objects of every kind read, by kind and
// name (the sources' own objects and what their records also depend on: a Service's
// EndpointSlices and the Nodes; a route's Gateways, ListenerSets and Namespaces).
// kube/cluster-cache.ts provides it from its informers; tests from plain lists.
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import { objectSpec, type ClusterKind, type ObjectKind } from '../../../config/source-kinds.ts';
import { resourceId } from '../desired-record.ts';
import type { ObjectKey } from '../sources/source-runtime.ts';

export type { ObjectKey } from '../sources/source-runtime.ts';

export interface ClusterObjects {
  /** Every object of a kind read (none for a kind not read). */
  objects(kind: ClusterKind): Iterable<KubernetesObject>;
  /** One object; `namespace` undefined for a cluster-scoped kind. */
  object(kind: ClusterKind, namespace: string | undefined, name: string): KubernetesObject | undefined;
  /** EndpointSlices of a Service (by their kubernetes.io/service-name label). */
  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[];
  /** Resource id prefixes ("httproute") whose objects cannot be read now: their records are kept as they are. */
  unseenResources(): ReadonlySet<string>;
}

/** A source object with its kind. */
export interface ClusterObject {
  kind: ObjectKind;
  object: KubernetesObject;
}

/**
 * "service/default/nginx": the resource id its records carry (desired-record.ts resourceId); a
 * kind whose Kubernetes kind another group has too ("IngressRoute.traefik.containo.us/ns/name"),
 * which shares external-dns's resource ids, is told apart by its full kind.
 */
export function objectId(key: ObjectKey): string {
  return objectSpec(key.kind).kubernetesKind ? `${key.kind}/${key.namespace}/${key.name}` : resourceId(key);
}
