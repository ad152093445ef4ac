// Addresses that must not be published to the outside: they are meaningless there at best, and
// a map of the inside at worst. An external view refuses them unless a rule allows it.
import { cidrContains, parseAddress, parseCidr, type Cidr } from '../../../dns/cidr.ts';

const RANGES: [string, string][] = [
  ['0.0.0.0/8', 'this network (RFC 791)'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'unique local (ULA, RFC 4193)'],
  ['fe80::/10', 'link-local'],
];

const PARSED: [Cidr, string, string][] = RANGES.map(([text, kind]) => {
  const c = parseCidr(text);
  if (!c.ok) throw new Error(c.error);
  return [c.cidr, text, kind];
});

/** Why `ip` is not a public address ("private (RFC 1918) 10.0.0.0/8"), or undefined when it is. */
export function privateAddressKind(ip: string): string | undefined {
  const address = parseAddress(ip);
  if (!address) return undefined;
  const hit = PARSED.find(([cidr]) => cidrContains(cidr, address));
  return hit ? `${hit[2]} ${hit[1]}` : undefined;
}
