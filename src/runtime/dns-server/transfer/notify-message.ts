// NOTIFY (RFC 1996) as bytes: the message telling a secondary that a zone changed, and the check
// that an answer is the secondary's acknowledgement of it. Pure.
import { CLASS, TYPE } from '../wire/dns-constants.ts';
import type { ResourceRecord } from '../wire/dns-message.ts';
import { clearResponse, HEADER_SIZE, idOf, isResponse, opcodeOf, rcodeOf } from '../wire/header.ts';
import { encodeAnswer } from '../wire/response-encoder.ts';

export const OPCODE_NOTIFY = 4;

/**
 * NOTIFY for a zone: AA set, the zone's SOA as the question, and its new SOA in the answer
 * section (RFC 1996 3.7: a hint the secondary may use to skip asking for the serial).
 */
export function notifyMessage(id: number, zone: string, soa: ResourceRecord): Buffer {
  const msg = encodeAnswer(
    { id, opcode: OPCODE_NOTIFY, questionEnd: 0, edns: undefined, name: zone, type: TYPE.SOA, class: CLASS.IN },
    { rcode: 0, authoritative: true, answer: [soa], authority: [], additional: [] },
    512,
  );
  // The encoder writes answers; a NOTIFY is a request (QR clear).
  clearResponse(msg);
  return msg;
}

export type NotifyReply = { kind: 'ack' } | { kind: 'error'; rcode: number } | { kind: 'other' };

/** What an answer says of our NOTIFY `id`: acknowledged, refused with an rcode, or not an answer to it. */
export function notifyReply(msg: Buffer, id: number): NotifyReply {
  if (msg.length < HEADER_SIZE || idOf(msg) !== id) return { kind: 'other' };
  if (!isResponse(msg) || opcodeOf(msg) !== OPCODE_NOTIFY) return { kind: 'other' };
  const rcode = rcodeOf(msg);
  return rcode === 0 ? { kind: 'ack' } : { kind: 'error', rcode };
}
