// The id of a child entry (docs/skydns-layout.md "Keys"): 8 hex digits of a hash of what the
// record is ("TXT <text>", "A <address>", ...), so the same record always gets the same key and a
// rewrite of unchanged state changes nothing in etcd. The controller and the DNS server's
// UPDATE both name their entries so.
import { createHash } from 'node:crypto';

export function childLabelOf(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 8);
}
