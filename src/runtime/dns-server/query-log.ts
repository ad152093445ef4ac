// The opt-in query log: one structured line for every Nth query (--query-log-every N), with the
// client, the question and the outcome. Sampling by count keeps its cost bounded under any load;
// the dispatch hands it the query it already parsed, so the unsampled ones cost one increment.
import type { Logger } from '../shared/log.ts';
import { rcodeName, typeName } from './wire/dns-constants.ts';
import { rcodeOf } from './wire/header.ts';
import { nameFromWire, type ParseResult } from './wire/query-parser.ts';
import type { Reply, Transport } from './wire/wire-server.ts';

export class QueryLog {
  private readonly every: number;
  private readonly log: Logger;
  private count = 0;

  constructor(every: number, log: Logger) {
    this.every = every;
    this.log = log;
  }

  /** Counts a query; true for every `every`-th, which is then to be recorded. */
  sample(): boolean {
    this.count += 1;
    return this.count % this.every === 0;
  }

  record(q: ParseResult, replies: Reply, transport: Transport, client: string): void {
    const reply = Array.isArray(replies) ? replies[0] : replies;
    const question = q.kind === 'query' ? { name: nameFromWire(q.wireName), type: typeName(q.type) } : {};
    this.log.info('query', {
      client,
      transport,
      ...question,
      // No reply: dropped (malformed, or rate limited on the way out is counted elsewhere).
      rcode: reply && reply.length > 3 ? rcodeName(rcodeOf(reply)) : 'none',
      bytes: reply?.length ?? 0,
    });
  }
}
