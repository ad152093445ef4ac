// The SkyDNS key scheme shared with CoreDNS's etcd plugin and external-dns:
// www.example.org. <-> /skydns/org/example/www (labels reversed, lower-cased, no trailing slash).
import { canonicalName, labelsOf } from '../dns/dns-name.ts';

export const DEFAULT_PREFIX = '/skydns';

/** "/skydns/" -> "/skydns": one spelling of a prefix, whatever the config says. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export function nameToKey(name: string, prefix = DEFAULT_PREFIX): string {
  const labels = labelsOf(name).reverse();
  return [normalizePrefix(prefix), ...labels].join('/');
}

/** The name a key stands for, or undefined for a key outside the prefix. */
export function keyToName(key: string, prefix = DEFAULT_PREFIX): string | undefined {
  const base = normalizePrefix(prefix);
  if (key === base) return '.';
  if (!key.startsWith(`${base}/`)) return undefined;
  const labels = key
    .slice(base.length + 1)
    .split('/')
    .filter((l) => l.length > 0);
  return canonicalName(labels.reverse().join('.'));
}
