// The cluster objects the sources read, kind by kind.
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';

export interface ClusterSnapshot {
  services: readonly V1Service[];
  ingresses: readonly V1Ingress[];
  endpointSlices: readonly V1EndpointSlice[];
  nodes: readonly V1Node[];
}
