// A steady, checked DNS load for the length of a change (a roll, an upgrade): one lookup after
// another through a cluster address, every answer compared with what it must be. Bounded in
// count and time. A lookup counts as failed when its retry fails too, as a stub resolver retries
// (glibc: attempts 2); a first try lost alone (UDP has no connection to drain: a datagram in
// flight as kube-proxy switches endpoints can be lost) is counted apart.
import type { DigResult } from '../support/dig.ts';
import { digAt } from './stack-support.ts';

export interface DnsLoadResult {
  queries: number;
  /** "time what" of each first try that was answered wrongly or not at all (its retry was right). */
  firstTriesLost: string[];
  /** "time what" of each lookup whose retry was wrong too. */
  failures: string[];
  ms: number;
}

export interface DnsLoad {
  /** Ends the load after `tailMs` more of it, and returns what it saw. */
  stop(tailMs?: number): Promise<DnsLoadResult>;
}

/**
 * Starts asking `name`/`type` at `server`:53; `wrong(answer)` says what is wrong with an answer
 * (undefined: right). At most `maxQueries` lookups and `maxMs`.
 */
export function startDnsLoad(o: {
  server: string;
  name: string;
  type: string;
  wrong: (r: DigResult) => string | undefined;
  maxQueries?: number;
  maxMs?: number;
}): DnsLoad {
  const t0 = Date.now();
  const deadline = t0 + (o.maxMs ?? 300_000);
  const maxQueries = o.maxQueries ?? 30_000;
  let stopAt = Infinity;
  const result: DnsLoadResult = { queries: 0, firstTriesLost: [], failures: [], ms: 0 };
  const ask = async () => {
    const r = await digAt(o.server, 53, o.name, o.type).catch((e: Error) => e);
    return r instanceof Error ? r.message : o.wrong(r);
  };
  const running = (async () => {
    while (Date.now() < Math.min(deadline, stopAt) && result.queries < maxQueries) {
      result.queries++;
      const first = await ask();
      if (first === undefined) continue;
      result.firstTriesLost.push(`${new Date().toISOString()} ${first}`);
      const retry = await ask();
      if (retry !== undefined) result.failures.push(`${new Date().toISOString()} ${retry}`);
    }
    result.ms = Date.now() - t0;
  })();
  return {
    async stop(tailMs = 0) {
      stopAt = Date.now() + tailMs;
      await running;
      return result;
    },
  };
}

/** A one-line account of a load, for the figures. */
export const describeLoad = (r: DnsLoadResult) =>
  `${r.queries} lookups in ${(r.ms / 1000).toFixed(1)} s, ${r.failures.length} failed, ${r.firstTriesLost.length} first tries lost${r.firstTriesLost.length ? ` (${r.firstTriesLost.join(', ')})` : ''}`;
