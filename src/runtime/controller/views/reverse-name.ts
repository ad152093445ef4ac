// Reverse names (RFC 1035 3.5 in-addr.arpa, RFC 3596 2.5 ip6.arpa): an address's PTR owner name
// and the reverse zone of a network. IPv4 zones end at octet boundaries, IPv6 zones at nibbles.
import type { Address, Cidr } from '../../../dns/cidr.ts';

/** Labels of an address, most significant first: 4 octets, or 32 nibbles. */
function labels(family: 4 | 6, value: bigint): string[] {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn));
  return value.toString(16).padStart(32, '0').split('');
}

const SUFFIX = { 4: 'in-addr.arpa.', 6: 'ip6.arpa.' } as const;

/** "10.9.176.5" -> "5.176.9.10.in-addr.arpa." (canonical, trailing dot). */
export function reverseName(address: Address): string {
  return `${labels(address.family, address.value).reverse().join('.')}.${SUFFIX[address.family]}`;
}

/** Bits per reverse label: a network's prefix length must be a multiple of it to be a zone. */
export const LABEL_BITS = { 4: 8, 6: 4 } as const;

/** "10.9.176.0/24" -> "176.9.10.in-addr.arpa."; the prefix length must fall on a label boundary. */
export function reverseZoneName(cidr: Cidr): string {
  const count = cidr.bits / LABEL_BITS[cidr.family];
  if (!Number.isInteger(count)) throw new Error(`/${cidr.bits} is not on a reverse-label boundary`);
  const kept = labels(cidr.family, cidr.network).slice(0, count).reverse();
  return [...kept, SUFFIX[cidr.family]].join('.');
}
