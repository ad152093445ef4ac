// The SOA serial inside an encoded answer. Negative answers carry the zone's SOA, whose serial
// moves with every change anywhere in the zone; a cached negative answer stays valid across those
// changes if the serial is written afresh when it is sent, so the cache keeps it and this file
// finds where the serial sits and writes it.
import { TYPE } from './dns-constants.ts';
import { ANCOUNT, HEADER_SIZE, NSCOUNT, QDCOUNT } from './header.ts';

/** The offset just past a (possibly compressed) name starting at `off`, or -1 if malformed. */
function skipName(buf: Buffer, off: number): number {
  while (off < buf.length) {
    const len = buf[off]!;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2;
    off += 1 + len;
  }
  return -1;
}

/**
 * Where the serial of the one SOA record in the answer and authority sections starts, or -1 when
 * there is none, or more than one (then which zone each belongs to is not known here).
 */
export function soaSerialOffset(buf: Buffer): number {
  if (buf.length < HEADER_SIZE) return -1;
  const questions = buf.readUInt16BE(QDCOUNT);
  const records = buf.readUInt16BE(ANCOUNT) + buf.readUInt16BE(NSCOUNT);
  let off = HEADER_SIZE;
  for (let i = 0; i < questions; i++) {
    off = skipName(buf, off);
    if (off < 0) return -1;
    off += 4;
  }
  let found = -1;
  for (let i = 0; i < records; i++) {
    off = skipName(buf, off);
    if (off < 0 || off + 10 > buf.length) return -1;
    const type = buf.readUInt16BE(off);
    const rdLength = buf.readUInt16BE(off + 8);
    const rdata = off + 10;
    if (type === TYPE.SOA) {
      if (found >= 0) return -1;
      const rname = skipName(buf, rdata);
      const serial = rname < 0 ? -1 : skipName(buf, rname);
      if (serial < 0 || serial + 4 > rdata + rdLength) return -1;
      found = serial;
    }
    off = rdata + rdLength;
  }
  return found;
}

/** The serial as the SOA carries it: 32 bits, never 0 (some secondaries read 0 as "unset"). */
export function wireSerial(serial: number): number {
  return serial % 2 ** 32 || 1;
}
