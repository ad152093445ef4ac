// A list+watch cache of one kind of object, as client-go's reflector keeps one: a paged list,
// then a watch from the list's resourceVersion with bookmarks, resumed from the last version seen
// when the server ends it, and a fresh list when that version is too old (410 Gone). Errors are
// retried with backoff; the cache keeps its last content meanwhile. A collection may be served at
// one of several versions (a CRD's): the first that the API server serves is listed and watched.
// When none is served (a CRD not installed) the cache is empty and says so (notServed()), and the
// list is retried with the same backoff, so installing the CRD later is enough.
import { setTimeout as delay } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../shared/log.ts';
import { KubeApiError, type KubeClient, type WatchEvent } from '../../kube/kube-client.ts';
import { slimObject } from './slim-object.ts';

export interface InformerOptions {
  /**
   * The collection, such as /api/v1/services or /apis/networking.k8s.io/v1/namespaces/x/ingresses;
   * several: the same collection at other versions, tried in order while the server answers 404.
   */
  path: string | readonly string[];
  /** What to say when no path is served (404 on each), e.g. which CRD to install. */
  notServed?: string;
  /**
   * Called after every change of the content once the first list succeeded: with the object before
   * and after (undefined: added, deleted) for a watch event, without a change after a list.
   */
  onChange: (change?: ObjectChange<KubernetesObject>) => void;
  log: Logger;
  /** Objects per list page (default 500). */
  pageSize?: number;
}

const LIST_PAGE = 500;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
// Watches are renewed every 5 to 10 minutes, as client-go does, so a silently dead connection
// cannot hide changes for long; a stream idle this much past its timeout is given up.
const WATCH_MIN_SECONDS = 300;
const IDLE_GRACE_MS = 30_000;

/** No version of the collection is served: a CRD not installed (a state to report, not a fault). */
export class NotServedError extends Error {}

export interface ObjectChange<T> {
  before: T | undefined;
  after: T | undefined;
}

/** A list response as it travels (client-node's types rename `continue` to `_continue`). */
interface ListPage<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

export class Informer<T extends KubernetesObject = KubernetesObject> {
  private readonly client: KubeClient;
  /** What to say when no path is served (options.notServed). */
  private readonly notServedHint: string | undefined;
  private readonly onChange: InformerOptions['onChange'];
  private readonly log: Logger;
  private readonly pageSize: number;
  private objects = new Map<string, T>();
  private resourceVersion = '';
  private readonly abort = new AbortController();
  private retryMs = FIRST_RETRY_MS;
  private listed = false;
  private readonly paths: readonly string[];
  /** The path listed and watched: the first the server serves. */
  private path: string;
  /** Why the last list or watch failed (for readiness), empty after a success. */
  private failure = '';
  /** Why the collection is not served (no version of it is), empty while it is. */
  private notServedReason = '';

  constructor(client: KubeClient, options: InformerOptions) {
    this.client = client;
    this.notServedHint = options.notServed;
    this.onChange = options.onChange;
    this.log = options.log;
    this.pageSize = options.pageSize ?? LIST_PAGE;
    this.paths = typeof options.path === 'string' ? [options.path] : options.path;
    this.path = this.paths[0]!;
  }

  /** True once a list has succeeded, or the server said that it serves no version of the collection. */
  synced(): boolean {
    return this.listed;
  }

  /** Why the collection is not served (its content is then empty), or '' while it is served. */
  notServed(): string {
    return this.notServedReason;
  }

  /** Why the cache is not (or no longer) up to date, or '' when its last list or watch worked. */
  problem(): string {
    return this.failure;
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(keyOf(namespace, name));
  }

  /** Runs until stop(); resolves once the first list has been tried (synced() tells whether it worked). */
  start(): Promise<void> {
    return new Promise((firstListTried) => void this.run(firstListTried));
  }

  stop(): void {
    this.abort.abort();
  }

  private async run(firstListTried: () => void): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        if (!this.resourceVersion) {
          try {
            await this.relist();
          } finally {
            firstListTried();
          }
        }
        await this.watch();
        this.retryMs = FIRST_RETRY_MS;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        if (err instanceof KubeApiError && err.status === 410) {
          this.log.info('watch expired; listing again', { path: this.path });
          this.resourceVersion = '';
          continue;
        }
        // The version watched is no longer served (a CRD changed): list again, at any version.
        if (err instanceof KubeApiError && err.status === 404 && this.resourceVersion) this.resourceVersion = '';
        if (!(err instanceof NotServedError)) {
          this.failure = (err as Error).message;
          this.log.warn('list or watch failed; retrying', { path: this.path, error: err, retryMs: this.retryMs });
        }
        await delay(this.retryMs, undefined, { signal: this.abort.signal }).catch(() => undefined);
        this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
      }
    }
  }

  /** Paged, and slimmed page by page: the peak is one page, not the whole cluster. */
  private async relist(): Promise<void> {
    const next = new Map<string, T>();
    let cont = '';
    let version: string;
    let page = await this.firstPage();
    do {
      if (cont)
        page = await this.client.request<ListPage<T>>(
          'GET',
          `${this.path}?limit=${this.pageSize}&continue=${encodeURIComponent(cont)}`,
        );
      for (const item of page.items) next.set(keyOfObject(item), slimObject(item));
      cont = page.metadata?.continue ?? '';
      version = page.metadata?.resourceVersion ?? '';
    } while (cont);
    this.objects = next;
    this.resourceVersion = version;
    if (!this.listed || this.notServedReason) this.log.info('cache synced', { path: this.path, objects: next.size });
    this.listed = true;
    this.failure = '';
    this.notServedReason = '';
    this.onChange();
  }

  /** Not served: there is no object of the kind (a CRD's deletion deletes its objects). Said once per state change. */
  private becomeNotServed(reason: string): void {
    if (!this.notServedReason) this.log.warn('not served; retrying until it is', { error: reason });
    const changed = !this.listed || this.objects.size > 0;
    this.notServedReason = reason;
    this.failure = '';
    this.objects = new Map();
    this.listed = true;
    if (changed) this.onChange();
  }

  /** The first page of the first path the server serves (404: the next path, e.g. an older version). */
  private async firstPage(): Promise<ListPage<T>> {
    const limit = `?limit=${this.pageSize}`;
    for (const path of [this.path, ...this.paths.filter((p) => p !== this.path)]) {
      try {
        const page = await this.client.request<ListPage<T>>('GET', `${path}${limit}`);
        if (path !== this.path) this.log.info('listing another version', { path, instead: this.path });
        this.path = path;
        return page;
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 404)) throw err;
      }
    }
    const tried = this.paths.join(', ');
    const reason = `not served by the API server (404 at ${tried})${this.notServedHint ? `: ${this.notServedHint}` : ''}`;
    this.becomeNotServed(reason);
    throw new NotServedError(reason);
  }

  private async watch(): Promise<void> {
    const timeoutSeconds = WATCH_MIN_SECONDS + Math.floor(Math.random() * WATCH_MIN_SECONDS);
    const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=${timeoutSeconds}&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    await this.client.watch<T>(
      `${this.path}?${query}`,
      (event) => this.apply(event),
      timeoutSeconds * 1000 + IDLE_GRACE_MS,
      this.abort.signal,
    );
  }

  private apply(event: WatchEvent<T>): void {
    const obj = event.object;
    const version = obj.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (version) this.resourceVersion = version;
      return;
    }
    const key = keyOfObject(obj);
    const before = this.objects.get(key);
    const after = event.type === 'DELETED' ? undefined : slimObject(obj);
    if (after) this.objects.set(key, after);
    else this.objects.delete(key);
    if (version) this.resourceVersion = version;
    this.onChange({ before, after });
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function keyOfObject(obj: KubernetesObject): string {
  return keyOf(obj.metadata?.namespace, obj.metadata?.name ?? '');
}
