// edns-tcp-keepalive (RFC 7828) in an answer: the idle timeout of the connection, in units of
// 100 ms, told to a client that asked for it over TCP (never over UDP: the dispatch decides).
import { withOption } from './edns-option.ts';
import { KEEPALIVE_OPTION } from './query-parser.ts';

/** The largest DNS message over TCP (its two-byte length prefix). */
const TCP_MAX = 65535;

/** A timeout in RFC 7828's units of 100 ms, rounded up (0 only for 0), at most 65535. */
export function keepaliveUnits(timeoutMs: number): number {
  return Math.min(Math.ceil(timeoutMs / 100), 0xffff);
}

/**
 * The answer with the option carrying `units` appended to its OPT record (edns-option.ts: when
 * that record ends the message and the answer stays within 64 KiB); unchanged otherwise.
 */
export function withKeepalive(reply: Buffer, units: number): Buffer {
  const value = Buffer.allocUnsafe(2);
  value.writeUInt16BE(units);
  return withOption(reply, KEEPALIVE_OPTION, value, TCP_MAX);
}
