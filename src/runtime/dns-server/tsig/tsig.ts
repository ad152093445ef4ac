// TSIG (RFC 8945): BIND key files, verifying a signed request, signing the answers to it, and
// signing our own requests (NOTIFY) and checking their answers. Pure, on node:crypto's HMAC;
// signed-query.ts decides what a failed check answers.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLASS, TYPE } from '../wire/dns-constants.ts';
import { ANCOUNT, ARCOUNT, HEADER_SIZE, idOf, NSCOUNT, QDCOUNT, setId } from '../wire/header.ts';
import { readName } from '../wire/wire-name.ts';

export interface TsigKey {
  /** Canonical key name, e.g. "transfer.example.org.". */
  name: string;
  /** Canonical algorithm name, e.g. "hmac-sha256.". */
  algorithm: string;
  secret: Buffer;
}

/** Seconds of clock difference our signatures allow (RFC 8945 10 recommends 300). */
const FUDGE = 300;

export const TSIG_ERROR = { NOERROR: 0, BADSIG: 16, BADKEY: 17, BADTIME: 18 } as const;
const HASHES: Record<string, string> = { 'hmac-sha256.': 'sha256', 'hmac-sha512.': 'sha512', 'hmac-sha1.': 'sha1' };

function canonical(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}

/** Keys of a BIND key file; a key with an unknown algorithm, or a secret missing or not base64, is an error naming it. */
export function parseKeyFile(text: string, file: string): TsigKey[] {
  const keys: TsigKey[] = [];
  // Comments (#, //, /* */) go, but not inside quotes: a base64 secret can hold "//".
  const body = text.replace(/("[^"]*")|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, quoted?: string) => quoted ?? ' ');
  for (const m of body.matchAll(/key\s+"?([^"\s{]+)"?\s*\{([^}]*)\}\s*;/g)) {
    const name = canonical(m[1]!);
    const algorithm = canonical(/algorithm\s+"?([\w-]+)"?\s*;/.exec(m[2]!)?.[1] ?? '');
    const secret = /secret\s+"([^"]+)"\s*;/.exec(m[2]!)?.[1];
    if (!HASHES[algorithm])
      throw new Error(`${file}: key "${m[1]}": algorithm must be hmac-sha256, hmac-sha512 or hmac-sha1`);
    if (!secret) throw new Error(`${file}: key "${m[1]}": secret "base64"; is missing`);
    // Buffer.from would decode garbage to some other key, and every signature would then fail.
    const base64 = secret.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0)
      throw new Error(`${file}: key "${m[1]}": secret is not base64`);
    keys.push({ name, algorithm, secret: Buffer.from(base64, 'base64') });
  }
  if (keys.length === 0) throw new Error(`${file}: no key "name" { algorithm ...; secret "..."; }; found`);
  return keys;
}

function nameToWire(name: string): Buffer {
  const parts = name === '.' ? [] : name.slice(0, -1).split('.');
  return Buffer.concat([
    ...parts.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])),
    Buffer.from([0]),
  ]);
}

function skipQuestionsAndRecords(msg: Buffer, records: number): number {
  let off = HEADER_SIZE;
  for (let i = 0; i < msg.readUInt16BE(QDCOUNT); i++) off = readName(msg, off).end + 4;
  for (let i = 0; i < records; i++) {
    off = readName(msg, off).end;
    off += 10 + msg.readUInt16BE(off + 8);
  }
  return off;
}

export interface TsigRecord {
  keyName: string;
  algorithm: string;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
  /** Where the TSIG record starts: the message before it is what was signed. */
  start: number;
}

/** The TSIG record ending the additional section, if any (RFC 8945 5.1: it must be last). */
export function findTsig(msg: Buffer): TsigRecord | undefined {
  const total = msg.readUInt16BE(ANCOUNT) + msg.readUInt16BE(NSCOUNT) + msg.readUInt16BE(ARCOUNT);
  if (msg.readUInt16BE(ARCOUNT) === 0) return undefined;
  return readTsig(msg, skipQuestionsAndRecords(msg, total - 1));
}

/** The record at `start` if it is a TSIG record (the query parser knows where it is). Throws when malformed. */
export function readTsig(msg: Buffer, start: number): TsigRecord | undefined {
  const owner = readName(msg, start);
  let off = owner.end;
  if (msg.readUInt16BE(off) !== TYPE.TSIG) return undefined;
  off += 10;
  const alg = readName(msg, off);
  off = alg.end;
  const timeSigned = msg.readUInt16BE(off) * 2 ** 32 + msg.readUInt32BE(off + 2);
  const fudge = msg.readUInt16BE(off + 6);
  const macSize = msg.readUInt16BE(off + 8);
  const mac = msg.subarray(off + 10, off + 10 + macSize);
  off += 10 + macSize;
  const originalId = msg.readUInt16BE(off);
  const error = msg.readUInt16BE(off + 2);
  const otherLen = msg.readUInt16BE(off + 4);
  const other = msg.subarray(off + 6, off + 6 + otherLen);
  return { keyName: owner.name, algorithm: alg.name, timeSigned, fudge, mac, originalId, error, other, start };
}

function time48(seconds: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUInt16BE(Math.floor(seconds / 2 ** 32), 0);
  b.writeUInt32BE(seconds % 2 ** 32, 2);
  return b;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n, 0);
  return b;
}

/** The message as it was before the TSIG record was added: without it, ARCOUNT one less, original ID. */
function unsigned(msg: Buffer, tsig: TsigRecord): Buffer {
  const out = Buffer.from(msg.subarray(0, tsig.start));
  setId(out, tsig.originalId);
  out.writeUInt16BE(msg.readUInt16BE(ARCOUNT) - 1, ARCOUNT);
  return out;
}

function variables(key: TsigKey, timeSigned: number, fudge: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([
    nameToWire(key.name),
    u16(CLASS.ANY),
    Buffer.alloc(4),
    nameToWire(key.algorithm),
    time48(timeSigned),
    u16(fudge),
    u16(error),
    u16(other.length),
    other,
  ]);
}

function hmac(key: TsigKey, parts: Buffer[]): Buffer {
  const h = createHmac(HASHES[key.algorithm]!, key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

export type Verdict =
  { ok: true; key: TsigKey; tsig: TsigRecord } | { ok: false; error: number; key?: TsigKey; tsig: TsigRecord };

/** RFC 8945 5.2: key known (BADKEY), MAC right (BADSIG), time within the fudge (BADTIME), in that order. */
export function verifyRequest(msg: Buffer, tsig: TsigRecord, keys: readonly TsigKey[], now: number): Verdict {
  const key = keys.find((k) => k.name === tsig.keyName && k.algorithm === tsig.algorithm);
  if (!key) return { ok: false, error: TSIG_ERROR.BADKEY, tsig };
  const expected = hmac(key, [
    unsigned(msg, tsig),
    variables(key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.other),
  ]);
  // A truncated MAC shorter than half the hash (or 10 bytes) is not accepted (RFC 8945 5.2.2.1).
  const minimum = Math.max(10, expected.length / 2);
  if (tsig.mac.length < minimum || tsig.mac.length > expected.length)
    return { ok: false, error: TSIG_ERROR.BADSIG, key, tsig };
  if (!timingSafeEqual(expected.subarray(0, tsig.mac.length), tsig.mac))
    return { ok: false, error: TSIG_ERROR.BADSIG, key, tsig };
  if (Math.abs(now - tsig.timeSigned) > tsig.fudge) return { ok: false, error: TSIG_ERROR.BADTIME, key, tsig };
  return { ok: true, key, tsig };
}

function tsigRecord(
  key: TsigKey,
  timeSigned: number,
  fudge: number,
  mac: Buffer,
  id: number,
  error: number,
  other: Buffer,
): Buffer {
  const rdata = Buffer.concat([
    nameToWire(key.algorithm),
    time48(timeSigned),
    u16(fudge),
    u16(mac.length),
    mac,
    u16(id),
    u16(error),
    u16(other.length),
    other,
  ]);
  const head = Buffer.alloc(10);
  head.writeUInt16BE(TYPE.TSIG, 0);
  head.writeUInt16BE(CLASS.ANY, 2);
  head.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([nameToWire(key.name), head, rdata]);
}

function append(msg: Buffer, record: Buffer): Buffer {
  const out = Buffer.concat([msg, record]);
  out.writeUInt16BE(msg.readUInt16BE(ARCOUNT) + 1, ARCOUNT);
  return out;
}

/**
 * Signs the messages answering a verified request: the first over the request's MAC, the message
 * and all variables; each next one over the previous MAC, the message and the timers (RFC 8945 5.3.1).
 */
export class TsigSigner {
  private readonly key: TsigKey;
  private readonly now: () => number;
  private previous: Buffer;
  private first = true;

  constructor(key: TsigKey, request: TsigRecord, now: () => number) {
    this.key = key;
    this.now = now;
    this.previous = request.mac;
  }

  sign(msg: Buffer, error = 0, other: Buffer = Buffer.alloc(0)): Buffer {
    const time = this.now();
    const tail = this.first
      ? variables(this.key, time, FUDGE, error, other)
      : Buffer.concat([time48(time), u16(FUDGE)]);
    this.first = false;
    const mac = hmac(this.key, [u16(this.previous.length), this.previous, msg, tail]);
    this.previous = mac;
    return append(msg, tsigRecord(this.key, time, FUDGE, mac, idOf(msg), error, other));
  }
}

/** An error answer's TSIG for BADKEY/BADSIG: unsigned, MAC empty (RFC 8945 5.3.2). */
export function unsignedTsig(msg: Buffer, tsig: TsigRecord, error: number): Buffer {
  const key: TsigKey = { name: tsig.keyName, algorithm: tsig.algorithm, secret: Buffer.alloc(0) };
  return append(msg, tsigRecord(key, tsig.timeSigned, tsig.fudge, Buffer.alloc(0), idOf(msg), error, Buffer.alloc(0)));
}

/** BADTIME answers carry the server's time in Other Data (RFC 8945 5.2.3). */
export function serverTime(now: number): Buffer {
  return time48(now);
}

/** Signs a request of ours (NOTIFY): the MAC covers the message and all variables (RFC 8945 4.3.1). */
export function signRequest(msg: Buffer, key: TsigKey, now: number): { signed: Buffer; mac: Buffer } {
  const empty = Buffer.alloc(0);
  const mac = hmac(key, [msg, variables(key, now, FUDGE, 0, empty)]);
  return { signed: append(msg, tsigRecord(key, now, FUDGE, mac, idOf(msg), 0, empty)), mac };
}

/**
 * Whether an answer to our signed request is signed by the same key over our request's MAC
 * (RFC 8945 5.3.1), within the fudge of `now`.
 */
export function verifyResponse(msg: Buffer, key: TsigKey, requestMac: Buffer, now: number): boolean {
  let tsig: TsigRecord | undefined;
  try {
    tsig = findTsig(msg);
  } catch {
    return false;
  }
  if (!tsig || tsig.keyName !== key.name || tsig.algorithm !== key.algorithm || tsig.error !== 0) return false;
  const expected = hmac(key, [
    u16(requestMac.length),
    requestMac,
    unsigned(msg, tsig),
    variables(key, tsig.timeSigned, tsig.fudge, tsig.error, tsig.other),
  ]);
  return (
    tsig.mac.length === expected.length &&
    timingSafeEqual(expected, tsig.mac) &&
    Math.abs(now - tsig.timeSigned) <= tsig.fudge
  );
}
