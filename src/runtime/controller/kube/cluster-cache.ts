// The controller's view of the cluster: one list+watch informer per kind it reads, as the
// enabled sources declare them (src/config/source-kinds.ts): the source objects themselves, and
// what their records depend on (their rows' `reads`). `onChange` fires on every add, update and
// delete once that kind's first list succeeded, naming the source objects whose records may have
// changed: the object itself, and what each source's runtime (sources/source-registry.ts) says a
// change of a kind it reads touches: source objects directly (an EndpointSlice's Service, before
// and after), index keys its objects gave (a route's parents and Namespace, indexed here), or
// 'all' (any Node change: Nodes feed every NodePort Service). A list says 'all'.
// A kind the API server does not serve (a CRD not installed) is empty; the records of the sources
// that need it cannot be computed then, and are kept as they are (unseenResources()).
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import {
  collectionPath,
  isObjectKind,
  objectNamespace,
  objectSpec,
  readApis,
  sourceSpec,
  type ApiResource,
  type ClusterKind,
  type ObjectKind,
  type SourceKind,
  type SourceSwitches,
} from '../../../config/source-kinds.ts';
import type { Logger } from '../../shared/log.ts';
import type { ClusterObjects, ObjectKey } from '../incremental/cluster-objects.ts';
import { objectId } from '../incremental/cluster-objects.ts';
import { SOURCE_RUNTIMES } from '../sources/source-registry.ts';
import type { SourceRuntime } from '../sources/source-runtime.ts';
import { sliceService } from '../sources/service-source.ts';
import { Informer, type ObjectChange } from './informer.ts';
import type { KubeClient } from '../../kube/kube-client.ts';

export type ClusterChange = { objects: ObjectKey[] } | 'all';

export interface ClusterCacheOptions {
  /** Source objects of this namespace only. */
  namespace?: string;
  sources: readonly SourceKind[];
  /** Gateways of this namespace only (--gateway-namespace). */
  gatewayNamespace?: string;
  /** Settings that change what the sources read (--gateway-listener-sets). */
  switches: SourceSwitches;
  onChange: (change: ClusterChange) => void;
  log: Logger;
}

/** Where each kind is listed: cluster-scoped kinds everywhere, Gateways in --gateway-namespace. */
function namespaceOf(kind: ClusterKind, options: ClusterCacheOptions): string | undefined {
  if (kind === 'Gateway') return options.gatewayNamespace;
  if (kind === 'ListenerSet') return undefined;
  return options.namespace;
}

export class ClusterCache implements ClusterObjects {
  private readonly informers = new Map<ClusterKind, Informer>();
  /** Kinds without namespaces: their objects are found by name alone (a key's namespace says 'default'). */
  private readonly clusterScoped = new Set<ClusterKind>();
  /** EndpointSlices by "namespace/service", kept as they change. */
  private readonly slicesByService = new Map<string, Map<string, V1EndpointSlice>>();
  /** Source objects by the index keys their source gave them, kept as they change. */
  private readonly byIndexKey = new Map<string, Map<string, ObjectKey>>();
  private readonly sources: readonly SourceKind[];
  private readonly switches: SourceSwitches;
  /** The enabled sources' runtimes, once each. */
  private readonly runtimes: readonly SourceRuntime[];

  constructor(client: KubeClient, options: ClusterCacheOptions) {
    this.sources = options.sources;
    this.switches = options.switches;
    this.runtimes = [...new Set(options.sources.map((s) => SOURCE_RUNTIMES[s]))];
    for (const [kind, api] of readApis(options.sources, options.switches)) {
      this.informers.set(kind, this.informer(client, kind, api, namespaceOf(kind, options), options));
      if (!api.namespaced) this.clusterScoped.add(kind);
    }
  }

  private informer(
    client: KubeClient,
    kind: ClusterKind,
    api: ApiResource,
    namespace: string | undefined,
    options: ClusterCacheOptions,
  ): Informer {
    const group = api.group || 'core';
    return new Informer(client, {
      path: api.versions.map((v) => collectionPath(api, v, namespace)),
      notServed: `no ${api.resource}.${group} at ${api.versions.join(' or ')}; install its CRD${
        isObjectKind(kind) ? `, or take ${objectSpec(kind).source} out of the sources` : ''
      }`,
      onChange: (change) => {
        const changed = this.changed(kind, change);
        if (changed) options.onChange(changed);
      },
      log: options.log.with({ kind }),
    });
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
      if (isObjectKind(kind)) unseen.add(objectSpec(kind).resourcePrefix);
      for (const { reads, objects } of this.sources.map(sourceSpec))
        if (reads.some((r) => r.kind === kind && r.essential)) for (const o of objects) unseen.add(o.resourcePrefix);
    }
    return unseen;
  }

  objects(kind: ClusterKind): Iterable<KubernetesObject> {
    return this.informers.get(kind)?.list() ?? [];
  }

  object(kind: ClusterKind, namespace: string | undefined, name: string): KubernetesObject | undefined {
    return this.informers.get(kind)?.get(this.clusterScoped.has(kind) ? undefined : namespace, name);
  }

  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[] {
    return [...(this.slicesByService.get(`${namespace}/${service}`)?.values() ?? [])];
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }

  /** The source objects a change of `kind` touches; a list (no change) re-indexes that kind and says 'all'. */
  private changed(kind: ClusterKind, change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    if (!change) {
      this.reindex(kind);
      return 'all';
    }
    if (kind === 'EndpointSlice') {
      this.indexSlice(change.before as V1EndpointSlice | undefined, false);
      this.indexSlice(change.after as V1EndpointSlice | undefined, true);
    }
    const objects = new Map<string, ObjectKey>();
    if (isObjectKind(kind)) {
      this.indexObject(kind, change.before, false);
      this.indexObject(kind, change.after, true);
      const meta = (change.after ?? change.before)?.metadata;
      if (!meta?.name) return 'all';
      const key: ObjectKey = { kind, namespace: objectNamespace(kind, meta.namespace), name: meta.name };
      objects.set(objectId(key), key);
    }
    for (const runtime of this.runtimes) {
      const touches = runtime.changes?.[kind as keyof typeof runtime.changes];
      if (!touches) continue;
      for (const object of [change.before, change.after]) {
        if (!object) continue;
        const touched = touches(object, this, this.switches);
        if (touched === 'all') return 'all';
        for (const key of touched.objects ?? []) objects.set(objectId(key), key);
        for (const indexKey of touched.keys ?? [])
          for (const [id, key] of this.byIndexKey.get(indexKey) ?? []) objects.set(id, key);
      }
    }
    return { objects: [...objects.values()] };
  }

  private reindex(kind: ClusterKind): void {
    if (kind === 'EndpointSlice') {
      this.slicesByService.clear();
      for (const slice of this.objects(kind)) this.indexSlice(slice as V1EndpointSlice, true);
    }
    if (!isObjectKind(kind)) return;
    for (const objects of this.byIndexKey.values())
      for (const [id, key] of objects) if (key.kind === kind) objects.delete(id);
    for (const object of this.objects(kind)) this.indexObject(kind, object, true);
  }

  private indexSlice(slice: V1EndpointSlice | undefined, present: boolean): void {
    const service = slice && sliceService(slice);
    if (!service) return;
    const id = `${service.namespace}/${service.name}`;
    const sliceName = slice.metadata?.name ?? '';
    let slices = this.slicesByService.get(id);
    if (present) {
      if (!slices) this.slicesByService.set(id, (slices = new Map()));
      slices.set(sliceName, slice);
    } else if (slices) {
      slices.delete(sliceName);
      if (slices.size === 0) this.slicesByService.delete(id);
    }
  }

  /** Keeps the index keys its source gives a source object. */
  private indexObject(kind: ObjectKind, object: KubernetesObject | undefined, present: boolean): void {
    const meta = object?.metadata;
    const indexKeys = SOURCE_RUNTIMES[objectSpec(kind).source].indexKeys;
    if (!meta?.name || !indexKeys) return;
    const key: ObjectKey = { kind, namespace: objectNamespace(kind, meta.namespace), name: meta.name };
    const id = objectId(key);
    for (const indexKey of indexKeys(object!, kind, this.switches)) {
      let objects = this.byIndexKey.get(indexKey);
      if (present) {
        if (!objects) this.byIndexKey.set(indexKey, (objects = new Map()));
        objects.set(id, key);
      } else if (objects) {
        objects.delete(id);
        if (objects.size === 0) this.byIndexKey.delete(indexKey);
      }
    }
  }
}
