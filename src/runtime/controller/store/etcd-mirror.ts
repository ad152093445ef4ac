// A copy of the entries under the controller's own prefix, kept by an etcd watch: one paged range
// read at one revision, then a watch from the next revision applying each put and delete. Any
// break (watch cancelled by etcd, e.g. its start revision was compacted; disconnected; did not
// connect in time) reads the prefix again and tells the owner (`onReload`), who then plans
// everything against the new copy. Plans made from the copy are written with the same guards as
// ever (etcd-store.ts): a copy that lags can only make a write fail its guard, never clobber.
// Keys are also kept sorted, so the entries of one name (its key and everything below) are found
// without a scan of the prefix.
import type { Etcd3, IKeyValue, Watcher } from 'etcd3';
import type { Logger } from '../../shared/log.ts';
import type { CurrentEntry } from '../plan/current-entries.ts';
import type { EtcdStore } from './etcd-store.ts';

const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;

export interface EtcdMirrorOptions {
  log: Logger;
  /** After every full read that replaced the copy (the first one, and each after a break). */
  onReload: () => void;
}

export class EtcdMirror {
  private readonly store: EtcdStore;
  private readonly client: Etcd3;
  private readonly log: Logger;
  private readonly onReload: () => void;
  private readonly entries = new Map<string, CurrentEntry>();
  /** The keys of `entries`, sorted (code unit order, as etcd sorts them). */
  private keys: string[] = [];
  /** Every change up to this revision is in the copy. */
  private revision = 0;
  private loaded = false;
  private stopped = false;
  private endWatch: ((reason: string, error?: Error) => void) | undefined;
  private waiters: { revision: number; done: (reached: boolean) => void }[] = [];
  private lastError: string | undefined;
  /** A reload asked for while no watch ran (during a read): read once more. */
  private reloadAsked = false;

  constructor(store: EtcdStore, client: Etcd3, options: EtcdMirrorOptions) {
    this.store = store;
    this.client = client;
    this.log = options.log;
    this.onReload = options.onReload;
  }

  get prefix(): string {
    return this.store.prefix;
  }

  /** True while the copy follows etcd (loaded, watch running). */
  synced(): boolean {
    return this.loaded && this.endWatch !== undefined;
  }

  /** True once the first read of the prefix succeeded. */
  loadedOnce(): boolean {
    return this.loaded;
  }

  /** Why the copy is not synced, for /readyz. */
  detail(): string {
    return this.lastError ?? 'not loaded yet';
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.endWatch?.('stopped');
    for (const w of this.waiters.splice(0)) w.done(false);
  }

  /** Reads the prefix again (after a write conflict: someone else writes here). */
  reload(reason: string): void {
    if (this.endWatch) this.endWatch(reason);
    else this.reloadAsked = true;
  }

  /** Every entry under the prefix. */
  all(): CurrentEntry[] {
    return [...this.entries.values()];
  }

  /** The entries at each key and everything below it, each once. */
  under(keys: Iterable<string>): CurrentEntry[] {
    const found = new Map<string, CurrentEntry>();
    for (const key of keys) {
      const own = this.entries.get(key);
      if (own) found.set(key, own);
      // '/' is followed by '0': the keys below `key` are exactly those in [key/, key0).
      const end = `${key}0`;
      for (let i = lowerBound(this.keys, `${key}/`); i < this.keys.length && this.keys[i]! < end; i++)
        found.set(this.keys[i]!, this.entries.get(this.keys[i]!)!);
    }
    return [...found.values()];
  }

  /** Resolves true once the copy has every change up to `revision`, false after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        revision,
        done: (reached: boolean) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private async run(): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (!this.stopped) {
      try {
        this.reloadAsked = false;
        await this.load();
        retryMs = FIRST_RETRY_MS;
        if (this.reloadAsked) continue;
        await this.watchFrom(this.revision + 1);
      } catch (error) {
        this.lastError = (error as Error).message;
        this.log.warn('etcd copy of the prefix failed; reading it again', {
          prefix: this.prefix,
          error,
          retryMs,
        });
        await new Promise((r) => setTimeout(r, retryMs).unref());
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    }
  }

  private async load(): Promise<void> {
    const { entries, revision } = await this.store.read();
    this.entries.clear();
    for (const e of entries) this.entries.set(e.key, e);
    this.keys = [...this.entries.keys()].sort(byCodeUnits);
    this.revision = Number(revision);
    this.loaded = true;
    this.lastError = undefined;
    this.log.info('etcd copy of the prefix loaded', { prefix: this.prefix, entries: entries.length, revision });
    this.settleWaiters();
    this.onReload();
  }

  /** Applies watch events until the watch breaks; resolves then (the loop reads again). */
  private watchFrom(revision: number): Promise<void> {
    const watcher: Watcher = this.client.watch().prefix(`${this.prefix}/`).startRevision(String(revision)).watcher();
    return new Promise<void>((resolve) => {
      const connectTimer = setTimeout(() => end('watch did not connect in time'), CONNECT_TIMEOUT_MS);
      const end = (reason: string, error?: Error) => {
        clearTimeout(connectTimer);
        if (reason !== 'stopped') {
          this.lastError = error ? `${reason}: ${error.message}` : reason;
          this.log.warn('etcd watch of the prefix ended', { prefix: this.prefix, reason, error });
        }
        this.endWatch = undefined;
        watcher.removeAllListeners();
        watcher.on('error', () => undefined);
        void watcher.cancel().catch(() => undefined);
        resolve();
      };
      // Synced from the start: events from `revision` on are queued by etcd until we take them.
      this.endWatch = end;
      watcher.on('connected', () => clearTimeout(connectTimer));
      watcher.on('put', (kv: IKeyValue) => this.put(kv));
      watcher.on('delete', (kv: IKeyValue) => this.delete(kv.key.toString()));
      // etcd3's watcher emits a response's puts and deletes before its 'data'.
      watcher.on('data', (res: { header: { revision: string } }) => {
        this.revision = Math.max(this.revision, Number(res.header.revision));
        this.settleWaiters();
      });
      watcher.on('disconnected', (e: Error) => end('disconnected', e));
      // Cancelled by etcd, e.g. "required revision has been compacted".
      watcher.on('error', (e: Error) => end('cancelled', e));
    });
  }

  private put(kv: IKeyValue): void {
    const key = kv.key.toString();
    if (!this.entries.has(key)) this.keys.splice(lowerBound(this.keys, key), 0, key);
    this.entries.set(key, { key, value: kv.value.toString(), modRevision: kv.mod_revision });
  }

  private delete(key: string): void {
    if (!this.entries.delete(key)) return;
    const i = lowerBound(this.keys, key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const [reached, waiting] = [
      this.waiters.filter((w) => w.revision <= this.revision),
      this.waiters.filter((w) => w.revision > this.revision),
    ];
    this.waiters = waiting;
    for (const w of reached) w.done(true);
  }
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index whose key is >= `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
