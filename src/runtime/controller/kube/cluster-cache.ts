// The controller's view of the cluster: one list+watch informer per kind it reads (Services,
// Ingresses, EndpointSlices, Nodes). Informers restart with backoff after a watch error; the
// cache keeps its last content meanwhile. `onChange` fires on every add, update and delete.
import {
  CoreV1Api,
  DiscoveryV1Api,
  NetworkingV1Api,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import type { SourceKind } from '../../shared/config/controller-config.ts';
import type { Logger } from '../../shared/log.ts';
import type { ClusterSnapshot } from '../sources/desired-records.ts';
import { slimObject } from './slim-object.ts';

type Kind = keyof ClusterSnapshot;

interface Watched {
  kind: Kind;
  informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  /** The first list succeeded (set by the list function, before the watch starts). */
  listed: boolean;
  synced: boolean;
  stopped: boolean;
  retryMs: number;
}

export interface ClusterCacheOptions {
  namespace?: string;
  sources: SourceKind[];
  onChange: (kind: Kind) => void;
  log: Logger;
}

const FIRST_RETRY_MS = 500;
const LIST_PAGE = 500;
const MAX_RETRY_MS = 30_000;

export class ClusterCache {
  private readonly watched: Watched[] = [];
  private readonly log: Logger;
  private readonly onChange: (kind: Kind) => void;

  constructor(kc: KubeConfig, options: ClusterCacheOptions) {
    this.log = options.log;
    this.onChange = options.onChange;
    const core = kc.makeApiClient(CoreV1Api);
    const ns = options.namespace;
    type Page = { limit: number; _continue?: string };
    const scoped = (group: string, resource: string) => `${group}${ns ? `/namespaces/${ns}` : ''}/${resource}`;
    if (options.sources.includes('service')) {
      const discovery = kc.makeApiClient(DiscoveryV1Api);
      this.add(kc, 'services', scoped('/api/v1', 'services'), (page: Page) =>
        ns ? core.listNamespacedService({ namespace: ns, ...page }) : core.listServiceForAllNamespaces(page),
      );
      this.add(kc, 'endpointSlices', scoped('/apis/discovery.k8s.io/v1', 'endpointslices'), (page: Page) =>
        ns
          ? discovery.listNamespacedEndpointSlice({ namespace: ns, ...page })
          : discovery.listEndpointSliceForAllNamespaces(page),
      );
      this.add(kc, 'nodes', '/api/v1/nodes', (page: Page) => core.listNode(page));
    }
    if (options.sources.includes('ingress')) {
      const networking = kc.makeApiClient(NetworkingV1Api);
      this.add(kc, 'ingresses', scoped('/apis/networking.k8s.io/v1', 'ingresses'), (page: Page) =>
        ns
          ? networking.listNamespacedIngress({ namespace: ns, ...page })
          : networking.listIngressForAllNamespaces(page),
      );
    }
  }

  private add(
    kc: KubeConfig,
    kind: Kind,
    path: string,
    list: (page: { limit: number; _continue?: string }) => Promise<KubernetesListObject<KubernetesObject>>,
  ): void {
    const w: Watched = {
      kind,
      listed: false,
      synced: false,
      stopped: false,
      retryMs: FIRST_RETRY_MS,
      informer: undefined!,
    };
    w.informer = makeInformer<KubernetesObject>(kc, path, async () => {
      // Paged, and slimmed page by page: the peak is one page, not the whole cluster.
      const items: KubernetesObject[] = [];
      let page: KubernetesListObject<KubernetesObject> | undefined;
      do {
        page = await list({
          limit: LIST_PAGE,
          ...(page?.metadata?._continue ? { _continue: page.metadata._continue } : {}),
        });
        for (const item of page.items) items.push(slimObject(item));
      } while (page.metadata?._continue);
      w.listed = true;
      return { ...page, items };
    });
    const changed = (obj: KubernetesObject) => {
      slimObject(obj); // watched objects arrive whole; the cache holds this very object
      if (w.synced) this.onChange(kind);
    };
    w.informer.on('add', changed);
    w.informer.on('update', changed);
    w.informer.on('delete', changed);
    w.informer.on('error', (err: unknown) => {
      if (w.stopped) return;
      this.log.warn('watch failed; restarting', {
        kind,
        error: err instanceof Error ? err.message : String(err),
        retryMs: w.retryMs,
      });
      this.retryLater(w);
    });
    this.watched.push(w);
  }

  private retryLater(w: Watched): void {
    setTimeout(() => void this.run(w), w.retryMs).unref();
    w.retryMs = Math.min(w.retryMs * 2, MAX_RETRY_MS);
  }

  private async run(w: Watched): Promise<void> {
    if (w.stopped) return;
    try {
      await w.informer.start();
    } catch (err) {
      // start() rejects when the watch request itself cannot be made; the error hook retries.
      this.log.warn('watch failed to start', { kind: w.kind, error: (err as Error).message });
      this.retryLater(w);
      return;
    }
    if (!w.listed) return; // the list failed; its error hook has scheduled a retry
    w.retryMs = FIRST_RETRY_MS;
    if (!w.synced) {
      w.synced = true;
      this.log.info('cache synced', { kind: w.kind, objects: w.informer.list().length });
      this.onChange(w.kind);
    }
  }

  /** Starts every informer; resolves once each has tried its first list (synced() tells success). */
  async start(): Promise<void> {
    await Promise.all(this.watched.map((w) => this.run(w)));
  }

  synced(): boolean {
    return this.watched.every((w) => w.synced);
  }

  /** Kinds whose first list has not succeeded yet (for /readyz). */
  unsynced(): string[] {
    return this.watched.filter((w) => !w.synced).map((w) => w.kind);
  }

  snapshot(): ClusterSnapshot {
    const of = <T>(kind: Kind) => (this.watched.find((w) => w.kind === kind)?.informer.list() ?? []) as readonly T[];
    return {
      services: of('services'),
      ingresses: of('ingresses'),
      endpointSlices: of('endpointSlices'),
      nodes: of('nodes'),
    };
  }

  /** The uid of a watched Service or Ingress, to attach Events to it. */
  uidOf(kind: 'Service' | 'Ingress', namespace: string, name: string): string | undefined {
    const w = this.watched.find((x) => x.kind === (kind === 'Service' ? 'services' : 'ingresses'));
    return w?.informer.get(name, namespace)?.metadata?.uid;
  }

  async stop(): Promise<void> {
    for (const w of this.watched) w.stopped = true;
    await Promise.all(this.watched.map((w) => w.informer.stop()));
  }
}
