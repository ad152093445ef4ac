// Where the A and AAAA RRsets of more than one record sit in an encoded answer, and how to write
// them in another order. An answer is cached as bytes; reordering those bytes in place (each
// record's TTL, RDLENGTH and address move together, the owner name, type and class stay) costs a
// few small copies per send instead of an encode. Owner names stay put because the first one may
// be written out and the others point at it (name compression): they are the same name.
import { TYPE } from './dns-constants.ts';
import { ANCOUNT, HEADER_SIZE, QDCOUNT } from './header.ts';
import { skipName } from './query-parser.ts';

/** One RRset of A or AAAA records in the answer section, in the order the encoding has them. */
export interface AddressRrset {
  /** Offset of each record's TTL: from there TTL, RDLENGTH and the address are `size` bytes. */
  offsets: number[];
  /** 10 for A (4 + 2 + 4), 22 for AAAA (4 + 2 + 16). */
  size: number;
}

const POINTER = 0xc0;

/** A (possibly compressed) name's labels from `off`, lower-cased and joined, to compare owners. */
function ownerKey(buf: Buffer, off: number): string | undefined {
  let key = '';
  for (let hops = 0; off < buf.length && hops < 64;) {
    const len = buf[off]!;
    if (len === 0) return key;
    if ((len & POINTER) === POINTER) {
      if (off + 1 >= buf.length) return undefined;
      off = ((len & 0x3f) << 8) | buf[off + 1]!;
      hops += 1;
      continue;
    }
    key += `${buf.toString('latin1', off + 1, off + 1 + len).toLowerCase()}.`;
    off += 1 + len;
  }
  return undefined;
}

/**
 * The answer section's runs of two or more consecutive A (or AAAA) records of one owner name;
 * empty when there are none, or when the bytes do not read as expected (then nothing is moved).
 */
export function addressRrsets(buf: Buffer): AddressRrset[] {
  if (buf.length < HEADER_SIZE) return [];
  let off = HEADER_SIZE;
  for (let i = buf.readUInt16BE(QDCOUNT); i > 0; i--) {
    off = skipName(buf, off);
    if (off < 0) return [];
    off += 4;
  }
  const found: AddressRrset[] = [];
  let run: AddressRrset | undefined;
  let runOwner: string | undefined;
  let runType = 0;
  for (let i = buf.readUInt16BE(ANCOUNT); i > 0; i--) {
    const owner = off;
    off = skipName(buf, off);
    if (off < 0 || off + 10 > buf.length) return [];
    const type = buf.readUInt16BE(off);
    const rdLength = buf.readUInt16BE(off + 8);
    const ttlAt = off + 4;
    off += 10 + rdLength;
    if (off > buf.length) return [];
    const address = (type === TYPE.A && rdLength === 4) || (type === TYPE.AAAA && rdLength === 16);
    const key = address ? ownerKey(buf, owner) : undefined;
    if (key !== undefined && run && type === runType && key === runOwner) {
      run.offsets.push(ttlAt);
      continue;
    }
    if (run && run.offsets.length > 1) found.push(run);
    run = key === undefined ? undefined : { offsets: [ttlAt], size: 6 + rdLength };
    runOwner = key;
    runType = type;
  }
  if (run && run.offsets.length > 1) found.push(run);
  return found;
}

/** The address of record `i` of an RRset (4 or 16 bytes, a view into `buf`). */
export function addressOf(buf: Buffer, rrset: AddressRrset, i: number): Buffer {
  const start = rrset.offsets[i]! + 6;
  return buf.subarray(start, start + rrset.size - 6);
}

/** Writes the RRset's records into `out` (a copy of `template`) in `order`: out's i-th is template's order[i]-th. */
export function writeOrder(out: Buffer, template: Buffer, rrset: AddressRrset, order: readonly number[]): void {
  const { offsets, size } = rrset;
  for (let i = 0; i < order.length; i++) {
    const from = offsets[order[i]!]!;
    const to = offsets[i]!;
    // 10 or 22 bytes: a loop costs less than a copy call (which makes a view to copy from).
    if (from !== to) for (let b = 0; b < size; b++) out[to + b] = template[from + b]!;
  }
}
