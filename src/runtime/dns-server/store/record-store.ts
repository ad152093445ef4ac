// The etcd edge of the record index: a paged range read of the prefix at one revision, then a
// watch from the next revision applying changes as they come. Any break (watch cancelled,
// compaction, etcd unreachable, failed probe) leads to a full resync, built aside and swapped in
// whole, so a half-loaded copy is never served; until it succeeds the last good copy keeps
// answering (serve-stale) and readiness and metrics say so.
import { setImmediate } from 'node:timers/promises';
import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import type { Readiness } from '../../shared/http-server.ts';
import type { Logger } from '../../shared/log.ts';
import { collectGarbage } from '../../shared/full-gc.ts';
import { fetchRangePage, RangePage } from './range-page.ts';
import { RecordIndex } from './record-index.ts';
import type { RecordLimits } from './record-limits.ts';
import type { LoadedSnapshot } from './record-snapshot.ts';
import type { StoreMetrics, StoreState } from './store-metrics.ts';
import { SkipReport } from './skip-report.ts';

export interface RecordStoreOptions {
  client: Etcd3;
  prefix: string;
  /** Canonical zone apexes (for SOA serials). */
  zones: string[];
  logger: Logger;
  metrics: StoreMetrics;
  /**
   * Called after every change of the copy (cache invalidation), with the path labels (as stored,
   * below the prefix) of the keys that changed, or 'all' when the copy was replaced whole.
   */
  onChange: (changed: readonly (readonly string[])[] | 'all') => void;
  /** How often etcd is probed for reachability and watch lag; default 5 s. */
  probeIntervalMs?: number;
  /**
   * Most keys per range page; default 250,000 (pages are sized to about 4 per load, at least
   * 2,500 keys). etcd counts every key to the end of the range for each page, so a load costs
   * pages x keys: 1,000,000 names loaded in 46 s with pages of 2,500, 25 s with 25,000 and 17 s
   * with 100,000, and on a busy machine 8.1-9.6 s with 275,000 against 10.5-11.2 s with 100,000
   * once pages stayed bytes (range-page.ts). 250,000 typical keys and values are a 25 MiB
   * message, the controller's (owner and resource) about 40; larger values shrink the pages.
   */
  pageSize?: number;
  /** A last-known copy (record-snapshot.ts) to serve, stale, when the first load fails. */
  fallback?: () => LoadedSnapshot | undefined;
  /** What the copy refuses to keep; default DEFAULT_RECORD_LIMITS. */
  limits?: RecordLimits;
  /** Corrects a first load's SOA serials against etcd's history before it is served (zone-serials.ts). */
  settleSerials?: (index: RecordIndex) => Promise<void>;
}

const FIRST_PAGE = 2500;
/** Keys applied between two turns of the event loop during a load (tens of milliseconds of work). */
const SLICE_KEYS = 10_000;
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
  /** Keys per range page: shrinks when a page was larger than the client takes (large values). */
  private pageLimit: number;
  /** Skipped keys, logged (within a budget) and counted once per key and value. */
  private readonly skips: SkipReport;

  constructor(options: RecordStoreOptions) {
    this.options = options;
    this.index = new RecordIndex(options.prefix, options.zones, options.limits);
    this.pageLimit = options.pageSize ?? 250_000;
    this.skips = new SkipReport({
      logger: options.logger,
      count: (reason) => options.metrics.skippedTotal.inc({ reason }),
    });
    options.metrics.setState(this.state);
  }

  start(): void {
    this.running = this.run();
    this.probeTimer = setInterval(() => {
      this.skips.roll();
      void this.probe();
    }, this.options.probeIntervalMs ?? 5000);
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

  /**
   * A whole copy is in place (etcd's, or a snapshot): answers can be made from it. From the swap
   * on, before the watch is set up and the state says so: the NOTIFYs of the load go out then.
   */
  get hasCopy(): boolean {
    return this.loadedAt !== undefined;
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
    const next = new RecordIndex(prefix, zones, this.options.limits);
    const end = prefixEnd(prefix);
    // The first page is small and read through etcd3's own call, which renews an expired auth
    // token (a resync can come days after the last call); its count (keys to the end of the
    // range) sizes the rest: about 4 more pages, within 2,500..pageLimit keys each (fewer, larger
    // pages left more of the young generation's churn behind: 100,000 names kept 151-155 MiB RSS
    // with 2 pages, 138 with 4).
    const first = await this.shrinkingPages(
      client
        .getAll()
        .inRange({ start: Buffer.from(`${prefix}/`), end })
        .limit(Math.min(this.pageLimit, FIRST_PAGE))
        .exec(),
    );
    const revision = first.header.revision;
    const limit = Math.min(this.pageLimit, Math.max(FIRST_PAGE, Math.ceil(Number(first.count) / 4)));
    const read = (after: Buffer) =>
      this.shrinkingPages(
        fetchRangePage(client, { start: Buffer.concat([after, Buffer.from([0])]), end, limit, revision }),
      );
    const load = (key: string, value: Uint8Array, modRevision: number) => {
      const result = next.put(key, value, modRevision);
      // Reported once per key and value: a resync does not repeat what the last copy skipped.
      if (result.kind === 'skipped' && !this.index.isSkipped(key, modRevision)) this.skips.report(key, result);
    };
    const last = first.kvs.at(-1)?.key;
    let following = first.more && last ? read(last) : undefined;
    following?.catch(() => undefined);
    for (const kv of first.kvs) load(kv.key.toString(), kv.value, Number(kv.mod_revision));
    while (following) {
      const page = new RangePage(await following);
      // Ask for the next page before applying this one: etcd's round trip overlaps our decoding.
      following = page.more && page.lastKey ? read(page.lastKey) : undefined;
      following?.catch(() => undefined);
      // In slices, the event loop turning in between: gRPC reads the next page's bytes on this
      // thread, and etcd sends no more of them than HTTP/2's window until they are read.
      while (page.visit(SLICE_KEYS, load)) await setImmediate();
    }
    this.lastContact = Date.now();
    this.clusterId = first.header.cluster_id;
    this.fromSnapshot = undefined;
    next.revision = Number(revision);
    if (this.loadedAt) {
      next.inheritSerials(this.index);
      this.options.metrics.resyncs.inc();
    } else await this.options.settleSerials?.(next);
    this.skips.flush();
    this.index = next;
    this.options.metrics.watchLag.set(0);
    this.loadedAt = new Date();
    this.lastError = undefined;
    this.options.onChange('all');
    const gcMs = Math.round(collectGarbage());
    this.options.logger.info('records loaded', { records: next.entryCount, revision: next.revision, gcMs });
    return next.revision;
  }

  /**
   * A page of large values can be more than the gRPC client takes in one message (server-process.ts
   * sets 64 MiB; etcd takes values up to 1.5 MiB by default): the next loads read pages of an
   * eighth as many keys, down to one key at a time.
   */
  private async shrinkingPages<T>(page: Promise<T>): Promise<T> {
    try {
      return await page;
    } catch (e) {
      if (/RESOURCE_EXHAUSTED/.test((e as Error).message) && this.pageLimit > 1) {
        this.pageLimit = Math.max(1, Math.floor(this.pageLimit / 8));
        this.options.logger.warn('etcd range page over the message size limit: reading smaller pages', {
          keysPerPage: this.pageLimit,
          error: (e as Error).message,
        });
      }
      throw e;
    }
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
        const result = this.index.put(key, kv.value, Number(kv.mod_revision));
        if (result.kind === 'skipped') this.skips.report(key, result);
        // A key that cannot be a name was never in the copy: no answer to invalidate.
        const notAName =
          result.kind === 'skipped' && (result.reason === 'name_too_long' || result.reason === 'label_too_long');
        const path = notAName ? undefined : this.index.keyPath(key);
        if (path) changed.push(path);
      });
      watcher.on('delete', (kv: IKeyValue) => {
        const path = this.index.keyPath(kv.key.toString());
        if (path) changed.push(path);
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
