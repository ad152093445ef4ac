// Encoded answers by question, so a repeated question costs a copy and a patch, not a resolve
// and a dns2 encode. Answers are dropped by what a change can affect (answer-scope.ts): a change
// to a key drops the answers of the names on its path and every shared answer; the rest stay,
// so churn on some names does not empty the cache for all. The key has nothing of the client, so
// callers store only answers that are the same for every client (not refusals that forwarding
// would answer for another client). The server keys by number (the question's hash and its size
// bucket, dispatch.ts: no string is made per query) and keeps the question with the answer, to
// tell apart two questions whose hashes collide.
//
// Bounded twice, oldest first: all answers by an estimate of the memory they hold
// (`maxBytes`), and NXDOMAIN answers by count (`maxNxdomain`) on top. Names that do not exist
// are unbounded in number (deleted names under churn, typos, a flood of random names); without a
// budget of their own they would fill the cache and push out the answers clients keep asking
// for, and a server under steady churn would grow for hours before reaching the bound.

/** The server's keys are numbers (a hash); any string is a key too. */
export type CacheKey = number | string;

export interface CachedAnswer {
  encoded: Buffer;
  /** The question it answers (wire/query-parser.ts questionBytes) and its size bucket, when keyed by hash. */
  question?: Buffer;
  variant?: number;
  /** Offset of the SOA serial to write afresh on every send (soa-serial.ts), or -1. */
  serialAt: number;
  /** The zone whose serial that is. */
  zone: string;
  /** The name (lower-case wire form) the answer depends on alone, or undefined when shared. */
  ownName: string | undefined;
  /** Its A/AAAA records to order per send (answer-order.ts), or undefined: sent as stored. */
  order?: OrderLayout | undefined;
}

import { RCODE } from '../wire/dns-constants.ts';
import { rcodeOf } from '../wire/header.ts';
import type { OrderLayout } from './answer-order.ts';

/** Per entry beyond its bytes and key: the Map slot, the record, the Buffer object (measured in V8: ~150-250). */
const ENTRY_OVERHEAD = 200;

export const ANSWER_CACHE_DEFAULTS = { maxBytes: 16 * 2 ** 20, maxNxdomain: 4096 } as const;

export class AnswerCache {
  private readonly entries = new Map<CacheKey, CachedAnswer>();
  /** Keys of the NXDOMAIN answers, oldest first. */
  private readonly nxdomain = new Set<CacheKey>();
  /** Keys of the answers that depend on one name, by that name (one key alone, most often). */
  private readonly byName = new Map<string, CacheKey | Set<CacheKey>>();
  /** Keys of the answers that any change may affect. */
  private readonly shared = new Set<CacheKey>();
  private readonly maxBytes: number;
  private readonly maxNxdomain: number;
  private usedBytes = 0;
  hits = 0;
  misses = 0;

  constructor(limits: { maxBytes?: number; maxNxdomain?: number } = {}) {
    this.maxBytes = limits.maxBytes ?? ANSWER_CACHE_DEFAULTS.maxBytes;
    this.maxNxdomain = limits.maxNxdomain ?? ANSWER_CACHE_DEFAULTS.maxNxdomain;
  }

  get(key: CacheKey): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit) this.hits += 1;
    else this.misses += 1;
    return hit;
  }

  set(key: CacheKey, answer: CachedAnswer): void {
    this.remove(key);
    this.entries.set(key, answer);
    this.usedBytes += cost(key, answer);
    if (rcodeOf(answer.encoded) === RCODE.NXDOMAIN) {
      this.nxdomain.add(key);
      if (this.nxdomain.size > this.maxNxdomain) this.remove(this.nxdomain.values().next().value!);
    }
    if (answer.ownName === undefined) this.shared.add(key);
    else {
      const keys = this.byName.get(answer.ownName);
      if (keys === undefined) this.byName.set(answer.ownName, key);
      else if (keys instanceof Set) keys.add(key);
      else this.byName.set(answer.ownName, new Set([keys, key]));
    }
    for (const oldest of this.entries.keys()) {
      if (this.usedBytes <= this.maxBytes || oldest === key) break;
      this.remove(oldest);
    }
  }

  /** After a change: drops the shared answers and those of the given names (wire form). */
  invalidate(wireNames: Iterable<string>): void {
    for (const key of [...this.shared]) this.remove(key);
    for (const name of wireNames) {
      const keys = this.byName.get(name);
      if (keys === undefined) continue;
      for (const key of keys instanceof Set ? [...keys] : [keys]) this.remove(key);
    }
  }

  clear(): void {
    this.entries.clear();
    this.nxdomain.clear();
    this.byName.clear();
    this.shared.clear();
    this.usedBytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The estimate the byte budget is checked against. */
  get bytes(): number {
    return this.usedBytes;
  }

  private remove(key: CacheKey): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.nxdomain.delete(key);
    this.usedBytes -= cost(key, old);
    if (old.ownName === undefined) this.shared.delete(key);
    else {
      const keys = this.byName.get(old.ownName);
      if (!(keys instanceof Set)) this.byName.delete(old.ownName);
      else {
        keys.delete(key);
        if (keys.size === 1) this.byName.set(old.ownName, keys.values().next().value!);
      }
    }
  }
}

function cost(key: CacheKey, answer: CachedAnswer): number {
  const keyBytes = typeof key === 'string' ? key.length : 8;
  return answer.encoded.length + keyBytes + (answer.question?.length ?? 0) + answer.zone.length + ENTRY_OVERHEAD;
}
