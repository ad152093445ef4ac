// The entries found under a prefix, sorted into ours (owner = our id) and everyone else's
// (another owner, no owner, or a value we cannot decode — all of them untouchable).
import { decodeEntry, encodeEntry, type SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { keyToName } from '../../../skydns/skydns-key.ts';
import { externalDnsEntries, type Adopted } from './external-dns-adoption.ts';
import { apexOfKey, nameOfOwnedKey, typeOfEntry } from './layout.ts';

export interface CurrentEntry {
  key: string;
  value: string;
  /** etcd mod revision, the compare target of every write to this key. */
  modRevision: string;
}

export interface OwnedEntry extends CurrentEntry {
  entry: SkyDnsEntry;
  name: string;
  /** Taken over from external-dns (--adopt-external-dns-owner): to be replaced by our layout. */
  adopted?: boolean;
  /** encodeEntry of the decoded value: equal to a desired encoding exactly when nothing changed. */
  canonical: string;
}

export interface ClassifiedEntries {
  owned: Map<string, OwnedEntry>;
  /** Keys we must never write: other owners', hand-written and undecodable entries. */
  foreignKeys: Set<string>;
  /** Names that answer with someone else's data (their exact key or a leaf directly below). */
  foreignNames: Set<string>;
  /** Names where we own entries. */
  ownedNames: Set<string>;
  /** Keys whose value is not a usable SkyDNS entry (skipped, never touched). */
  undecodable: { key: string; error: string }[];
  /** Resource owning a (name, type) now: keeps a conflict's winner stable across syncs. */
  incumbent(name: string, type: string): string | undefined;
}

export function classifyEntries(
  current: readonly CurrentEntry[],
  ownerId: string,
  prefix: string,
  adoptExternalDnsOwner?: string,
  /** Zone apexes: the leaves directly below one are the zone's names, not the apex's data. */
  apexes: ReadonlySet<string> = new Set(),
): ClassifiedEntries {
  const sorted = [...current].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const decodedAll = sorted.map((c, i) => ({
    c,
    decoded: decodeEntry(c.value),
    isLeaf: !sorted[i + 1]?.key.startsWith(`${c.key}/`),
  }));
  const adoptable = adoptExternalDnsOwner
    ? externalDnsEntries(
        decodedAll.flatMap(({ c, decoded, isLeaf }) =>
          decoded.ok ? [{ key: c.key, entry: decoded.entry, isLeaf }] : [],
        ),
        adoptExternalDnsOwner,
        prefix,
      )
    : new Map<string, Adopted>();
  const owned = new Map<string, OwnedEntry>();
  const foreignKeys = new Set<string>();
  const foreignNames = new Set<string>();
  const ownedNames = new Set<string>();
  const incumbents = new Map<string, string>();
  const undecodable: { key: string; error: string }[] = [];
  for (const { c, decoded, isLeaf } of decodedAll) {
    const adopted = adoptable.get(c.key);
    if (decoded.ok && adopted) {
      owned.set(c.key, { ...c, entry: decoded.entry, name: adopted.name, canonical: '', adopted: true });
      ownedNames.add(adopted.name);
      const slot = `${adopted.name} ${typeOfEntry(decoded.entry, c.key, prefix)}`;
      if (adopted.resource && decoded.entry.host !== undefined && !incumbents.has(slot))
        incumbents.set(slot, adopted.resource);
      continue;
    }
    if (decoded.ok && decoded.entry.owner === ownerId) {
      const name = nameOfOwnedKey(c.key, decoded.entry, prefix);
      owned.set(c.key, { ...c, entry: decoded.entry, name, canonical: encodeEntry(decoded.entry) });
      ownedNames.add(name);
      const slot = `${name} ${typeOfEntry(decoded.entry, c.key, prefix)}`;
      if (decoded.entry.resource && !incumbents.has(slot)) incumbents.set(slot, decoded.entry.resource);
      continue;
    }
    if (!decoded.ok) undecodable.push({ key: c.key, error: decoded.error });
    foreignKeys.add(c.key);
    const name = apexOfKey(c.key, prefix) ?? keyToName(c.key, prefix);
    if (name) foreignNames.add(name);
    const parent = c.key.slice(0, c.key.lastIndexOf('/'));
    const parentName = isLeaf ? keyToName(parent, prefix) : undefined;
    if (parentName && !apexes.has(parentName)) foreignNames.add(parentName);
  }
  return {
    owned,
    foreignKeys,
    foreignNames,
    ownedNames,
    undecodable,
    incumbent: (name, type) => incumbents.get(`${name} ${type}`),
  };
}
