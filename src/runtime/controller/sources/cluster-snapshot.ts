// The cluster objects the sources read: one with its kind, and the whole cluster at once, kind by
// kind, as the tests' reference pipeline (test/support/full-pipeline.ts) reads it.
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import type { DnsEndpoint } from './dns-endpoint/dns-endpoint.ts';
import type { Gateway, ListenerSet, Namespace, Route } from './gateway/gateway-api.ts';
import type { RouteKind } from './gateway/listener-attachment.ts';

export interface ClusterSnapshot {
  services: readonly V1Service[];
  ingresses: readonly V1Ingress[];
  endpointSlices: readonly V1EndpointSlice[];
  nodes: readonly V1Node[];
  routes?: readonly { kind: RouteKind; object: Route }[];
  gateways?: readonly Gateway[];
  listenerSets?: readonly ListenerSet[];
  namespaces?: readonly Namespace[];
  dnsEndpoints?: readonly DnsEndpoint[];
}

/** A source object with its kind. */
export type ClusterObject =
  | { kind: 'Service'; object: V1Service }
  | { kind: 'Ingress'; object: V1Ingress }
  | { kind: RouteKind; object: Route }
  | { kind: 'DNSEndpoint'; object: DnsEndpoint };

/** Every source object of a snapshot, with its kind. */
export function snapshotObjects(snapshot: Partial<ClusterSnapshot>): ClusterObject[] {
  return [
    ...(snapshot.services ?? []).map((object) => ({ kind: 'Service' as const, object })),
    ...(snapshot.ingresses ?? []).map((object) => ({ kind: 'Ingress' as const, object })),
    ...(snapshot.routes ?? []),
    ...(snapshot.dnsEndpoints ?? []).map((object) => ({ kind: 'DNSEndpoint' as const, object })),
  ];
}
