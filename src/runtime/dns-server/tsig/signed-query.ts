// TSIG on a request (RFC 8945), checked once by the dispatch before it answers: a secondary signs
// its SOA queries and transfers with the transfer key and drops an unsigned answer, so a signed
// query is answered signed, and one that fails the check gets NOTAUTH with the TSIG error instead
// of an answer. Transfers judge the same check against their zone's policy (../transfer/transfer-acl.ts).
import { RCODE } from '../wire/dns-constants.ts';
import type { QueryHeader } from '../wire/query-parser.ts';
import { encodeError } from '../wire/response-encoder.ts';
import {
  readTsig,
  serverTime,
  TSIG_ERROR,
  TsigSigner,
  unsignedTsig,
  verifyRequest,
  type TsigKey,
  type TsigRecord,
} from './tsig.ts';

/** A request's TSIG: none, malformed, verified with a key, or failed with a TSIG error. */
export type TsigCheck =
  | { kind: 'none' }
  | { kind: 'malformed' }
  | { kind: 'ok'; key: TsigKey; tsig: TsigRecord }
  | { kind: 'failed'; error: number; tsig: TsigRecord; key?: TsigKey | undefined };

export const UNSIGNED: TsigCheck = { kind: 'none' };

/** Checks the TSIG record at `start` (from the query parser; -1: none) against `keys`, at `now` (seconds). */
export function checkTsig(msg: Buffer, start: number, keys: readonly TsigKey[], now: number): TsigCheck {
  if (start < 0) return UNSIGNED;
  let tsig: TsigRecord | undefined;
  try {
    tsig = readTsig(msg, start);
  } catch {
    return { kind: 'malformed' };
  }
  if (!tsig) return UNSIGNED;
  const verdict = verifyRequest(msg, tsig, keys, now);
  return verdict.ok ? { kind: 'ok', key: verdict.key, tsig } : { kind: 'failed', ...verdict };
}

/** NOTAUTH for a failed TSIG check: signed back only for BADTIME with a known key (RFC 8945 5.2). */
export function tsigFailure(
  q: QueryHeader,
  msg: Buffer,
  failed: { error: number; tsig: TsigRecord; key?: TsigKey | undefined },
  now: () => number,
): Buffer {
  const bare = encodeError(q, RCODE.NOTAUTH, msg);
  if (failed.error === TSIG_ERROR.BADTIME && failed.key)
    return new TsigSigner(failed.key, failed.tsig, now).sign(bare, failed.error, serverTime(now()));
  return unsignedTsig(bare, failed.tsig, failed.error);
}

/**
 * What a query that failed its check gets instead of an answer (FORMERR for a malformed TSIG,
 * NOTAUTH for a failed one), or undefined when it is to be answered.
 */
export function refusedBySignature(
  q: QueryHeader,
  msg: Buffer,
  check: TsigCheck,
  now: () => number,
): Buffer | undefined {
  if (check.kind === 'malformed') return encodeError(q, RCODE.FORMERR, msg);
  if (check.kind === 'failed') return tsigFailure(q, msg, check, now);
  return undefined;
}

/** The answer to a query whose check passed: signed with the request's key, as is when unsigned. */
export function signAnswer(answer: Buffer, check: TsigCheck, now: () => number): Buffer {
  return check.kind === 'ok' ? new TsigSigner(check.key, check.tsig, now).sign(answer) : answer;
}
