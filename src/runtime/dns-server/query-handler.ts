// One query in, one answer out, whatever the transport: parse, answer from the cache (ID and
// question patched) or resolve and encode, forward when allowed, and never throw.
import { RCODE, TYPE } from './dns-constants.ts';
import { AnswerCache } from './answer-cache.ts';
import { dependsOnOwnName } from './answer-scope.ts';
import type { Forwarder } from './forwarder.ts';
import { nameFromWire, parseQuery, type Edns, type ParsedQuery, type QueryHeader } from './query-parser.ts';
import { resolve, type ResolverData } from './resolver.ts';
import { encodeAnswer, encodeError, patchFor } from './response-encoder.ts';
import type { ServerMetrics, Transport } from './server-metrics.ts';
import { soaSerialOffset, wireSerial } from './soa-serial.ts';
import { signAnswer } from './signed-query.ts';
import type { TsigKey } from './tsig.ts';
import type { TransferHandler } from './zone-transfer.ts';

/** Several messages only for a zone transfer (TCP). */
export type Reply = Buffer | Buffer[] | undefined;
export type QueryHandler = (msg: Buffer, transport: Transport, client: string) => Reply | Promise<Reply>;

export interface QueryHandlerOptions {
  /** The records as they are now (the store swaps its copy on a resync). */
  data: () => ResolverData;
  /** False until the first full load: answers would be empty, so SERVFAIL (uncached) instead. */
  loaded?: () => boolean;
  cache: AnswerCache;
  metrics: ServerMetrics;
  forwarder?: Forwarder | undefined;
  /** Largest UDP answer we send, whatever size the client offers; default 4096. */
  maxUdpPayload?: number;
  /** AXFR/IXFR requests go here when transfers are configured (else they are REFUSED). */
  transfer?: TransferHandler | undefined;
  /** The TSIG keys a signed query may use (the transfer keys); none: signed queries get BADKEY. */
  tsigKeys?: readonly TsigKey[];
}

const TCP_LIMIT = 65535;
/** Answers are fit to one of these sizes, so the cache holds few variants of each answer. */
const UDP_BUCKETS = [512, 1232, 4096, 65535];

/** The size an answer must fit: 512 without EDNS, else the client's size (bucketed, capped). */
export function sizeLimit(transport: Transport, edns: Edns | undefined, maxUdp: number): number {
  if (transport === 'tcp') return TCP_LIMIT;
  if (!edns) return 512;
  const wanted = Math.min(Math.max(edns.payloadSize, 512), maxUdp);
  // Per query: a loop, not filter(), which allocates an array each time.
  let limit = 512;
  for (const b of UDP_BUCKETS) if (b <= wanted) limit = b;
  return limit;
}

function rcodeOf(reply: Buffer): number {
  return reply[3]! & 0x0f;
}

export function createQueryHandler(options: QueryHandlerOptions): QueryHandler {
  const { cache, metrics, forwarder } = options;
  const maxUdp = options.maxUdpPayload ?? 4096;

  const finish = (reply: Buffer, type: number, transport: Transport, started: number): Buffer => {
    metrics.countQuery(type, rcodeOf(reply), transport, (performance.now() - started) / 1000);
    return reply;
  };

  const answer = (msg: Buffer, q: ParsedQuery, transport: Transport, client: string, started: number) => {
    const limit = sizeLimit(transport, q.edns, maxUdp);
    const variant = `${transport === 'tcp' ? 'T' : limit}${q.edns ? (q.edns.dnssecOk ? 'D' : 'E') : 'N'}`;
    const key = AnswerCache.key(q.wireName, q.type, q.class, variant);
    const cached = cache.get(key);
    if (cached) {
      const reply = patchFor(cached.encoded, msg, q.questionEnd);
      if (cached.serialAt >= 0)
        reply.writeUInt32BE(wireSerial(options.data().index.serial(cached.zone)), cached.serialAt);
      return finish(reply, q.type, transport, started);
    }

    const name = nameFromWire(q.wireName);
    // A label with a "." byte cannot be one of our names, nor be written back by the codec.
    if (name === undefined) return finish(encodeError(q, RCODE.REFUSED, msg), q.type, transport, started);
    const data = options.data();
    const question = { name, type: q.type, class: q.class };
    const result = resolve(question, data);
    if (result.outOfZone && forwarder?.allows(client)) {
      return forwarder
        .forward(msg)
        .then((reply) => {
          metrics.forwarded.inc({ outcome: reply ? 'answered' : 'failed' });
          return finish(reply ?? encodeError(q, RCODE.SERVFAIL, msg), q.type, transport, started);
        })
        .catch(() => undefined);
    }
    const template = encodeAnswer({ ...q, name }, result, limit);
    // The cache is shared by all clients, so it holds only answers that do not depend on the
    // client: with forwarding on, a name outside our zones is REFUSED to some and forwarded for
    // others, so that refusal is made afresh each time (it costs a zone match, no etcd data).
    if (!(result.outOfZone && forwarder)) {
      const zone = data.zones.match(name);
      cache.set(key, {
        encoded: template,
        serialAt: zone ? soaSerialOffset(template) : -1,
        zone: zone?.name ?? '',
        ownName: dependsOnOwnName(question, result, data.index, zone, data.lookup) ? q.wireName : undefined,
      });
    }
    return finish(patchFor(template, msg, q.questionEnd), q.type, transport, started);
  };

  return (msg, transport, client) => {
    const started = performance.now();
    let header: QueryHeader | undefined;
    let type = 0;
    try {
      const parsed = parseQuery(msg);
      if (parsed.kind === 'drop') {
        metrics.dropped.inc();
        return undefined;
      }
      header = parsed;
      if (parsed.kind === 'error') return finish(encodeError(parsed, parsed.rcode, msg), 0, transport, started);
      type = parsed.type;
      if (parsed.edns && parsed.edns.version > 0) {
        return finish(encodeError(parsed, RCODE.BADVERS, msg), type, transport, started);
      }
      if (options.loaded && !options.loaded()) {
        return finish(encodeError(parsed, RCODE.SERVFAIL, msg), type, transport, started);
      }
      if (options.transfer && (type === TYPE.AXFR || type === TYPE.IXFR)) {
        const count = (reply: Buffer | Buffer[]) => {
          metrics.countQuery(
            type,
            rcodeOf(Array.isArray(reply) ? reply[0]! : reply),
            transport,
            (performance.now() - started) / 1000,
          );
          return reply;
        };
        const reply = options.transfer(msg, parsed, transport, client);
        return reply instanceof Promise ? reply.then(count) : count(reply);
      }
      const reply = answer(msg, parsed, transport, client, started);
      if (!parsed.signed) return reply;
      const now = () => Math.floor(Date.now() / 1000);
      const sign = (r: Buffer | undefined) => r && signAnswer(msg, parsed, r, options.tsigKeys ?? [], now);
      return reply instanceof Promise ? reply.then(sign) : sign(reply);
    } catch {
      metrics.internalErrors.inc();
      if (!header) return undefined;
      try {
        return finish(encodeError(header, RCODE.SERVFAIL, msg), type, transport, started);
      } catch {
        return undefined;
      }
    }
  };
}
