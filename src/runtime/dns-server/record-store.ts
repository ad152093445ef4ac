// The etcd edge of the record index: a paged range read of the prefix at one revision, then a
// watch from the next revision applying changes as they come. Any break (watch cancelled,
// compaction, etcd unreachable, failed probe) leads to a full resync, built aside and swapped in
// whole, so a half-loaded copy is never served; until it succeeds the last good copy keeps
// answering (serve-stale) and readiness and metrics say so.
import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import type { Readiness } from '../shared/http-server.ts';
import type { Logger } from '../shared/log.ts';
import { RecordIndex } from './record-index.ts';
import type { LoadedSnapshot } from './record-snapshot.ts';
import type { ServerMetrics, StoreState } from './server-metrics.ts';

export interface RecordStoreOptions {
  client: Etcd3;
  prefix: string;
  /** Canonical zone apexes (for SOA serials). */
  zones: string[];
  logger: Logger;
  metrics: ServerMetrics;
  /**
   * Called after every change of the copy (cache invalidation), with the path labels (as stored,
   * below the prefix) of the keys that changed, or 'all' when the copy was replaced whole.
   */
  onChange: (changed: readonly (readonly string[])[] | 'all') => void;
  /** How often etcd is probed for reachability and watch lag; default 5 s. */
  probeIntervalMs?: number;
  /** Keys per range page; default 2,500 (each gRPC message well under 4 MiB, little garbage at once). */
  pageSize?: number;
  /** A last-known copy (record-snapshot.ts) to serve, stale, when the first load fails. */
  fallback?: () => LoadedSnapshot | undefined;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5000;
const CONNECT_TIMEOUT_MS = 5000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function prefixEnd(prefix: string): Buffer {
  // The key range of "<prefix>/": "<prefix>0" ('0' follows '/').
  return Buffer.from(`${prefix}0`);
}

export class RecordStore {
  index: RecordIndex;
  state: StoreState = 'loading';
  private readonly options: RecordStoreOptions;
  private loadedAt: Date | undefined;
  private lastError: string | undefined;
  /** etcd's cluster id from the last full read (for the snapshot). */
  clusterId = '';
  /** Set while a loaded snapshot is served (the first full load clears it). */
  private fromSnapshot: string | undefined;
  private lastContact = 0;
  private stopped = false;
  private stopWatch: (() => void) | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Undecodable values already logged, by key, so each is logged once. */
  private readonly reported = new Map<string, string>();

  constructor(options: RecordStoreOptions) {
    this.options = options;
    this.index = new RecordIndex(options.prefix, options.zones);
    options.metrics.setState(this.state);
  }

  start(): void {
    this.running = this.run();
    this.probeTimer = setInterval(() => void this.probe(), this.options.probeIntervalMs ?? 5000);
    this.probeTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.probeTimer);
    this.stopWatch?.();
    await this.running;
  }

  /** Ready once the first full load is done; stale and resyncing copies still answer. */
  readiness(): Readiness {
    const copy = `${this.index.entryCount} records at revision ${this.index.revision}`;
    const why = this.lastError ? ` (${this.lastError})` : '';
    switch (this.state) {
      case 'loading':
        return { ready: false, detail: `loading: first range read of ${this.options.prefix}/ not done${why}` };
      case 'synced':
        return { ready: true, detail: `synced: ${copy}, watching` };
      case 'resyncing':
        return { ready: true, detail: `resyncing: serving ${copy} while reloading${why}` };
      case 'stale':
        return {
          ready: true,
          detail: this.fromSnapshot
            ? `stale: etcd unreachable, serving ${copy} ${this.fromSnapshot}${why}`
            : `stale: etcd unreachable, serving last good copy of ${copy} loaded ${this.loadedAt?.toISOString()}${why}`,
        };
    }
  }

  /** True while the copy served is a loaded snapshot, not yet replaced by etcd's. */
  get servingSnapshot(): boolean {
    return this.fromSnapshot !== undefined;
  }

  /** Seconds since etcd last answered. */
  secondsSinceContact(): number {
    return this.lastContact ? (Date.now() - this.lastContact) / 1000 : Infinity;
  }

  private setState(state: StoreState): void {
    if (state === this.state) return;
    this.options.logger.info('record store state', { from: this.state, to: state, error: this.lastError });
    this.state = state;
    this.options.metrics.setState(state);
  }

  private async run(): Promise<void> {
    let retry = RETRY_MIN_MS;
    while (!this.stopped) {
      try {
        const revision = await this.resync();
        retry = RETRY_MIN_MS;
        await this.watchFrom(revision + 1);
      } catch (e) {
        this.lastError = (e as Error).message;
        this.options.logger.warn('etcd sync failed', { error: e as Error, retryMs: retry });
      }
      if (this.stopped) break;
      if (!this.loadedAt) this.serveFallback();
      this.setState(this.loadedAt ? 'stale' : 'loading');
      await sleep(retry);
      retry = Math.min(retry * 2, RETRY_MAX_MS);
    }
  }

  /**
   * Reads the whole prefix at one revision, page by page, into a new copy built aside (pages are
   * dropped as they are read, so the peak is one copy plus one page), then swaps it in.
   */
  private async resync(): Promise<number> {
    // A stale copy stays "stale" until a reload succeeds; a synced one says it is reloading.
    if (this.state === 'synced') this.setState('resyncing');
    const { client, prefix, zones } = this.options;
    const pageSize = this.options.pageSize ?? 2500;
    const next = new RecordIndex(prefix, zones);
    const skipped = new Map<string, string>();
    const read = (start: Buffer, revision?: string) => {
      const range = client
        .getAll()
        .inRange({ start, end: prefixEnd(prefix) })
        .limit(pageSize);
      return (revision ? range.revision(revision) : range).exec();
    };
    let page = await read(Buffer.from(`${prefix}/`));
    const revision = page.header.revision;
    for (;;) {
      // Ask for the next page before applying this one: etcd's round trip overlaps our decoding.
      const last = page.kvs[page.kvs.length - 1];
      const following = page.more && last ? read(Buffer.concat([last.key, Buffer.from([0])]), revision) : undefined;
      following?.catch(() => undefined);
      for (const kv of page.kvs) {
        const key = kv.key.toString();
        const value = kv.value.toString();
        if (next.put(key, value, Number(kv.mod_revision)).kind === 'skipped') skipped.set(key, value);
      }
      if (!following) break;
      page = await following;
    }
    this.lastContact = Date.now();
    this.clusterId = page.header.cluster_id;
    this.fromSnapshot = undefined;
    next.revision = Number(revision);
    if (this.loadedAt) {
      next.inheritSerials(this.index);
      this.options.metrics.resyncs.inc();
    }
    for (const key of this.reported.keys()) if (!skipped.has(key)) this.reported.delete(key);
    for (const [key, value] of skipped) this.reportOnce(key, value, next.skipped.get(key)!.error);
    this.index = next;
    this.options.metrics.watchLag.set(0);
    this.loadedAt = new Date();
    this.lastError = undefined;
    this.options.logger.info('records loaded', { records: next.entryCount, revision: next.revision });
    this.options.onChange('all');
    return next.revision;
  }

  /** Before the first load: serves the fallback copy, if there is one, until etcd answers. */
  private serveFallback(): void {
    const loaded = this.options.fallback?.();
    if (!loaded) return;
    this.index = loaded.index;
    this.fromSnapshot = loaded.detail;
    this.loadedAt = new Date();
    this.options.onChange('all');
  }

  private reportOnce(key: string, value: string, error: string): void {
    if (this.reported.get(key) === value) return;
    this.reported.set(key, value);
    this.options.metrics.skippedTotal.inc();
    this.options.logger.warn('skipping undecodable value', { key, error });
  }

  /** Applies watch events until the watch breaks; resolves then (the caller resyncs). */
  private async watchFrom(revision: number): Promise<void> {
    const { client, prefix, logger } = this.options;
    const watcher: Watcher = client.watch().prefix(`${prefix}/`).startRevision(String(revision)).watcher();
    await new Promise<void>((resolve) => {
      const connectTimer = setTimeout(() => end('watch did not connect in time'), CONNECT_TIMEOUT_MS);
      const end = (reason: string, error?: Error) => {
        clearTimeout(connectTimer);
        if (reason !== 'stopped') this.lastError = error ? `${reason}: ${error.message}` : reason;
        if (reason === 'stopped') logger.debug('watch ended', { reason });
        else logger.warn('watch ended', { reason, error });
        this.stopWatch = undefined;
        watcher.removeAllListeners();
        watcher.on('error', () => undefined);
        void watcher.cancel().catch(() => undefined);
        resolve();
      };
      this.stopWatch = () => end('stopped');
      watcher.on('connected', () => {
        clearTimeout(connectTimer);
        this.lastContact = Date.now();
        this.setState('synced');
      });
      const changed: string[][] = [];
      watcher.on('put', (kv: IKeyValue) => {
        const key = kv.key.toString();
        const path = this.index.keyPath(key);
        if (path) changed.push(path);
        const value = kv.value.toString();
        const result = this.index.put(key, value, Number(kv.mod_revision));
        if (result.kind === 'skipped') this.reportOnce(key, value, result.error);
        else this.reported.delete(key);
      });
      watcher.on('delete', (kv: IKeyValue) => {
        const path = this.index.keyPath(kv.key.toString());
        if (path) changed.push(path);
        this.reported.delete(kv.key.toString());
        this.index.delete(kv.key.toString(), Number(kv.mod_revision));
      });
      watcher.on('data', (res: { header: { revision: string } }) => {
        this.index.revision = Number(res.header.revision);
        this.lastContact = Date.now();
        // etcd3's watcher emits a response's put and delete events before its 'data'.
        this.options.onChange(changed.splice(0));
      });
      watcher.on('disconnected', (e: Error) => end('disconnected', e));
      // Cancelled by etcd, e.g. "required revision has been compacted".
      watcher.on('error', (e: Error) => end('cancelled', e));
    });
  }

  /**
   * Checks that etcd answers, with a one-key read (cheap: sorting the prefix by revision would make
   * etcd scan every key). Its header carries etcd's current revision; the copy's revision advances
   * with watch events and with etcd's watch progress notifications (the client asks for them), so
   * the difference is how far the copy may be behind: exact right after a notification, an upper
   * bound in between when other prefixes change (etcd's --experimental-watch-progress-notify-interval).
   */
  private async probe(): Promise<void> {
    if (this.state !== 'synced') return;
    try {
      const res = await withTimeout(
        this.options.client.get(`${this.options.prefix}/`).exec(),
        CONNECT_TIMEOUT_MS,
        'probe timed out',
      );
      this.lastContact = Date.now();
      this.options.metrics.watchLag.set(Math.max(0, Number(res.header.revision) - this.index.revision));
    } catch (e) {
      this.lastError = `probe failed: ${(e as Error).message}`;
      this.stopWatch?.();
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
