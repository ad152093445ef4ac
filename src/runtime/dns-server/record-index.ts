// The server's in-memory copy of the record prefix: a tree of key labels (a name's labels in
// reverse, as the SkyDNS layout stores them) holding the decoded value of each key. Pure: the
// record store feeds it etcd's range reads and watch events; the resolver only reads it.
import { isInZone } from '../../dns/dns-name.ts';
import { decodeEntry, type SkyDnsEntry } from '../shared/skydns-entry.ts';
import { keyToName, normalizePrefix } from '../shared/skydns-key.ts';

export interface StoredEntry {
  key: string;
  entry: SkyDnsEntry;
  /** etcd's mod revision of the value: tells on a resync whether anything changed. */
  modRevision: number;
}

export interface IndexNode {
  readonly label: string;
  readonly parent: IndexNode | undefined;
  /** Created with the first child: most nodes are leaves (one per record id), and a Map is not small. */
  children: Map<string, IndexNode> | undefined;
  /** The value stored at exactly this node's key, when it decoded. */
  stored: StoredEntry | undefined;
  /** Stored entries in this subtree, this node included; 0 means the node is pruned. */
  size: number;
}

export interface KeyValue {
  key: string;
  value: string;
  modRevision: number;
}

/** What one put did: stored, skipped (undecodable: the key is left out) or outside the prefix. */
export type PutResult = { kind: 'stored' } | { kind: 'skipped'; error: string } | { kind: 'outside' };

function newNode(label: string, parent: IndexNode | undefined): IndexNode {
  return { label, parent, children: undefined, stored: undefined, size: 0 };
}

const NO_CHILDREN: ReadonlyMap<string, IndexNode> = new Map();

/** A node's children, an empty map for a leaf. */
export function childrenOf(node: IndexNode): ReadonlyMap<string, IndexNode> {
  return node.children ?? NO_CHILDREN;
}

export class RecordIndex {
  readonly prefix: string;
  /** The etcd revision this copy reflects. */
  revision = 0;
  private readonly root: IndexNode = newNode('', undefined);
  private readonly zones: string[];
  private readonly serials = new Map<string, number>();
  /** Keys whose current value did not decode, with the reason and the value's mod revision. */
  readonly skipped = new Map<string, { error: string; modRevision: number }>();

  constructor(prefix: string, zones: string[]) {
    this.prefix = normalizePrefix(prefix);
    this.zones = zones;
  }

  /** A fresh index from a complete range read at `revision`. */
  static fromSnapshot(prefix: string, zones: string[], kvs: Iterable<KeyValue>, revision: number): RecordIndex {
    const index = new RecordIndex(prefix, zones);
    for (const kv of kvs) index.put(kv.key, kv.value, kv.modRevision);
    index.revision = revision;
    return index;
  }

  /**
   * Carries SOA serials over from the copy this one replaces: a zone whose content did not change
   * keeps its serial, a changed zone gets at least the snapshot's revision (deletions have no
   * mod revision of their own to go by).
   */
  inheritSerials(previous: RecordIndex): void {
    for (const zone of this.zones) {
      const before = previous.serial(zone);
      if (this.zoneContentEquals(previous, zone)) this.serials.set(zone, before);
      else this.serials.set(zone, Math.max(this.serial(zone), before + 1, this.revision));
    }
  }

  get entryCount(): number {
    return this.root.size;
  }

  /** The SOA serial of a zone: the etcd revision of its last change (not the wall clock). */
  serial(zone: string): number {
    return this.serials.get(zone) ?? 0;
  }

  put(key: string, value: string, modRevision: number): PutResult {
    const path = this.keyPath(key);
    if (!path) return { kind: 'outside' };
    this.touch(key, modRevision);
    const decoded = decodeEntry(value);
    if (!decoded.ok) {
      this.skipped.set(key, { error: decoded.error, modRevision });
      this.removeAt(path);
      return { kind: 'skipped', error: decoded.error };
    }
    this.skipped.delete(key);
    let node = this.root;
    for (const label of path) {
      node.children ??= new Map();
      let child = node.children.get(label);
      if (!child) {
        child = newNode(label, node);
        node.children.set(label, child);
      }
      node = child;
    }
    if (!node.stored) for (let n: IndexNode | undefined = node; n; n = n.parent) n.size += 1;
    // Ownership fields are the controller's business; the copy keeps only what answers need.
    const { owner: _owner, resource: _resource, ...entry } = decoded.entry;
    node.stored = { key, entry, modRevision };
    return { kind: 'stored' };
  }

  delete(key: string, modRevision: number): boolean {
    const path = this.keyPath(key);
    if (!path) return false;
    this.touch(key, modRevision);
    this.skipped.delete(key);
    return this.removeAt(path);
  }

  /** The node for a name's labels (leftmost first), or undefined when nothing is at or below it. */
  find(labels: readonly string[]): IndexNode | undefined {
    let node: IndexNode | undefined = this.root;
    for (let i = labels.length - 1; i >= 0 && node; i--) node = node.children?.get(labels[i]!);
    return node && node.size > 0 ? node : undefined;
  }

  /** Every stored entry at or below a node, in etcd key order. */
  subtree(node: IndexNode): StoredEntry[] {
    const out: StoredEntry[] = [];
    const walk = (n: IndexNode) => {
      if (n.stored) out.push(n.stored);
      for (const child of childrenOf(n).values()) walk(child);
    };
    walk(node);
    return out.sort(byKey);
  }

  nameOf(key: string): string {
    return keyToName(key, this.prefix) ?? '.';
  }

  /**
   * A key's labels below the prefix, as stored, rightmost DNS label first ("/skydns/org/example/www"
   * -> ["org", "example", "www"]); undefined outside the prefix.
   */
  keyPath(key: string): string[] | undefined {
    if (key === this.prefix) return [];
    if (!key.startsWith(`${this.prefix}/`)) return undefined;
    return key
      .slice(this.prefix.length + 1)
      .split('/')
      .filter((l) => l.length > 0);
  }

  private removeAt(path: string[]): boolean {
    let node: IndexNode | undefined = this.root;
    for (const label of path) node = node?.children?.get(label);
    if (!node?.stored) return false;
    node.stored = undefined;
    for (let n: IndexNode | undefined = node; n; n = n.parent) {
      n.size -= 1;
      if (n.size === 0 && n.parent?.children) {
        n.parent.children.delete(n.label);
        if (n.parent.children.size === 0) n.parent.children = undefined;
      }
    }
    return true;
  }

  private touch(key: string, modRevision: number): void {
    const name = this.nameOf(key);
    for (const zone of this.zones) {
      if (isInZone(name, zone)) this.serials.set(zone, Math.max(this.serial(zone), modRevision));
    }
  }

  /** Mod revision by key of every value in a zone, decoded or skipped. */
  private zoneRevisions(zone: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.subtree(this.root)) if (isInZone(this.nameOf(s.key), zone)) out.set(s.key, s.modRevision);
    for (const [key, s] of this.skipped) if (isInZone(this.nameOf(key), zone)) out.set(key, s.modRevision);
    return out;
  }

  private zoneContentEquals(other: RecordIndex, zone: string): boolean {
    const mine = this.zoneRevisions(zone);
    const theirs = other.zoneRevisions(zone);
    return mine.size === theirs.size && [...mine].every(([key, rev]) => theirs.get(key) === rev);
  }
}

export function byKey(a: StoredEntry, b: StoredEntry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
