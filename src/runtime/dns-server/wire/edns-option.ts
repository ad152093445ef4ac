// An EDNS option appended to an answer's OPT record (edns-tcp-keepalive, NSID): after the answer
// is made (or taken from the cache), so the cached bytes stay alike for every client and a query
// that asks for no option costs nothing more.
import { TYPE } from './dns-constants.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, NSCOUNT, QDCOUNT } from './header.ts';
import { skipName } from './query-parser.ts';

/**
 * The answer with the option `code` carrying `data` appended to its OPT record, when that record
 * ends the message (as in every answer we encode; a signed answer ends with its TSIG and is left
 * as it is) and the result fits in `limit` bytes; the answer unchanged otherwise.
 */
export function withOption(reply: Buffer, code: number, data: Uint8Array, limit: number): Buffer {
  if (reply.length + 4 + data.length > limit) return reply;
  const optStart = lastRecordStart(reply);
  if (optStart < 0) return reply;
  const off = skipName(reply, optStart);
  if (off !== optStart + 1 || reply.readUInt16BE(off) !== TYPE.OPT) return reply;
  if (off + 10 + reply.readUInt16BE(off + 8) !== reply.length) return reply;
  const out = Buffer.allocUnsafe(reply.length + 4 + data.length);
  out.set(reply);
  out.writeUInt16BE(code, reply.length);
  out.writeUInt16BE(data.length, reply.length + 2);
  out.set(data, reply.length + 4);
  out.writeUInt16BE(reply.readUInt16BE(off + 8) + 4 + data.length, off + 8);
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
