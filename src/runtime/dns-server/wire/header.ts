// The DNS message header (RFC 1035 4.1.1): its size, where each count sits, and its bits. Every
// reader and writer of message bytes in the server takes them from here.
//
//   0  ID (16)
//   2  QR(1) OPCODE(4) AA(1) TC(1) RD(1) | RA(1) Z(1) AD(1) CD(1) RCODE(4)
//   4  QDCOUNT  6 ANCOUNT  8 NSCOUNT  10 ARCOUNT

export const HEADER_SIZE = 12;
export const QDCOUNT = 4;
export const ANCOUNT = 6;
export const NSCOUNT = 8;
export const ARCOUNT = 10;

/** Byte 2: QR, OPCODE, AA, TC, RD. */
const QR = 0x80;
const TC = 0x02;
const RD = 0x01;
/** Byte 3: RA, Z, AD, CD, RCODE. */
const CD = 0x10;
const RCODE_BITS = 0x0f;

/** The message's ID. */
export function idOf(msg: Buffer): number {
  return msg.readUInt16BE(0);
}

export function setId(msg: Buffer, id: number): void {
  msg.writeUInt16BE(id, 0);
}

export function isResponse(msg: Uint8Array): boolean {
  return (msg[2]! & QR) !== 0;
}

export function opcodeOf(msg: Uint8Array): number {
  return (msg[2]! >> 3) & 0x0f;
}

/** The header's four rcode bits (an extended rcode's high bits are in the OPT record). */
export function rcodeOf(msg: Uint8Array): number {
  return msg[3]! & RCODE_BITS;
}

/** The part of an rcode the header carries (an extended rcode's high bits go in the OPT record). */
export function headerRcode(rcode: number): number {
  return rcode & RCODE_BITS;
}

export function isTruncated(msg: Uint8Array): boolean {
  return (msg[2]! & TC) !== 0;
}

export function setTruncated(msg: Uint8Array): void {
  msg[2] = msg[2]! | TC;
}

export function clearResponse(msg: Uint8Array): void {
  msg[2] = msg[2]! & ~QR;
}

/** A stored answer made the answer to `query`: its ID, and the RD and CD bits it asked with. */
export function copyIdAndFlags(answer: Uint8Array, query: Uint8Array): void {
  answer[0] = query[0]!;
  answer[1] = query[1]!;
  answer[2] = (answer[2]! & ~RD) | (query[2]! & RD);
  answer[3] = (answer[3]! & ~CD) | (query[3]! & CD);
}
