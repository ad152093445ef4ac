// Zone transfers out (AXFR and IXFR over TCP): who may transfer, the TSIG keys they must sign with,
// and whom to NOTIFY of changes. Server-wide, or per zone (a zone's own replaces the server's).
import * as v from 'valibot';
import { cidr, list, path, upstream } from './field-rules.ts';

export const transferSchema = v.object({
  /** Secondaries' addresses or prefixes ("192.0.2.53/32", "10.0.0.0/8"); everyone else is REFUSED. */
  allowCidrs: list(cidr, 'CIDRs of the secondaries allowed to transfer'),
  /**
   * BIND key file (`key "name" { algorithm hmac-sha256; secret "base64"; };`). When set, a transfer
   * must be signed with one of its keys (TSIG, RFC 8945); unsigned requests are REFUSED.
   */
  keyFile: v.optional(path),
  /**
   * Secondaries told of every change of the zone (NOTIFY, RFC 1996), "ip" or "ip:port" (53 when
   * absent); signed with the key file's first key when there is one. None when absent: the
   * secondaries then find changes by their SOA refresh timer.
   */
  notify: v.optional(list(upstream, 'secondaries to NOTIFY, "ip" or "ip:port"')),
});

export type TransferConfig = v.InferOutput<typeof transferSchema>;
