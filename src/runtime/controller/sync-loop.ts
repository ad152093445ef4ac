// When the controller syncs: a trigger (a watch event, a resync) starts one sync after a short
// debounce; one sync runs at a time (a trigger meanwhile runs one more afterwards); a failed sync
// is retried with backoff; a periodic resync is the safety net. What a sync does is the caller's.

const FIRST_RETRY_MS = 200;
/** etcd calls are cheap; a short cap means catching up within seconds of etcd's return. */
const MAX_RETRY_MS = 5_000;

export interface SyncLoopOptions<O extends string> {
  /** One sync; 'error' is retried with backoff, anything else resets it. Must not throw. */
  sync: () => Promise<O>;
  debounceMs: number;
  resyncMs: number;
  /** Called every resyncMs, and once at start: the caller marks its next sync full, then triggers. */
  resync: () => void;
}

export class SyncLoop<O extends string> {
  private readonly options: SyncLoopOptions<O>;
  private timer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private running: Promise<O> | undefined;
  private again = false;
  private looping = false;
  private stopped = false;
  private retry = FIRST_RETRY_MS;

  constructor(options: SyncLoopOptions<O>) {
    this.options = options;
  }

  /** Whether start() ran. Without it (`--once`, `etcdns plan`) the caller runs the one sync; triggers start none. */
  get started(): boolean {
    return this.looping;
  }

  /** The wait before the next retry of a failed sync (for the log line that says so). */
  get retryMs(): number {
    return this.retry;
  }

  /** Starts the periodic resync and the first sync. */
  start(): void {
    this.looping = true;
    this.resyncTimer = setInterval(() => this.options.resync(), this.options.resyncMs);
    this.resyncTimer.unref();
    this.options.resync();
  }

  /** No sync starts any more; resolves with the outcome of the one running, if any. */
  stop(): Promise<O | undefined> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.resyncTimer);
    return this.running ?? Promise.resolve(undefined);
  }

  /** A sync soon: after the debounce, or right after the running one. */
  trigger(): void {
    if (!this.looping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (!this.timer && !this.stopped) this.timer = setTimeout(() => void this.run(), this.options.debounceMs);
  }

  /** The running sync left work for one more (names changed concurrently). */
  runAgain(): void {
    this.again = true;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.again = false;
    this.running = this.options.sync();
    const outcome = await this.running;
    this.running = undefined;
    if (this.stopped) return;
    if (outcome === 'error') {
      this.timer = setTimeout(() => void this.run(), this.retry);
      this.retry = Math.min(this.retry * 2, MAX_RETRY_MS);
    } else {
      this.retry = FIRST_RETRY_MS;
      if (this.again) this.trigger();
    }
  }
}
