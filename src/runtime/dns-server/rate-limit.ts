// Response rate limiting (RRL) for UDP, as BIND's rate-limit and Knot's rrl module do it: a
// spoofed-source flood must not turn the server into an amplifier aimed at its victim. Responses
// are counted per client prefix (IPv4 /24, IPv6 /56 by default) and per response: the question
// for answers, the whole prefix for NXDOMAIN and errors (so random names do not escape the
// count). Each account earns `responsesPerSecond` credits a second, may owe at most `window`
// seconds of them, and pays one per response. Without credit the response is dropped, except
// every `slip`-th one, which goes out truncated (TC=1, no records): a real client behind that
// prefix retries over TCP, which is never limited, and a spoofed one cannot. Pure: the caller
// gives the clock, and the response's rcode and question as the dispatch knows them (the reply's
// bytes are not read again).
import type { ServerConfig } from '../../config/server-config.ts';
import { parseAddress } from '../../dns/cidr.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, NSCOUNT, QDCOUNT, setTruncated } from './wire/header.ts';

export interface RateLimitSettings {
  responsesPerSecond: number;
  windowSeconds: number;
  /** Every slip-th limited response is sent truncated; 0: none (all dropped), 1: all truncated. */
  slip: number;
  ipv4PrefixLength: number;
  ipv6PrefixLength: number;
}

export const RATE_LIMIT_DEFAULTS: RateLimitSettings = {
  responsesPerSecond: 20,
  windowSeconds: 15,
  slip: 2,
  ipv4PrefixLength: 24,
  ipv6PrefixLength: 56,
};

/** The settings a server runs with: the configured ones over the defaults; undefined when off. */
export function rateLimitSettings(config: Pick<ServerConfig, 'rateLimit' | 'exposure'>): RateLimitSettings | undefined {
  const on = config.rateLimit?.responsesPerSecond ?? (config.exposure === 'external' ? 1 : 0);
  if (on === 0) return undefined;
  const given = Object.fromEntries(Object.entries(config.rateLimit ?? {}).filter(([, value]) => value !== undefined));
  return { ...RATE_LIMIT_DEFAULTS, ...given };
}

export type RateLimitVerdict = 'send' | 'slip' | 'drop';

interface Account {
  balance: number;
  at: number;
  limited: number;
}

/** Accounts kept at most; past that, the longest untouched go first (a flood of prefixes cannot grow memory). */
const MAX_ACCOUNTS = 100_000;

const RCODE_NOERROR = 0;

/** What a response is charged by: its rcode, and its question (lower-case wire bytes, type and class). */
export interface RatedResponse {
  rcode: number;
  question: string;
}

/** The client's prefix as text: family, prefix length and the address's bits above it. */
export function clientPrefix(address: string, settings: RateLimitSettings): string {
  const parsed = parseAddress(address);
  if (!parsed) return address;
  const width = parsed.family === 4 ? 32 : 128;
  const bits = parsed.family === 4 ? settings.ipv4PrefixLength : settings.ipv6PrefixLength;
  return `${parsed.family}/${bits}/${(parsed.value >> BigInt(width - bits)).toString(16)}`;
}

/** The account a response is charged to. */
export function accountKey(prefix: string, response: RatedResponse): string {
  // Answers count per question; NXDOMAIN and errors per prefix, so random names share one account.
  return response.rcode === RCODE_NOERROR ? `${prefix} ${response.question}` : `${prefix} rcode ${response.rcode}`;
}

/**
 * A response with TC set and no records: the question only (the header and `questionEnd` bytes,
 * none when there is none), so the client retries over TCP.
 */
export function truncated(reply: Buffer, questionEnd: number): Buffer {
  const end = Math.max(questionEnd, HEADER_SIZE);
  const out = Buffer.from(reply.subarray(0, end));
  setTruncated(out);
  out.writeUInt16BE(end > HEADER_SIZE ? 1 : 0, QDCOUNT);
  out.writeUInt16BE(0, ANCOUNT);
  out.writeUInt16BE(0, NSCOUNT);
  out.writeUInt16BE(0, ARCOUNT);
  return out;
}

export class ResponseRateLimiter {
  private readonly settings: RateLimitSettings;
  private readonly accounts = new Map<string, Account>();

  constructor(settings: RateLimitSettings) {
    this.settings = settings;
  }

  /** Charges one response to its account at time `now` (seconds) and says what to do with it. */
  check(client: string, response: RatedResponse, now: number): RateLimitVerdict {
    const { responsesPerSecond: rate, windowSeconds, slip } = this.settings;
    const key = accountKey(clientPrefix(client, this.settings), response);
    let account = this.accounts.get(key);
    if (account) {
      this.accounts.delete(key);
      account.balance = Math.min(rate, account.balance + (now - account.at) * rate);
      account.at = now;
    } else {
      if (this.accounts.size >= MAX_ACCOUNTS) this.accounts.delete(this.accounts.keys().next().value!);
      account = { balance: rate, at: now, limited: 0 };
    }
    // Re-inserted: the Map's order is least recently used first.
    this.accounts.set(key, account);
    account.balance = Math.max(account.balance - 1, -rate * windowSeconds);
    if (account.balance >= 0) return 'send';
    account.limited += 1;
    return slip > 0 && account.limited % slip === 0 ? 'slip' : 'drop';
  }

  get size(): number {
    return this.accounts.size;
  }
}
