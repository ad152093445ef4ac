// What the incremental planner reads of the cluster: the objects by name, and what a Service's
// records also depend on (its EndpointSlices, the Nodes). kube/cluster-cache.ts provides it from
// its informers; tests from plain lists.
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';

export interface ClusterObjects {
  services(): Iterable<V1Service>;
  ingresses(): Iterable<V1Ingress>;
  service(namespace: string, name: string): V1Service | undefined;
  ingress(namespace: string, name: string): V1Ingress | undefined;
  /** EndpointSlices of a Service (by their kubernetes.io/service-name label). */
  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[];
  nodes(): readonly V1Node[];
}

/** A Service or Ingress that changed (added, updated, deleted, or one of its EndpointSlices did). */
export interface ObjectKey {
  kind: 'Service' | 'Ingress';
  namespace: string;
  name: string;
}

/** "service/default/nginx": the resource id its records carry (desired-record.ts resourceId). */
export function objectId(key: ObjectKey): string {
  return `${key.kind.toLowerCase()}/${key.namespace}/${key.name}`;
}
