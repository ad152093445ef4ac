// How often a key may update: a bucket of `perMinute` updates per key, refilled continuously, so a
// key cannot flood etcd (each update is a transaction and, for additions, a lease). Per process.

export class UpdateRateLimit {
  private readonly perMinute: (key: string) => number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: (key: string) => number) {
    this.perMinute = perMinute;
  }

  /** Whether `key` may update at `now` (seconds); takes one update from its bucket when so. */
  take(key: string, now: number): boolean {
    const rate = this.perMinute(key);
    const bucket = this.buckets.get(key) ?? { tokens: rate, at: now };
    bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) * rate) / 60);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
