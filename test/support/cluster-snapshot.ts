// A whole cluster as plain lists, kind by kind: the tests' input to the reference pipeline
// (full-pipeline.ts) and to views. The product reads the cluster through informers, object by
// object (src/runtime/controller/kube/cluster-cache.ts), and never needs this form.
import type { KubernetesObject, V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import { isObjectKind, type ClusterKind } from '../../src/config/source-kinds.ts';
import type { ClusterObject, ClusterObjects } from '../../src/runtime/controller/incremental/cluster-objects.ts';
import type { DnsEndpoint } from '../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import type {
  Gateway,
  ListenerSet,
  Namespace,
  Route,
} from '../../src/runtime/controller/sources/gateway/gateway-api.ts';
import type { RouteKind } from '../../src/runtime/controller/sources/gateway/listener-attachment.ts';
import { sliceService } from '../../src/runtime/controller/sources/service-source.ts';
import { sourceObjectOf, type SourceObject } from '../../src/runtime/controller/views/source-object.ts';

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
  /** Objects of any other kind a source reads or turns into records. */
  others?: readonly { kind: ClusterKind; object: KubernetesObject }[];
}

/** Every source object of a snapshot, with its kind. */
export function snapshotObjects(snapshot: Partial<ClusterSnapshot>): ClusterObject[] {
  return [
    ...(snapshot.services ?? []).map((object) => ({ kind: 'Service' as const, object })),
    ...(snapshot.ingresses ?? []).map((object) => ({ kind: 'Ingress' as const, object })),
    ...(snapshot.routes ?? []),
    ...(snapshot.dnsEndpoints ?? []).map((object) => ({ kind: 'DNSEndpoint' as const, object })),
    ...(snapshot.others ?? []).flatMap((o) => (isObjectKind(o.kind) ? [{ kind: o.kind, object: o.object }] : [])),
  ];
}

/** Every object of a snapshot (source objects and what sources read), with its kind. */
function allObjects(snapshot: Partial<ClusterSnapshot>): { kind: ClusterKind; object: KubernetesObject }[] {
  return [
    ...snapshotObjects(snapshot).filter((o) => !(snapshot.others ?? []).some((x) => x.object === o.object)),
    ...(snapshot.endpointSlices ?? []).map((object) => ({ kind: 'EndpointSlice' as const, object })),
    ...(snapshot.nodes ?? []).map((object) => ({ kind: 'Node' as const, object })),
    ...(snapshot.gateways ?? []).map((object) => ({ kind: 'Gateway' as const, object })),
    ...(snapshot.listenerSets ?? []).map((object) => ({ kind: 'ListenerSet' as const, object })),
    ...(snapshot.namespaces ?? []).map((object) => ({ kind: 'Namespace' as const, object })),
    ...(snapshot.others ?? []),
  ];
}

/** The snapshot as the planner reads a cluster (every kind served). */
export function snapshotCluster(snapshot: Partial<ClusterSnapshot>): ClusterObjects {
  const objects = allObjects(snapshot);
  const slices = new Map<string, V1EndpointSlice[]>();
  for (const slice of snapshot.endpointSlices ?? []) {
    const service = sliceService(slice);
    if (!service) continue;
    const key = `${service.namespace}/${service.name}`;
    const list = slices.get(key);
    if (list) list.push(slice);
    else slices.set(key, [slice]);
  }
  const ofKind = (kind: ClusterKind) => objects.filter((o) => o.kind === kind).map((o) => o.object);
  return {
    objects: ofKind,
    object: (kind, namespace, name) =>
      ofKind(kind).find(
        (o) => o.metadata?.name === name && (namespace === undefined || o.metadata?.namespace === namespace),
      ),
    endpointSlices: (namespace, service) => slices.get(`${namespace}/${service}`) ?? [],
    unseenResources: () => new Set(),
  };
}

/** Every source object of the snapshot by resource id, as views know it. */
export function sourceObjects(snapshot: Partial<ClusterSnapshot>): Map<string, SourceObject> {
  const out = new Map<string, SourceObject>();
  for (const o of snapshotObjects(snapshot)) {
    const view = sourceObjectOf(o);
    if (view) out.set(view.id, view.source);
  }
  return out;
}
