// The one rule for which record types an entry gives at a name, shared by the default mode's
// answers and by every zone transfer (so a secondary holds exactly what etcdns answers). A zone
// holds nothing beside a CNAME (RFC 1034 3.6.2, RFC 2181 10.1), so an entry whose `host` is a name
// gives exactly one type, decided by where it sits and what it says:
// - PTR in a reverse zone (in-addr.arpa, ip6.arpa);
// - SRV at a service name (`_service._proto.<name>`, RFC 2782) or where a port is given;
// - MX where it says `mail`;
// - else CNAME, except at a zone apex (which holds SOA and NS): there it gives nothing.
// An entry whose host is an address gives A or AAAA, plus MX where it says `mail` and SRV where
// the SRV rule above holds (its target named after its key). `port: -1` gives no SRV, as in
// CoreDNS. The server's `lookup: subtree` answers as CoreDNS instead; its transfers use this.
import { labelsOf } from '../dns/dns-name.ts';
import type { RecordType } from '../dns/record-types.ts';
import type { SkyDnsEntry } from './skydns-entry.ts';

export type NameHostType = Extract<RecordType, 'CNAME' | 'PTR' | 'SRV' | 'MX'>;

const REVERSE = /(^|\.)(in-addr|ip6)\.arpa\.$/;

export function isReverseName(name: string): boolean {
  return REVERSE.test(name);
}

/** RFC 2782's `_Service._Proto.Name`: the two leftmost labels start with "_" (not `_dmarc.<name>`). */
export function isServiceName(name: string): boolean {
  const labels = labelsOf(name);
  return labels.length >= 2 && labels[0]!.startsWith('_') && labels[1]!.startsWith('_');
}

/** Whether the entry (with a host) gives an SRV record at `owner`. */
export function givesSrv(owner: string, entry: SkyDnsEntry): boolean {
  if (entry.port === -1) return false;
  return isServiceName(owner) || (entry.port ?? 0) > 0;
}

/** The one type an entry whose host is a name gives at `owner`; undefined: none (an apex alias). */
export function nameHostType(owner: string, entry: SkyDnsEntry, apex: string): NameHostType | undefined {
  if (isReverseName(owner)) return 'PTR';
  if (givesSrv(owner, entry)) return 'SRV';
  if (entry.mail) return 'MX';
  return owner === apex ? undefined : 'CNAME';
}
