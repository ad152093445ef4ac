// What an entry's `host` is: an IPv4 address (IPv4-mapped IPv6 counts as IPv4, as CoreDNS reads
// it), an IPv6 address, or otherwise a domain name.
import { isIPv4, isIPv6 } from 'node:net';

export type HostKind = { kind: 'A'; address: string } | { kind: 'AAAA'; address: string } | { kind: 'name' };

/** The eight 16-bit groups of an IPv6 address (embedded dotted IPv4 allowed). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export function classifyHost(host: string): HostKind {
  if (isIPv4(host)) return { kind: 'A', address: host };
  // Go's ParseIP (CoreDNS) rejects zone ids ("fe80::1%eth0"), so such a host is a name there too.
  if (host.includes('%') || !isIPv6(host)) return { kind: 'name' };
  const groups = ipv6Groups(host);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return { kind: 'A', address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}` };
  }
  return { kind: 'AAAA', address: groups.map((g) => g.toString(16)).join(':') };
}
