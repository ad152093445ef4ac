// Encoded answers by question, so a repeated question costs a copy and a patch, not a resolve
// and a dns2 encode. Answers are dropped by what a change can affect (answer-scope.ts): a change
// to a key drops the answers of the names on its path and every shared answer; the rest stay,
// so churn on some names does not empty the cache for all. Bounded: past `maxEntries` the oldest
// entries go first. The key has nothing of the client, so callers store only answers that are
// the same for every client (not refusals that forwarding would answer for another client).

export interface CachedAnswer {
  encoded: Buffer;
  /** Offset of the SOA serial to write afresh on every send (soa-serial.ts), or -1. */
  serialAt: number;
  /** The zone whose serial that is. */
  zone: string;
  /** The name (lower-case wire form) the answer depends on alone, or undefined when shared. */
  ownName: string | undefined;
}

export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  /** Keys of the answers that depend on one name, by that name. */
  private readonly byName = new Map<string, Set<string>>();
  /** Keys of the answers that any change may affect. */
  private readonly shared = new Set<string>();
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

  get(key: string): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits += 1;
    else this.misses += 1;
    return hit;
  }

  set(key: string, answer: CachedAnswer): void {
    this.remove(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    this.entries.set(key, answer);
    if (answer.ownName === undefined) this.shared.add(key);
    else {
      let keys = this.byName.get(answer.ownName);
      if (!keys) this.byName.set(answer.ownName, (keys = new Set()));
      keys.add(key);
    }
  }

  /** After a change: drops the shared answers and those of the given names (wire form). */
  invalidate(wireNames: Iterable<string>): void {
    for (const key of this.shared) this.entries.delete(key);
    this.shared.clear();
    for (const name of wireNames) {
      const keys = this.byName.get(name);
      if (!keys) continue;
      for (const key of keys) this.entries.delete(key);
      this.byName.delete(name);
    }
  }

  clear(): void {
    this.entries.clear();
    this.byName.clear();
    this.shared.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    if (old.ownName === undefined) this.shared.delete(key);
    else {
      const keys = this.byName.get(old.ownName);
      keys?.delete(key);
      if (keys?.size === 0) this.byName.delete(old.ownName);
    }
  }
}
