// The controller's view of the cluster: one list+watch informer per kind it reads (Services,
// Ingresses, EndpointSlices, Nodes). `onChange` fires on every add, update and delete once that
// kind's first list succeeded, naming the Services and Ingresses whose records may have changed
// (an EndpointSlice's change names its Service, before and after); a list, and any Node change,
// says 'all' (Nodes feed every NodePort and some headless Services' records).
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service, KubernetesObject } from '@kubernetes/client-node';
import type { SourceKind } from '../../../config/controller-config.ts';
import type { Logger } from '../../shared/log.ts';
import type { ClusterObjects, ObjectKey } from '../incremental/cluster-objects.ts';
import type { ClusterSnapshot } from '../sources/cluster-snapshot.ts';
import { Informer, type ObjectChange } from './informer.ts';
import type { KubeClient } from './kube-client.ts';

type Kind = keyof ClusterSnapshot;

export type ClusterChange = { objects: ObjectKey[] } | 'all';

export interface ClusterCacheOptions {
  namespace?: string;
  sources: SourceKind[];
  onChange: (change: ClusterChange) => void;
  log: Logger;
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export class ClusterCache implements ClusterObjects {
  private readonly informers = new Map<Kind, Informer>();
  /** EndpointSlices by "namespace/service", kept as they change. */
  private readonly slicesByService = new Map<string, Map<string, V1EndpointSlice>>();

  constructor(client: KubeClient, options: ClusterCacheOptions) {
    const ns = options.namespace;
    const add = (
      kind: Kind,
      group: string,
      resource: string,
      onChange: (change: ObjectChange<KubernetesObject> | undefined) => ClusterChange | undefined,
      namespaced = true,
    ) => {
      const path = `${group}${namespaced && ns ? `/namespaces/${ns}` : ''}/${resource}`;
      const log = options.log.with({ kind });
      this.informers.set(
        kind,
        new Informer(client, {
          path,
          onChange: (change) => {
            const changed = onChange(change);
            if (changed) options.onChange(changed);
          },
          log,
        }),
      );
    };
    const objectOf = (kind: ObjectKey['kind']) => (change: ObjectChange<KubernetesObject> | undefined) => {
      const meta = (change?.after ?? change?.before)?.metadata;
      if (!change || !meta?.name) return 'all' as const;
      return { objects: [{ kind, namespace: meta.namespace ?? 'default', name: meta.name }] };
    };
    if (options.sources.includes('service')) {
      add('services', '/api/v1', 'services', objectOf('Service'));
      add('endpointSlices', '/apis/discovery.k8s.io/v1', 'endpointslices', (change) => this.sliceChanged(change));
      add('nodes', '/api/v1', 'nodes', () => 'all', false);
    }
    if (options.sources.includes('ingress'))
      add('ingresses', '/apis/networking.k8s.io/v1', 'ingresses', objectOf('Ingress'));
  }

  /** Starts every informer; resolves once each has tried its first list (synced() tells success). */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  synced(): boolean {
    return [...this.informers.values()].every((i) => i.synced());
  }

  /** Kinds whose first list has not succeeded yet (for /readyz). */
  unsynced(): string[] {
    return [...this.informers].filter(([, i]) => !i.synced()).map(([kind]) => kind);
  }

  services(): readonly V1Service[] {
    return this.list('services');
  }

  ingresses(): readonly V1Ingress[] {
    return this.list('ingresses');
  }

  service(namespace: string, name: string): V1Service | undefined {
    return this.informers.get('services')?.get(namespace, name) as V1Service | undefined;
  }

  ingress(namespace: string, name: string): V1Ingress | undefined {
    return this.informers.get('ingresses')?.get(namespace, name) as V1Ingress | undefined;
  }

  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[] {
    return [...(this.slicesByService.get(`${namespace}/${service}`)?.values() ?? [])];
  }

  nodes(): readonly V1Node[] {
    return this.list('nodes');
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }

  private list<T>(kind: Kind): readonly T[] {
    return (this.informers.get(kind)?.list() ?? []) as unknown as readonly T[];
  }

  /** Keeps the slices-by-Service index; names the Services of the slice before and after. */
  private sliceChanged(change: ObjectChange<KubernetesObject> | undefined): ClusterChange {
    if (!change) {
      this.slicesByService.clear();
      for (const slice of this.list<V1EndpointSlice>('endpointSlices')) this.indexSlice(slice, true);
      return 'all';
    }
    const services = new Map<string, ObjectKey>();
    for (const [slice, present] of [
      [change.before, false],
      [change.after, true],
    ] as const) {
      const key = slice && this.indexSlice(slice as V1EndpointSlice, present);
      if (key) services.set(`${key.namespace}/${key.name}`, key);
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
}
