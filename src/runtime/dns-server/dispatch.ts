// The process's one pass over a message, in the order CoreDNS's plugin chain gives: parse ->
// query ACL -> check TSIG once -> transfer or answer (NSID added) -> sign -> rate-limit -> send
// (the wire server sends).
// Each step reads what the one before found, nothing is parsed twice: the parser hashes the
// question as it reads it and the answer cache is keyed by that hash (no string per query); the
// resolver's Answer says which zone it is of and whether it is the name's own, so nothing is
// looked up again to cache it; the rate limiter is given the rcode and question, not the reply's
// bytes to read. Never throws.
import { SERVER_CONFIG_DEFAULTS } from '../../config/server-config.ts';
import { AnswerCache, type CachedAnswer } from './answer/answer-cache.ts';
import type { AnswerOrder } from './answer/answer-order.ts';
import type { CatalogZone } from './answer/catalog-zone.ts';
import { chaosAnswer, type ServerIdentity } from './answer/chaos-answer.ts';
import type { Forwarder } from './answer/forwarder.ts';
import { resolve, type ResolverData } from './answer/resolver.ts';
import type { QueryLog } from './query-log.ts';
import type { ResponseRateLimiter } from './rate-limit.ts';
import { truncated } from './rate-limit.ts';
import type { ServerMetrics } from './server-metrics.ts';
import { checkTsig, refusedBySignature, signAnswer, UNSIGNED, type TsigCheck } from './tsig/signed-query.ts';
import type { TsigKey } from './tsig/tsig.ts';
import type { UpdateDispatch } from './update-dispatch.ts';
import type { Messages, ZoneTransfer } from './transfer/zone-transfer.ts';
import type { TransferZone } from './transfer/zone-source.ts';
import { CLASS, OPCODE_UPDATE, RCODE, TYPE } from './wire/dns-constants.ts';
import { withOption } from './wire/edns-option.ts';
import { HEADER_SIZE, isResponse, opcodeOf, rcodeOf } from './wire/header.ts';
import {
  HASH_BITS,
  nameFromWire,
  NSID_OPTION,
  parseQuery,
  questionBytes,
  sameQuestion,
  type Edns,
  type ParsedQuery,
  type QueryHeader,
} from './wire/query-parser.ts';
import { encodeAnswer, encodeError, patchFor } from './wire/response-encoder.ts';
import { soaSerialOffset, wireSerial } from './wire/soa-serial.ts';
import { withKeepalive } from './wire/tcp-keepalive.ts';
import type { QueryHandler, Reply, Transport } from './wire/wire-server.ts';

export interface QueryHandlerOptions {
  /** The records as they are now (the store swaps its copy on a resync). */
  data: () => ResolverData;
  /**
   * A hub whose answers depend on the client's site (policy `prefer`): the member cluster whose
   * site holds the client, and its place in the hub's list (1 up), which keys the cached answers.
   * Answers marked perQuery (policy `weighted`) are drawn for each query and never cached.
   */
  siteOf?: ((client: string) => { cluster: string; index: number } | undefined) | undefined;
  /** False until the first full load: answers would be empty, so SERVFAIL (uncached) instead. */
  loaded?: () => boolean;
  cache: AnswerCache;
  metrics: ServerMetrics;
  forwarder?: Forwarder | undefined;
  /** Largest UDP answer we send, whatever size the client offers; default SERVER_CONFIG_DEFAULTS. */
  maxUdpPayload?: number;
  /** AXFR/IXFR requests go here when transfers are configured (else they are REFUSED). */
  transfer?: ZoneTransfer<TransferZone> | undefined;
  /** The TSIG keys a signed query may use (the transfer keys); none: signed queries get BADKEY. */
  tsigKeys?: readonly TsigKey[];
  /** Response rate limiting of UDP answers, when on. */
  rateLimit?: ResponseRateLimiter | undefined;
  /** --query-log-every N. */
  queryLog?: QueryLog | undefined;
  /** allowQueryFrom: whether a client's queries are answered (all when absent); transfers apart. */
  allowsQuery?: ((client: string) => boolean) | undefined;
  /** The identifier (NSID, CHAOS id.server.) and version (CHAOS version.bind.) told; absent: neither. */
  identity?: ServerIdentity;
  /** answerOrder (rotation, prefer) when it reorders anything; absent: answers go as stored. */
  answerOrder?: AnswerOrder | undefined;
  /** The catalog zone served beside the records' zones, when configured. */
  catalog?: CatalogZone | undefined;
  /** UPDATE messages (RFC 2136) go here when updates are configured (else NOTIMP, as any other opcode). */
  update?: UpdateDispatch | undefined;
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

/** Which variant of an answer a query gets: its size limit (TCP apart) and what its OPT record asks. */
function variantOf(transport: Transport, limit: number, edns: Edns | undefined): number {
  const size = transport === 'tcp' ? 0 : limit;
  return size * 4 + (edns ? (edns.dnssecOk ? 2 : 1) : 0);
}

/** The cache key of a question and variant: a small integer, so a hit builds no string and boxes no number. */
function cacheKey(questionHash: number, variant: number): number {
  return (Math.imul(questionHash ^ variant, 0x9e3779b1) ^ variant) & HASH_BITS;
}

const now = () => Math.floor(Date.now() / 1000);

const ORDERED_TYPES = new Set<number>([TYPE.A, TYPE.AAAA, TYPE.ANY]);

/** A query that asked for edns-tcp-keepalive as it should, unsigned (a TSIG must stay the last record). */
function asksKeepalive(parsed: ReturnType<typeof parseQuery>): boolean {
  return parsed.kind === 'query' && parsed.edns?.keepalive === 'asked' && !parsed.signed;
}

export function createQueryHandler(options: QueryHandlerOptions): QueryHandler {
  const { cache, metrics, forwarder, transfer, rateLimit, queryLog, allowsQuery, answerOrder, update } = options;
  const maxUdp = options.maxUdpPayload ?? SERVER_CONFIG_DEFAULTS.maxUdpPayload;
  const tsigKeys = options.tsigKeys ?? [];
  const identity = options.identity ?? { id: undefined, version: undefined };
  const nsid = identity.id === undefined ? undefined : Buffer.from(identity.id);

  const count = (reply: Buffer, type: number, transport: Transport, started: number): Buffer => {
    metrics.countQuery(type, rcodeOf(reply), transport, (performance.now() - started) / 1000);
    return reply;
  };

  /** A stored answer for this query: its ID, flags and question bytes, the zone's serial now, its records' order. */
  const fromCache = (cached: CachedAnswer, msg: Buffer, q: ParsedQuery, client: string): Buffer => {
    const reply = patchFor(cached.encoded, msg, q.questionEnd);
    if (cached.serialAt >= 0)
      reply.writeUInt32BE(wireSerial(options.data().index.serial(cached.zone)), cached.serialAt);
    if (cached.order) answerOrder!.apply(reply, cached.encoded, cached.order, client);
    return reply;
  };

  /** The answer from our records (or the forwarder's), cached when it is alike for every client. */
  const answer = (msg: Buffer, q: ParsedQuery, transport: Transport, client: string): Buffer | Promise<Buffer> => {
    const limit = sizeLimit(transport, q.edns, maxUdp);
    const site = options.siteOf?.(client);
    // One answer per site, above the size variant's bits (size * 4 + 3 < 2^18).
    const variant = variantOf(transport, limit, q.edns) + (site ? site.index * 2 ** 18 : 0);
    const key = cacheKey(q.questionHash, variant);
    const cached = cache.get(key);
    if (cached && cached.variant === variant && sameQuestion(cached.question!, msg, q.questionEnd))
      return fromCache(cached, msg, q, client);

    const name = nameFromWire(q.wireName);
    // A label with a "." byte cannot be one of our names, nor be written back by the codec.
    if (name === undefined) return encodeError(q, RCODE.REFUSED, msg);
    const result =
      q.class === CLASS.CH
        ? chaosAnswer(name, q.type, identity)
        : (options.catalog?.answer(name, q.type, q.class) ??
          resolve({ name, type: q.type, class: q.class }, options.data(), undefined, {
            site: site?.cluster,
            draw: Math.random(),
          }));
    if (result.outOfZone && forwarder?.allows(client)) {
      return forwarder.forward(msg).then((reply) => {
        metrics.forwarded.inc({ outcome: reply ? 'answered' : 'failed' });
        return reply ?? encodeError(q, RCODE.SERVFAIL, msg);
      });
    }
    const template = encodeAnswer({ ...q, name, type: q.type, class: q.class }, result, limit);
    // The cache is shared by all clients, so it holds only answers that do not depend on the
    // client: with forwarding on, a name outside our zones is REFUSED to some and forwarded for
    // others, so that refusal is made afresh each time (it costs a zone match, no etcd data).
    // The records' order per client is applied to each copy sent, never to the stored bytes.
    if ((result.outOfZone && forwarder) || result.perQuery) return patchFor(template, msg, q.questionEnd);
    const entry: CachedAnswer = {
      encoded: template,
      question: questionBytes(msg, q),
      variant,
      serialAt: result.zone ? soaSerialOffset(template) : -1,
      zone: result.zone ?? '',
      ownName: result.ownName ? q.wireName : undefined,
      // Only answers to these types hold A/AAAA records in their answer section.
      order: answerOrder && ORDERED_TYPES.has(q.type) ? answerOrder.layoutOf(template) : undefined,
    };
    cache.set(key, entry);
    const out = patchFor(template, msg, q.questionEnd);
    if (entry.order) answerOrder!.apply(out, template, entry.order, client);
    return out;
  };

  /** Transfer or answer, then sign: what a parsed query gets before the rate limit. */
  const reply = (msg: Buffer, q: ParsedQuery, transport: Transport, client: string): Messages | Promise<Messages> => {
    const transferred = transfer !== undefined && (q.type === TYPE.AXFR || q.type === TYPE.IXFR);
    // CoreDNS's acl comes before tsig, chaos and the cache: a refused client reaches none of them.
    if (!transferred && allowsQuery && !allowsQuery(client)) {
      metrics.aclRefused.inc();
      return encodeError(q, RCODE.REFUSED, msg);
    }
    const check: TsigCheck = q.signed
      ? checkTsig(msg, q.tsigStart, transferred ? transfer.keysFor(q) : tsigKeys, now())
      : UNSIGNED;
    if (transferred) return transfer.handle(msg, q, transport, client, check);
    const refused = refusedBySignature(q, msg, check, now);
    if (refused) return refused;
    let answered = answer(msg, q, transport, client);
    // RFC 5001: our identifier, to a client that asked (a forwarded answer, the promise, is the
    // upstream's), appended to the patched answer: the cached one stays alike for every client.
    if (nsid && q.edns?.nsid && !(answered instanceof Promise))
      answered = withOption(answered, NSID_OPTION, nsid, sizeLimit(transport, q.edns, maxUdp));
    if (check.kind !== 'ok') return answered;
    return answered instanceof Promise
      ? answered.then((a) => signAnswer(a, check, now))
      : signAnswer(answered, check, now);
  };

  /** UDP answers over the limit are dropped, or sent truncated every slip-th time. */
  const limited = (out: Buffer, q: QueryHeader, msg: Buffer, client: string): Buffer | undefined => {
    const rcode = rcodeOf(out);
    const question = rcode === RCODE.NOERROR ? msg.toString('latin1', HEADER_SIZE, q.questionEnd).toLowerCase() : '';
    const verdict = rateLimit!.check(client, { rcode, question }, performance.now() / 1000);
    if (verdict === 'send') return out;
    metrics.rateLimited.inc({ action: verdict === 'slip' ? 'slipped' : 'dropped' });
    return verdict === 'slip' ? truncated(out, q.questionEnd) : undefined;
  };

  /** Counted, logged when sampled, rate-limited (UDP): what goes to the socket. */
  const finish = (
    out: Messages | undefined,
    parsed: ReturnType<typeof parseQuery>,
    type: number,
    msg: Buffer,
    transport: Transport,
    client: string,
    started: number,
    keepalive: number | undefined,
  ): Reply => {
    if (out === undefined) return undefined;
    // RFC 7828: the idle timeout goes to a TCP client that asked, never over UDP.
    if (keepalive !== undefined && transport === 'tcp' && !Array.isArray(out) && asksKeepalive(parsed))
      out = withKeepalive(out, keepalive);
    count(Array.isArray(out) ? out[0]! : out, type, transport, started);
    if (queryLog?.sample()) queryLog.record(parsed, out, transport, client);
    if (!rateLimit || transport !== 'udp' || Array.isArray(out) || parsed.kind === 'drop') return out;
    return limited(out, parsed, msg, client);
  };

  return (msg, transport, client, keepalive) => {
    // An UPDATE takes its own pass (update-dispatch.ts): it is no question to answer or cache.
    if (update && msg.length >= HEADER_SIZE && !isResponse(msg) && opcodeOf(msg) === OPCODE_UPDATE)
      return update(msg, client).catch(() => undefined);
    const started = performance.now();
    let parsed: ReturnType<typeof parseQuery> | undefined;
    let type = 0;
    try {
      parsed = parseQuery(msg);
      if (parsed.kind === 'drop') {
        metrics.dropped.inc();
        if (queryLog?.sample()) queryLog.record(parsed, undefined, transport, client);
        return undefined;
      }
      if (parsed.kind === 'error')
        return finish(encodeError(parsed, parsed.rcode, msg), parsed, 0, msg, transport, client, started, undefined);
      const q = parsed;
      type = q.type;
      let out: Messages | Promise<Messages>;
      if (q.edns && q.edns.version > 0) out = encodeError(q, RCODE.BADVERS, msg);
      // RFC 7828 3.2.1: a query's keepalive option has no TIMEOUT; over UDP the option is ignored.
      else if (transport === 'tcp' && q.edns?.keepalive === 'malformed') out = encodeError(q, RCODE.FORMERR, msg);
      else if (options.loaded && !options.loaded()) out = encodeError(q, RCODE.SERVFAIL, msg);
      else out = reply(msg, q, transport, client);
      if (!(out instanceof Promise)) return finish(out, q, type, msg, transport, client, started, keepalive);
      return out.then(
        (o) => finish(o, q, type, msg, transport, client, started, keepalive),
        () => undefined,
      );
    } catch {
      metrics.internalErrors.inc();
      if (!parsed || parsed.kind === 'drop') return undefined;
      try {
        return finish(
          encodeError(parsed, RCODE.SERVFAIL, msg),
          parsed,
          type,
          msg,
          transport,
          client,
          started,
          keepalive,
        );
      } catch {
        return undefined;
      }
    }
  };
}
