// IP address arithmetic, the one parser of addresses and CIDRs: membership (rewrite rules, the
// allow lists of forwarding and zone transfers) and the 1:1 mapping of one network
// onto another (10.9.176.5 in 10.9.176.0/24 -> 203.0.113.5 in 203.0.113.0/24).
import { isIPv4, isIPv6 } from 'node:net';

export type Family = 4 | 6;

export interface Address {
  family: Family;
  value: bigint;
}

export interface Cidr {
  family: Family;
  /** The network address (host bits cleared). */
  network: bigint;
  bits: number;
}

const WIDTH: Record<Family, number> = { 4: 32, 6: 128 };

/** Parses an IPv4 or IPv6 address; an IPv4-mapped IPv6 address counts as IPv4. */
export function parseAddress(text: string): Address | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text)?.[1];
  if (mapped ?? isIPv4(text)) return { family: 4, value: ipv4Value(mapped ?? text) };
  if (!isIPv6(text)) return undefined;
  // Expand "::" and a trailing dotted IPv4 part into eight 16-bit groups.
  let groups = text.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups)?.[1];
  if (dotted) {
    const v = ipv4Value(dotted);
    groups = `${groups.slice(0, -dotted.length)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const all =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  let value = 0n;
  for (const g of all) value = (value << 16n) | BigInt(parseInt(g, 16));
  return { family: 6, value };
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** The canonical text of an address (IPv6 lower-case, longest zero run compressed). */
export function formatAddress(a: Address): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((a.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** Parses "10.0.0.0/8" or "fd00::/8"; says why not otherwise. Host bits set are an error (a likely typo). */
export function parseCidr(text: string): { ok: true; cidr: Cidr } | { ok: false; error: string } {
  const [net = '', bitsText, extra] = text.trim().split('/');
  const address = parseAddress(net);
  const bits = Number(bitsText);
  if (!address || extra !== undefined || !/^\d+$/.test(bitsText ?? '') || bits > WIDTH[address.family]) {
    return { ok: false, error: `"${text}" is not a CIDR such as 10.9.176.0/24 or fd00::/8` };
  }
  const network = address.value & mask(address.family, bits);
  if (network !== address.value) {
    return {
      ok: false,
      error: `"${text}" has host bits set; did you mean ${formatAddress({ family: address.family, value: network })}/${bits}?`,
    };
  }
  return { ok: true, cidr: { family: address.family, network, bits } };
}

function mask(family: Family, bits: number): bigint {
  const width = BigInt(WIDTH[family]);
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(bits))) - 1n);
}

export function cidrContains(cidr: Cidr, address: Address): boolean {
  return cidr.family === address.family && (address.value & mask(cidr.family, cidr.bits)) === cidr.network;
}

/** The address with `from`'s network replaced by `to`'s (same family and length, checked by the caller). */
export function mapAddress(address: Address, from: Cidr, to: Cidr): Address {
  return { family: to.family, value: to.network | (address.value & ~mask(from.family, from.bits)) };
}

/**
 * A client-address check over CIDRs ("10.0.0.0/8", "::1/128"; the config validated them with
 * parseCidr): true for an address in any of them, an IPv4-mapped address counting as IPv4.
 */
export function cidrMatcher(cidrs: readonly string[]): (address: string) => boolean {
  const networks = cidrs.map((text) => {
    const parsed = parseCidr(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.cidr;
  });
  return (text) => {
    const address = parseAddress(text);
    return address !== undefined && networks.some((cidr) => cidrContains(cidr, address));
  };
}
