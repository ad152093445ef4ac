// TSIG on ordinary queries (RFC 8945 5): a secondary signs its SOA queries with the transfer key
// and drops an unsigned answer, so a signed query is answered signed, and one that fails the
// check gets NOTAUTH with the TSIG error instead of an answer.
import { RCODE } from './dns-constants.ts';
import type { ParsedQuery } from './query-parser.ts';
import { encodeError } from './response-encoder.ts';
import {
  findTsig,
  serverTime,
  TSIG_ERROR,
  TsigSigner,
  unsignedTsig,
  verifyRequest,
  type TsigKey,
  type TsigRecord,
} from './tsig.ts';

/** NOTAUTH for a failed TSIG check: signed back only for BADTIME with a known key (RFC 8945 5.2). */
export function tsigFailure(
  q: ParsedQuery,
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
 * The answer to a signed query, from the unsigned `answer` made as for any other query: signed
 * with the request's key when it checks out (a key the server does not know: BADKEY).
 */
export function signAnswer(
  msg: Buffer,
  q: ParsedQuery,
  answer: Buffer,
  keys: readonly TsigKey[],
  now: () => number,
): Buffer {
  let tsig: TsigRecord | undefined;
  try {
    tsig = findTsig(msg);
  } catch {
    return encodeError(q, RCODE.FORMERR, msg);
  }
  if (!tsig) return answer;
  const verdict = verifyRequest(msg, tsig, keys, now());
  if (!verdict.ok) return tsigFailure(q, msg, verdict, now);
  return new TsigSigner(verdict.key, tsig, now).sign(answer);
}
