// Who may transfer a zone: the client's address must be on the allow list and, when keys are
// configured, the request must carry a valid TSIG. Pure: the request's TSIG is checked once by the
// dispatch (../tsig/signed-query.ts), against the zone's keys; the transfer code answers the verdict.
import { cidrMatcher } from '../../../dns/cidr.ts';
import type { TsigCheck } from '../tsig/signed-query.ts';
import type { TsigKey, TsigRecord } from '../tsig/tsig.ts';

export interface TransferPolicy {
  allows: (client: string) => boolean;
  /** Empty: no TSIG required (address list only). */
  keys: readonly TsigKey[];
}

export function transferPolicy(allowCidrs: string[], keys: readonly TsigKey[]): TransferPolicy {
  return { allows: cidrMatcher(allowCidrs), keys };
}

export type TransferDecision =
  | { kind: 'allow'; key?: TsigKey; tsig?: TsigRecord }
  | { kind: 'refuse'; reason: string }
  /** TSIG failed: NOTAUTH with this TSIG error; signed back only when the key is known (BADTIME). */
  | { kind: 'notauth'; error: number; tsig: TsigRecord; key?: TsigKey; reason: string };

const TSIG_ERROR_NAMES: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME' };

export function decideTransfer(policy: TransferPolicy, client: string, check: TsigCheck): TransferDecision {
  if (check.kind === 'malformed') return { kind: 'refuse', reason: 'malformed TSIG record' };
  // A signed request is checked even from an unlisted address, so a bad key is reported as such.
  if (check.kind === 'failed' && policy.keys.length > 0) {
    const name = TSIG_ERROR_NAMES[check.error] ?? String(check.error);
    return {
      kind: 'notauth',
      error: check.error,
      tsig: check.tsig,
      ...(check.key ? { key: check.key } : {}),
      reason: `TSIG ${name} (key ${check.tsig.keyName})`,
    };
  }
  if (!policy.allows(client)) return { kind: 'refuse', reason: 'address not in transfer.allowCidrs' };
  if (policy.keys.length === 0) return { kind: 'allow' };
  if (check.kind !== 'ok') return { kind: 'refuse', reason: 'unsigned request: transfer.keyFile requires TSIG' };
  return { kind: 'allow', key: check.key, tsig: check.tsig };
}
