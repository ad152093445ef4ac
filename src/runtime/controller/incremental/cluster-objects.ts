// What the incremental planner reads of the cluster: the source objects by kind and name, and
// what their records also depend on (a Service's EndpointSlices and the Nodes; a route's Gateways,
// ListenerSets and Namespaces). kube/cluster-cache.ts provides it from its informers; tests from
// plain lists.
import type { KubernetesObject, V1EndpointSlice, V1Node } from '@kubernetes/client-node';
import type { ObjectKind } from '../../../config/source-kinds.ts';
import { resourceId } from '../desired-record.ts';
import type { GatewayContext } from '../sources/gateway/route-parents.ts';

export interface ClusterObjects extends GatewayContext {
  /** Every object of a kind the sources read (none for a kind not read). */
  objects(kind: ObjectKind): Iterable<KubernetesObject>;
  object(kind: ObjectKind, namespace: string, name: string): KubernetesObject | undefined;
  /** EndpointSlices of a Service (by their kubernetes.io/service-name label). */
  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[];
  nodes(): readonly V1Node[];
  /** Resource id prefixes ("httproute") whose objects cannot be read now: their records are kept as they are. */
  unseenResources(): ReadonlySet<string>;
}

/** A source object that changed (added, updated, deleted, or something its records depend on did). */
export interface ObjectKey {
  kind: ObjectKind;
  namespace: string;
  name: string;
}

/** "service/default/nginx": the resource id its records carry (desired-record.ts resourceId). */
export function objectId(key: ObjectKey): string {
  return resourceId(key);
}
