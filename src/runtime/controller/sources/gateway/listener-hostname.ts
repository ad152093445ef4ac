// Which name a route publishes through a listener: the intersection of the route's hostname and
// the listener's, as Gateway API defines it and external-dns reads it. The more specific name
// wins; a leading "*." matches any name below the rest ("*.example.org" covers a.example.org and
// a.b.example.org, not example.org); an empty hostname matches anything. A hostname that is an IP
// address or not an RFC 1123 name matches nothing.
import { isIP } from 'node:net';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** The lower-cased hostname, '' for none, or undefined when it can never match. */
function usableHost(host: string): string | undefined {
  if (host === '') return '';
  const bare = host.startsWith('*.') ? host.slice(2) : host;
  if (isIP(host) !== 0 || bare.length === 0 || bare.length > 255) return undefined;
  if (!bare.split('.').every((label) => LABEL.test(label))) return undefined;
  return host.toLowerCase();
}

/** The name published for a listener hostname and a route hostname ('' for none), or undefined. */
export function matchingHost(listenerHost: string, routeHost: string): string | undefined {
  let a = usableHost(listenerHost);
  let b = usableHost(routeHost);
  if (a === undefined || b === undefined) return undefined;
  if (a === '') return b;
  if (b === '' || a === b) return a;
  // a is made the more general of the two: the shorter, or the wildcard of two of one length.
  if (b.length < a.length || (b.length === a.length && b.startsWith('*.'))) [a, b] = [b, a];
  return a.startsWith('*.') && b.endsWith(a.slice(1)) ? b : undefined;
}
