// What an entry's `host` is: an IPv4 address (IPv4-mapped IPv6 counts as IPv4, as CoreDNS reads
// it), an IPv6 address, or otherwise a domain name. The address parsing is src/dns/cidr.ts's.
import { isIPv4 } from 'node:net';
import { parseAddress } from '../dns/cidr.ts';

export type HostKind = { kind: 'A'; address: string } | { kind: 'AAAA'; address: string } | { kind: 'name' };

const NAME: HostKind = { kind: 'name' };

export function classifyHost(host: string): HostKind {
  if (isIPv4(host)) return { kind: 'A', address: host };
  // Go's ParseIP (CoreDNS) rejects zone ids ("fe80::1%eth0"), so such a host is a name there too.
  if (host.includes('%')) return NAME;
  const parsed = parseAddress(host);
  if (!parsed) return NAME;
  const { value } = parsed;
  // ::ffff:a.b.c.d in any spelling (hex groups too) is IPv4.
  if (parsed.family === 4 || value >> 32n === 0xffffn) {
    const octets = [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn));
    return { kind: 'A', address: octets.join('.') };
  }
  // All eight groups, uncompressed: the text dns2 encodes.
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return { kind: 'AAAA', address: groups.join(':') };
}
