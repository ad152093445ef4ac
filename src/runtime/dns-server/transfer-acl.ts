// Who may transfer a zone: the client's address must be on the allow list and, when keys are
// configured, the request must carry a valid TSIG. Pure: the transfer code answers the verdict.
import { cidrMatcher } from './forwarder.ts';
import { findTsig, verifyRequest, type TsigKey, type TsigRecord } from './tsig.ts';

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

export function decideTransfer(policy: TransferPolicy, client: string, msg: Buffer, now: number): TransferDecision {
  let tsig: TsigRecord | undefined;
  try {
    tsig = findTsig(msg);
  } catch {
    return { kind: 'refuse', reason: 'malformed TSIG record' };
  }
  // A signed request is checked even from an unlisted address, so a bad key is reported as such.
  if (tsig && policy.keys.length > 0) {
    const verdict = verifyRequest(msg, tsig, policy.keys, now);
    if (!verdict.ok) {
      const name = TSIG_ERROR_NAMES[verdict.error] ?? String(verdict.error);
      return {
        kind: 'notauth',
        error: verdict.error,
        tsig,
        ...(verdict.key ? { key: verdict.key } : {}),
        reason: `TSIG ${name} (key ${tsig.keyName})`,
      };
    }
  }
  if (!policy.allows(client)) return { kind: 'refuse', reason: 'address not in transfer.allowCidrs' };
  if (policy.keys.length === 0) return { kind: 'allow' };
  if (!tsig) return { kind: 'refuse', reason: 'unsigned request: transfer.keyFile requires TSIG' };
  const key = policy.keys.find((k) => k.name === tsig.keyName)!;
  return { kind: 'allow', key, tsig };
}
