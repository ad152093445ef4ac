// Zone transfers out (AXFR over TCP): who may transfer, and the TSIG keys they must sign with.
import * as v from 'valibot';
import { cidr, list, path } from './field-rules.ts';

export const transferSchema = v.object({
  /** Secondaries' addresses or prefixes ("192.0.2.53/32", "10.0.0.0/8"); everyone else is REFUSED. */
  allowCidrs: list(cidr, 'CIDRs of the secondaries allowed to transfer'),
  /**
   * BIND key file (`key "name" { algorithm hmac-sha256; secret "base64"; };`). When set, a transfer
   * must be signed with one of its keys (TSIG, RFC 8945); unsigned requests are REFUSED.
   */
  keyFile: v.optional(path),
});

export type TransferConfig = v.InferOutput<typeof transferSchema>;
