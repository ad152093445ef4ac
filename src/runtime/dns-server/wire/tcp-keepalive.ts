// edns-tcp-keepalive (RFC 7828) in an answer: the idle timeout of the connection, in units of
// 100 ms, told to a client that asked for it over TCP (never over UDP: the dispatch decides).
import { TYPE } from './dns-constants.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, NSCOUNT, QDCOUNT } from './header.ts';
import { KEEPALIVE_OPTION, skipName } from './query-parser.ts';

/** The largest DNS message over TCP (its two-byte length prefix). */
const TCP_MAX = 65535;

/** A timeout in RFC 7828's units of 100 ms, rounded up (0 only for 0), at most 65535. */
export function keepaliveUnits(timeoutMs: number): number {
  return Math.min(Math.ceil(timeoutMs / 100), 0xffff);
}

/**
 * The answer with the option carrying `units` appended to its OPT record, when that record ends
 * the message (as in every answer we encode; a signed answer ends with its TSIG and is left as it
 * is, as is one that would grow past 64 KiB); the answer unchanged otherwise.
 */
export function withKeepalive(reply: Buffer, units: number): Buffer {
  if (reply.length + 6 > TCP_MAX) return reply;
  const optStart = lastRecordStart(reply);
  if (optStart < 0) return reply;
  const off = skipName(reply, optStart);
  if (off !== optStart + 1 || reply.readUInt16BE(off) !== TYPE.OPT) return reply;
  if (off + 10 + reply.readUInt16BE(off + 8) !== reply.length) return reply;
  const option = Buffer.allocUnsafe(6);
  option.writeUInt16BE(KEEPALIVE_OPTION, 0);
  option.writeUInt16BE(2, 2);
  option.writeUInt16BE(units, 4);
  const out = Buffer.concat([reply, option]);
  out.writeUInt16BE(reply.readUInt16BE(off + 8) + 6, off + 8);
  return out;
}

/** Where the message's last record starts, or -1 (no record, or it does not parse). */
function lastRecordStart(msg: Buffer): number {
  if (msg.length < HEADER_SIZE) return -1;
  let off = HEADER_SIZE;
  for (let q = msg.readUInt16BE(QDCOUNT); q > 0; q--) {
    off = skipName(msg, off);
    if (off < 0) return -1;
    off += 4;
  }
  const records = msg.readUInt16BE(ANCOUNT) + msg.readUInt16BE(NSCOUNT) + msg.readUInt16BE(ARCOUNT);
  let last = -1;
  for (let i = 0; i < records; i++) {
    last = off;
    off = skipName(msg, off);
    if (off < 0 || off + 10 > msg.length) return -1;
    off += 10 + msg.readUInt16BE(off + 8);
  }
  return off === msg.length ? last : -1;
}
