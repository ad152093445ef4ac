// The entries found under a prefix, sorted into ours (owner = our id) and everyone else's
// (another owner, no owner, or a value we cannot decode — all of them untouchable).
import { decodeEntry, encodeEntry, type SkyDnsEntry } from '../../shared/skydns-entry.ts';
import { keyToName } from '../../shared/skydns-key.ts';
import { nameOfOwnedKey, typeOfEntry } from './layout.ts';

export interface CurrentEntry {
  key: string;
  value: string;
  /** etcd mod revision, the compare target of every write to this key. */
  modRevision: string;
}

export interface OwnedEntry extends CurrentEntry {
  entry: SkyDnsEntry;
  name: string;
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

export function classifyEntries(current: readonly CurrentEntry[], ownerId: string, prefix: string): ClassifiedEntries {
  const sorted = [...current].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const owned = new Map<string, OwnedEntry>();
  const foreignKeys = new Set<string>();
  const foreignNames = new Set<string>();
  const ownedNames = new Set<string>();
  const incumbents = new Map<string, string>();
  const undecodable: { key: string; error: string }[] = [];
  sorted.forEach((c, i) => {
    const decoded = decodeEntry(c.value);
    if (decoded.ok && decoded.entry.owner === ownerId) {
      const name = nameOfOwnedKey(c.key, decoded.entry, prefix);
      owned.set(c.key, { ...c, entry: decoded.entry, name, canonical: encodeEntry(decoded.entry) });
      ownedNames.add(name);
      const slot = `${name} ${typeOfEntry(decoded.entry)}`;
      if (decoded.entry.resource && !incumbents.has(slot)) incumbents.set(slot, decoded.entry.resource);
      return;
    }
    if (!decoded.ok) undecodable.push({ key: c.key, error: decoded.error });
    foreignKeys.add(c.key);
    const name = keyToName(c.key, prefix);
    if (name) foreignNames.add(name);
    const isLeaf = !sorted[i + 1]?.key.startsWith(`${c.key}/`);
    const parent = c.key.slice(0, c.key.lastIndexOf('/'));
    const parentName = isLeaf ? keyToName(parent, prefix) : undefined;
    if (parentName) foreignNames.add(parentName);
  });
  return {
    owned,
    foreignKeys,
    foreignNames,
    ownedNames,
    undecodable,
    incumbent: (name, type) => incumbents.get(`${name} ${type}`),
  };
}
