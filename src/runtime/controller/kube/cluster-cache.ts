// The controller's view of the cluster: one list+watch informer per kind it reads, as the
// enabled sources need them (src/config/source-kinds.ts): the source objects themselves, and what
// their records depend on (EndpointSlices and Nodes for Services; Gateways, ListenerSets and
// Namespaces for routes). `onChange` fires on every add, update and delete once that kind's first
// list succeeded, naming the source objects whose records may have changed: the object itself;
// an EndpointSlice's Service (before and after); the routes attached to a Gateway or ListenerSet
// (by their spec.parentRefs, indexed here); the routes in a Namespace and in its ListenerSets'
// namespace. A list, and any Node change, says 'all' (Nodes feed every NodePort Service).
// A kind the API server does not serve (a CRD not installed) is empty; the records of the sources
// that need it cannot be computed then, and are kept as they are (unseenResources()).
import type { KubernetesObject, V1EndpointSlice, V1Node } from '@kubernetes/client-node';
import {
  collectionPath,
  ENDPOINT_SLICES,
  GATEWAY_GROUP,
  GATEWAYS,
  isRouteSource,
  LISTENER_SETS,
  NAMESPACES,
  NODES,
  ROUTE_SOURCES,
  SOURCES,
  sourceOfKind,
  type ApiResource,
  type ObjectKind,
  type SourceKind,
} from '../../../config/source-kinds.ts';
import type { Logger } from '../../shared/log.ts';
import type { ClusterObjects, ObjectKey } from '../incremental/cluster-objects.ts';
import { objectId } from '../incremental/cluster-objects.ts';
import type { Gateway, ListenerSet, Namespace, Route } from '../sources/gateway/gateway-api.ts';
import { Informer, type ObjectChange } from './informer.ts';
import type { KubeClient } from './kube-client.ts';

export type ClusterChange = { objects: ObjectKey[] } | 'all';

export interface ClusterCacheOptions {
  /** Source objects of this namespace only. */
  namespace?: string;
  sources: readonly SourceKind[];
  /** Gateways of this namespace only (--gateway-namespace). */
  gatewayNamespace?: string;
  /** Read ListenerSets (--gateway-listener-sets). */
  listenerSets?: boolean;
  onChange: (change: ClusterChange) => void;
  log: Logger;
}

type Dependency = 'EndpointSlice' | 'Node' | 'Gateway' | 'ListenerSet' | 'Namespace';
type Kind = ObjectKind | Dependency;

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** What each dependency's informer lists, and what the controller says when it is not served. */
const DEPENDENCIES: Record<Dependency, ApiResource> = {
  EndpointSlice: ENDPOINT_SLICES,
  Node: NODES,
  Gateway: GATEWAYS,
  ListenerSet: LISTENER_SETS,
  Namespace: NAMESPACES,
};

/** "Gateway/<ns>/<name>" or "ListenerSet/<ns>/<name>": a route's parent, as the index keys it. */
const parentKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export class ClusterCache implements ClusterObjects {
  private readonly informers = new Map<Kind, Informer>();
  /** EndpointSlices by "namespace/service", kept as they change. */
  private readonly slicesByService = new Map<string, Map<string, V1EndpointSlice>>();
  /** Routes by the parents their spec.parentRefs name, kept as they change. */
  private readonly routesByParent = new Map<string, Map<string, ObjectKey>>();
  private readonly sources: readonly SourceKind[];

  constructor(client: KubeClient, options: ClusterCacheOptions) {
    this.sources = options.sources;
    const add = (
      kind: Kind,
      api: ApiResource,
      namespace: string | undefined,
      onChange: (change: ObjectChange<KubernetesObject> | undefined) => ClusterChange | undefined,
    ) => {
      const group = api.group || 'core';
      this.informers.set(
        kind,
        new Informer(client, {
          path: api.versions.map((v) => collectionPath(api, v, namespace)),
          notServed: `no ${api.resource}.${group} at ${api.versions.join(' or ')}; install its CRD${
            kind in DEPENDENCIES ? '' : `, or take ${sourceOfKind(kind as ObjectKind).source} out of the sources`
          }`,
          onChange: (change) => {
            const changed = onChange(change);
            if (changed) options.onChange(changed);
          },
          log: options.log.with({ kind }),
        }),
      );
    };
    const objectOf = (kind: ObjectKind) => (change: ObjectChange<KubernetesObject> | undefined) => {
      const meta = (change?.after ?? change?.before)?.metadata;
      if (!change || !meta?.name) return 'all' as const;
      return { objects: [{ kind, namespace: meta.namespace ?? 'default', name: meta.name }] };
    };
    for (const source of options.sources) {
      const { kind, api } = SOURCES[source];
      const routes = isRouteSource(source);
      add(kind, api, options.namespace, routes ? (change) => this.routeChanged(kind, change) : objectOf(kind));
    }
    if (options.sources.includes('service')) {
      add('EndpointSlice', ENDPOINT_SLICES, options.namespace, (change) => this.sliceChanged(change));
      add('Node', NODES, undefined, () => 'all');
    }
    if (options.sources.some(isRouteSource)) {
      add('Gateway', GATEWAYS, options.gatewayNamespace, (change) => this.gatewayChanged(change));
      if (options.listenerSets)
        add('ListenerSet', LISTENER_SETS, undefined, (change) => this.listenerSetChanged(change));
      add('Namespace', NAMESPACES, undefined, (change) => this.namespaceChanged(change));
    }
  }

  /** Starts every informer; resolves once each has tried its first list (synced() tells success). */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced());
  }

  /** Kinds whose first list has not succeeded yet, each with the reason when known (for /readyz). */
  unsynced(): string[] {
    return [...this.informers]
      .filter(([, i]) => !i.synced())
      .map(([kind, i]) => (i.problem() ? `${kind} (${i.problem()})` : kind));
  }

  /** Every kind read, each with why the API server does not serve it ('' while it does). */
  servedState(): { kind: string; notServed: string }[] {
    return [...this.informers].map(([kind, i]) => ({ kind, notServed: i.notServed() }));
  }

  /**
   * Resource ids' prefixes ("httproute") of the sources whose objects cannot be read now: their
   * own kind is not served, or (routes) the Gateways or ListenerSets they attach to are not.
   */
  unseenResources(): ReadonlySet<string> {
    const unseen = new Set<string>();
    for (const [kind, informer] of this.informers) {
      if (!informer.notServed()) continue;
      const sources =
        kind === 'Gateway' || kind === 'ListenerSet'
          ? this.sources.filter(isRouteSource)
          : kind in DEPENDENCIES
            ? []
            : [sourceOfKind(kind as ObjectKind).source];
      for (const source of sources) unseen.add(SOURCES[source].resourcePrefix);
    }
    return unseen;
  }

  objects(kind: ObjectKind): Iterable<KubernetesObject> {
    return this.informers.get(kind)?.list() ?? [];
  }

  object(kind: ObjectKind, namespace: string, name: string): KubernetesObject | undefined {
    return this.informers.get(kind)?.get(namespace, name);
  }

  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[] {
    return [...(this.slicesByService.get(`${namespace}/${service}`)?.values() ?? [])];
  }

  nodes(): readonly V1Node[] {
    return (this.informers.get('Node')?.list() ?? []) as V1Node[];
  }

  gateway(namespace: string, name: string): Gateway | undefined {
    return this.informers.get('Gateway')?.get(namespace, name) as Gateway | undefined;
  }

  listenerSet(namespace: string, name: string): ListenerSet | undefined {
    return this.informers.get('ListenerSet')?.get(namespace, name) as ListenerSet | undefined;
  }

  namespaceLabels(name: string): Record<string, string> | undefined {
    const ns = this.informers.get('Namespace')?.get(undefined, name) as Namespace | undefined;
    return ns && (ns.metadata?.labels ?? {});
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }

  /** Keeps the slices-by-Service index; names the Services of the slice before and after. */
  private sliceChanged(change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    if (!change) {
      this.slicesByService.clear();
      for (const slice of this.informers.get('EndpointSlice')!.list()) this.indexSlice(slice as V1EndpointSlice, true);
      return 'all';
    }
    const services = new Map<string, ObjectKey>();
    for (const [slice, present] of [
      [change.before, false],
      [change.after, true],
    ] as const) {
      const key = slice && this.indexSlice(slice as V1EndpointSlice, present);
      if (key) services.set(objectId(key), key);
    }
    return { objects: [...services.values()] };
  }

  private indexSlice(slice: V1EndpointSlice, present: boolean): ObjectKey | undefined {
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) return undefined;
    const namespace = slice.metadata?.namespace ?? 'default';
    const id = `${namespace}/${service}`;
    const sliceName = slice.metadata?.name ?? '';
    let slices = this.slicesByService.get(id);
    if (present) {
      if (!slices) this.slicesByService.set(id, (slices = new Map()));
      slices.set(sliceName, slice);
    } else if (slices) {
      slices.delete(sliceName);
      if (slices.size === 0) this.slicesByService.delete(id);
    }
    return { kind: 'Service', namespace, name: service };
  }

  /** Keeps the routes-by-parent index; names the route. A list re-indexes that kind and says 'all'. */
  private routeChanged(kind: ObjectKind, change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    if (!change) {
      for (const routes of this.routesByParent.values())
        for (const [id, key] of routes) if (key.kind === kind) routes.delete(id);
      for (const route of this.objects(kind)) this.indexRoute(kind, route as Route, true);
      return 'all';
    }
    this.indexRoute(kind, change.before as Route | undefined, false);
    this.indexRoute(kind, change.after as Route | undefined, true);
    const meta = (change.after ?? change.before)?.metadata;
    return { objects: meta?.name ? [{ kind, namespace: meta.namespace ?? 'default', name: meta.name }] : [] };
  }

  private indexRoute(kind: ObjectKind, route: Route | undefined, present: boolean): void {
    const meta = route?.metadata;
    if (!meta?.name) return;
    const namespace = meta.namespace ?? 'default';
    const key: ObjectKey = { kind, namespace, name: meta.name };
    const id = objectId(key);
    for (const ref of route!.spec?.parentRefs ?? []) {
      if ((ref.group || GATEWAY_GROUP) !== GATEWAY_GROUP) continue;
      const parent = parentKey(ref.kind || 'Gateway', ref.namespace || namespace, ref.name);
      let routes = this.routesByParent.get(parent);
      if (present) {
        if (!routes) this.routesByParent.set(parent, (routes = new Map()));
        routes.set(id, key);
      } else if (routes) {
        routes.delete(id);
        if (routes.size === 0) this.routesByParent.delete(parent);
      }
    }
  }

  private routesOf(parent: string): ObjectKey[] {
    return [...(this.routesByParent.get(parent)?.values() ?? [])];
  }

  /** The routes attached to a ListenerSet, and to the Gateway of each ListenerSet `gateway` names. */
  private gatewayChanged(change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    const meta = (change?.after ?? change?.before)?.metadata;
    if (!change || !meta?.name) return 'all';
    const namespace = meta.namespace ?? 'default';
    const routes = this.routesOf(parentKey('Gateway', namespace, meta.name));
    for (const set of (this.informers.get('ListenerSet')?.list() ?? []) as ListenerSet[]) {
      const parent = set.spec?.parentRef;
      const setNamespace = set.metadata?.namespace ?? 'default';
      if (parent?.name === meta.name && (parent.namespace || setNamespace) === namespace)
        routes.push(...this.routesOf(parentKey('ListenerSet', setNamespace, set.metadata?.name ?? '')));
    }
    return { objects: routes };
  }

  private listenerSetChanged(change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    const meta = (change?.after ?? change?.before)?.metadata;
    if (!change || !meta?.name) return 'all';
    return { objects: this.routesOf(parentKey('ListenerSet', meta.namespace ?? 'default', meta.name)) };
  }

  /** A Namespace's labels decide Selector listeners: its routes, and the routes of its ListenerSets. */
  private namespaceChanged(change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    const name = (change?.after ?? change?.before)?.metadata?.name;
    if (!change || !name) return 'all';
    const objects: ObjectKey[] = [];
    for (const { kind } of ROUTE_SOURCES.map((s) => SOURCES[s])) {
      for (const route of this.objects(kind))
        if ((route.metadata?.namespace ?? 'default') === name)
          objects.push({ kind, namespace: name, name: route.metadata!.name! });
    }
    for (const set of (this.informers.get('ListenerSet')?.list() ?? []) as ListenerSet[])
      if ((set.metadata?.namespace ?? 'default') === name)
        objects.push(...this.routesOf(parentKey('ListenerSet', name, set.metadata?.name ?? '')));
    return { objects };
  }
}
