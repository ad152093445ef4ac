// The opt-in query log: one structured line for every Nth query (--query-log-every N), with the
// client, the question and the outcome. Sampling by count keeps its cost bounded under any load;
// the sampled query is parsed again here, so the unsampled ones cost one increment.
import type { Logger } from '../shared/log.ts';
import { rcodeName, typeName } from './dns-constants.ts';
import type { QueryHandler, Reply } from './query-handler.ts';
import { nameFromWire, parseQuery } from './query-parser.ts';
import type { Transport } from './server-metrics.ts';

function record(log: Logger, msg: Buffer, replies: Reply, transport: Transport, client: string): void {
  const q = parseQuery(msg);
  const reply = Array.isArray(replies) ? replies[0] : replies;
  const question = q.kind === 'query' ? { name: nameFromWire(q.wireName), type: typeName(q.type) } : {};
  log.info('query', {
    client,
    transport,
    ...question,
    // No reply: dropped (malformed, or rate limited on the way out is counted elsewhere).
    rcode: reply && reply.length > 3 ? rcodeName(reply[3]! & 0x0f) : 'none',
    bytes: reply?.length ?? 0,
  });
}

/** The handler, logging every `every`-th query it answers. */
export function withQueryLog(handler: QueryHandler, every: number, log: Logger): QueryHandler {
  let count = 0;
  return (msg, transport, client) => {
    const reply = handler(msg, transport, client);
    count += 1;
    if (count % every !== 0) return reply;
    if (reply instanceof Promise) {
      return reply.then((r) => {
        record(log, msg, r, transport, client);
        return r;
      });
    }
    record(log, msg, reply, transport, client);
    return reply;
  };
}
