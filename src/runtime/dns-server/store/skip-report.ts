// Says what the copy skipped (record-limits.ts) without letting hostile data flood the log: one
// line per skipped key up to a budget per reason and window (a flood of one kind hides no other),
// then only counts, summed up in one line by reason when the window ends or a full load
// completes. The metric counts every key.
import type { Logger } from '../../shared/log.ts';
import type { Skip, SkipReason } from './record-limits.ts';

export interface SkipReportOptions {
  logger: Logger;
  /** Counts one skipped value (etcdns_dns_skipped_values_total{reason}). */
  count: (reason: SkipReason) => void;
  /** Lines naming a key, per reason and window; default 10. */
  linesPerWindow?: number;
  /** Default 60 s. */
  windowMs?: number;
  now?: () => number;
}

export class SkipReport {
  private readonly logger: Logger;
  private readonly count: (reason: SkipReason) => void;
  private readonly linesPerWindow: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private windowStart = -Infinity;
  private readonly lines = new Map<SkipReason, number>();
  private readonly unlogged = new Map<SkipReason, number>();

  constructor(options: SkipReportOptions) {
    this.logger = options.logger;
    this.count = options.count;
    this.linesPerWindow = options.linesPerWindow ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** A key skipped at this value (callers report each key and mod revision once). */
  report(key: string, skip: Skip): void {
    this.count(skip.reason);
    this.roll();
    const lines = this.lines.get(skip.reason) ?? 0;
    if (lines < this.linesPerWindow) {
      this.lines.set(skip.reason, lines + 1);
      const msg = skip.reason === 'undecodable' ? 'skipping undecodable value' : 'skipping value over a limit';
      this.logger.warn(msg, { key, reason: skip.reason, error: skip.error });
      return;
    }
    this.unlogged.set(skip.reason, (this.unlogged.get(skip.reason) ?? 0) + 1);
  }

  /** Logs the keys skipped but not named so far, if any (after a full load; periodically). */
  flush(): void {
    if (this.unlogged.size === 0) return;
    const byReason = Object.fromEntries(this.unlogged);
    const total = [...this.unlogged.values()].reduce((a, b) => a + b, 0);
    this.unlogged.clear();
    this.logger.warn('more values skipped, not logged one by one', { count: total, byReason });
  }

  /** Ends the window once it is over: the summary, then a fresh line budget. */
  roll(): void {
    const now = this.now();
    if (now - this.windowStart < this.windowMs) return;
    this.flush();
    this.windowStart = now;
    this.lines.clear();
  }
}
