// The controller's view of the cluster: one list+watch informer per kind it reads (Services,
// Ingresses, EndpointSlices, Nodes). `onChange` fires on every add, update and delete once that
// kind's first list succeeded.
import type { SourceKind } from '../../../config/controller-config.ts';
import type { Logger } from '../../shared/log.ts';
import type { ClusterSnapshot } from '../sources/desired-records.ts';
import { Informer } from './informer.ts';
import type { KubeClient } from './kube-client.ts';

type Kind = keyof ClusterSnapshot;

export interface ClusterCacheOptions {
  namespace?: string;
  sources: SourceKind[];
  onChange: (kind: Kind) => void;
  log: Logger;
}

export class ClusterCache {
  private readonly informers = new Map<Kind, Informer>();

  constructor(client: KubeClient, options: ClusterCacheOptions) {
    const ns = options.namespace;
    const add = (kind: Kind, group: string, resource: string, namespaced = true) => {
      const path = `${group}${namespaced && ns ? `/namespaces/${ns}` : ''}/${resource}`;
      const log = options.log.with({ kind });
      this.informers.set(kind, new Informer(client, { path, onChange: () => options.onChange(kind), log }));
    };
    if (options.sources.includes('service')) {
      add('services', '/api/v1', 'services');
      add('endpointSlices', '/apis/discovery.k8s.io/v1', 'endpointslices');
      add('nodes', '/api/v1', 'nodes', false);
    }
    if (options.sources.includes('ingress')) add('ingresses', '/apis/networking.k8s.io/v1', 'ingresses');
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

  snapshot(): ClusterSnapshot {
    const of = <T>(kind: Kind) => (this.informers.get(kind)?.list() ?? []) as unknown as readonly T[];
    return {
      services: of('services'),
      ingresses: of('ingresses'),
      endpointSlices: of('endpointSlices'),
      nodes: of('nodes'),
    };
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}
