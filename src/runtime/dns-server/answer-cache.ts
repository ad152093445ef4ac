// Encoded answers by question, so a repeated question costs a copy and a patch, not a resolve
// and a dns2 encode. Emptied whenever the records change (answers never outlive the watch delay);
// bounded: past `maxEntries` the oldest entries go first. The key has nothing of the client, so
// callers store only answers that are the same for every client (not refusals that forwarding
// would answer for another client).

export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly maxEntries: number;
  hits = 0;
  misses = 0;

  constructor(maxEntries = 100_000) {
    this.maxEntries = maxEntries;
  }

  /** The key: question name (lower-case wire form), type, class and the size bucket it was fit to. */
  static key(wireName: string, type: number, qclass: number, bucket: string): string {
    return `${wireName}${type}/${qclass}/${bucket}`;
  }

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits += 1;
    else this.misses += 1;
    return hit;
  }

  set(key: string, encoded: Buffer): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, encoded);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
