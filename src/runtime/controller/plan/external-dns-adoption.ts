// Migration from external-dns: finds the entries its CoreDNS provider wrote for one owner id, so
// the planner can take them over (rewrite them into our layout and remove its ownership entries).
// Two layouts are recognised:
// - strictly owned: the value carries "owner": <id>;
// - TXT registry (the default): a sibling name "<type>-<label>.<rest>" (or, in the old format,
//   the name itself) holds a TXT entry "heritage=external-dns,external-dns/owner=<id>,
//   external-dns/resource=<kind>/<ns>/<name>"; it owns the entries of that type at the name.
// Only the default registry naming is recognised (no --txt-prefix/--txt-suffix).
import type { SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { keyToName } from '../../../skydns/skydns-key.ts';
import { typeOfEntry } from './layout.ts';

export interface Adopted {
  /** The record name the entry belongs to (for a registry entry: the name it owns). */
  name: string;
  /** The external-dns resource, when the registry names it. */
  resource?: string;
}

interface Decoded {
  key: string;
  entry: SkyDnsEntry;
  isLeaf: boolean;
}

const REGISTRY_NAME = /^(a|aaaa|cname|txt|srv|mx|ns|ptr)-(.+)$/;

function registryText(text: string | undefined, owner: string): { resource?: string } | undefined {
  if (!text) return undefined;
  const fields = new Map(
    text
      .replace(/^"|"$/g, '')
      .split(',')
      .map((kv) => kv.split('=') as [string, string | undefined]),
  );
  if (fields.get('heritage') !== 'external-dns' || fields.get('external-dns/owner') !== owner) return undefined;
  const resource = fields.get('external-dns/resource');
  return resource ? { resource } : {};
}

/** The name whose data an entry is: a leaf's parent name, or (for exact keys) the key's name. */
function nameOf(d: Decoded, prefix: string): string | undefined {
  const ownName = keyToName(d.key, prefix);
  if (!d.isLeaf) return ownName;
  return d.key.lastIndexOf('/') > 0 && /^[0-9a-f]{8}$/.test(d.key.slice(d.key.lastIndexOf('/') + 1))
    ? keyToName(d.key.slice(0, d.key.lastIndexOf('/')), prefix)
    : ownName;
}

/** Keys external-dns owns for `owner` under the prefix, with the name each belongs to. */
export function externalDnsEntries(entries: readonly Decoded[], owner: string, prefix: string): Map<string, Adopted> {
  const adopted = new Map<string, Adopted>();
  // (name, type) pairs owned through the registry; type "*" for the old same-name format.
  const ownedSlots = new Map<string, string | undefined>();
  // Data entries: an address, a name, or (a TXT record from a DNSEndpoint) text alone.
  const isData = (d: Decoded) => d.entry.host !== undefined || d.entry.text !== undefined;
  for (const d of entries) {
    if (d.entry.owner === owner && isData(d)) {
      const name = nameOf(d, prefix);
      if (name) adopted.set(d.key, { name });
      continue;
    }
    const registry = registryText(d.entry.text, owner);
    if (!registry || d.entry.host !== undefined) continue;
    const registryName = nameOf(d, prefix);
    if (!registryName) continue;
    const [first, ...rest] = registryName.split('.');
    const m = REGISTRY_NAME.exec(first ?? '');
    const name = m ? [m[2], ...rest].join('.') : registryName;
    const type = m ? m[1]!.toUpperCase() : '*';
    adopted.set(d.key, { name, ...registry });
    ownedSlots.set(`${name} ${type}`, registry.resource);
  }
  for (const d of entries) {
    if (adopted.has(d.key) || !isData(d) || d.entry.owner !== undefined) continue;
    const name = nameOf(d, prefix);
    if (!name) continue;
    const type = typeOfEntry(d.entry, d.key);
    const slot = ownedSlots.has(`${name} ${type}`)
      ? `${name} ${type}`
      : ownedSlots.has(`${name} *`)
        ? `${name} *`
        : undefined;
    if (!slot) continue;
    const resource = ownedSlots.get(slot);
    adopted.set(d.key, { name, ...(resource ? { resource } : {}) });
  }
  return adopted;
}
