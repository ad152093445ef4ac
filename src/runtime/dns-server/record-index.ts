// The server's in-memory copy of the record prefix: a tree of key labels (a name's labels in
// reverse, as the SkyDNS layout stores them) holding the decoded value of each key. Pure: the
// record store feeds it etcd's range reads and watch events; the resolver only reads it.
import { isInZone } from '../../dns/dns-name.ts';
import { decodeEntry, type SkyDnsEntry } from '../shared/skydns-entry.ts';
import { keyToName, normalizePrefix } from '../shared/skydns-key.ts';
import {
  DEFAULT_RECORD_LIMITS,
  entriesSkip,
  keyTailSkip,
  namePathSkip,
  SKIP_REASONS,
  valueSizeSkip,
  type RecordLimits,
  type Skip,
  type SkipReason,
} from './record-limits.ts';

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
  /** Children holding a stored value (the name's child entries, for the per-name limit). */
  storedChildren: number;
}

export interface KeyValue {
  key: string;
  value: string;
  modRevision: number;
}

/** What one put did: stored, skipped (undecodable or over a limit: the key is left out) or outside the prefix. */
export type PutResult = { kind: 'stored' } | ({ kind: 'skipped' } & Skip) | { kind: 'outside' };

function newNode(label: string, parent: IndexNode | undefined): IndexNode {
  return { label, parent, children: undefined, stored: undefined, size: 0, storedChildren: 0 };
}

/** A skipped key's reason and mod revision in one number (a Map of small objects costs more). */
const packSkip = (reason: SkipReason, modRevision: number) => modRevision * 8 + SKIP_REASONS.indexOf(reason);
const unpackRevision = (packed: number) => Math.floor(packed / 8);
const unpackReason = (packed: number) => SKIP_REASONS[packed % 8]!;

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
  private readonly limits: RecordLimits;
  /** Key paths of the zone apexes ("org/example"), where the per-name limit does not apply. */
  private readonly apexPaths: Set<string>;
  private readonly serials = new Map<string, number>();
  /** Keys whose current value is skipped (undecodable or over a limit): reason and mod revision, packed. */
  private readonly skippedKeys = new Map<string, number>();
  private readonly skippedCounts = new Map<SkipReason, number>();

  constructor(prefix: string, zones: string[], limits: RecordLimits = DEFAULT_RECORD_LIMITS) {
    this.prefix = normalizePrefix(prefix);
    this.zones = zones;
    this.limits = limits;
    this.apexPaths = new Set(zones.map((z) => keyPathOfName(z)));
  }

  /** A fresh index from a complete range read at `revision`. */
  static fromSnapshot(
    prefix: string,
    zones: string[],
    kvs: Iterable<KeyValue>,
    revision: number,
    limits: RecordLimits = DEFAULT_RECORD_LIMITS,
  ): RecordIndex {
    const index = new RecordIndex(prefix, zones, limits);
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

  /** Skipped keys by reason (the etcdns_dns_skipped_values gauge). */
  get skippedByReason(): ReadonlyMap<SkipReason, number> {
    return this.skippedCounts;
  }

  get skippedCount(): number {
    return this.skippedKeys.size;
  }

  /** Whether this key is skipped at exactly this mod revision (so a resync reports only what is new). */
  isSkipped(key: string, modRevision: number): boolean {
    const packed = this.skippedKeys.get(key);
    return packed !== undefined && unpackRevision(packed) === modRevision;
  }

  /**
   * Stores a key's value, or skips the key (see record-limits.ts): a skipped key's earlier value is
   * removed too. A value given as bytes is measured before it is turned into text.
   */
  put(key: string, value: string | Uint8Array, modRevision: number): PutResult {
    if (key !== this.prefix && !key.startsWith(`${this.prefix}/`)) return { kind: 'outside' };
    const tooLong = keyTailSkip(key.length - this.prefix.length - 1);
    if (tooLong) return this.skip(key, undefined, tooLong, modRevision);
    const path = this.keyPath(key)!;
    this.touch(key, modRevision);
    const bytes = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
    const before = namePathSkip(path) ?? valueSizeSkip(bytes, this.limits);
    if (before) return this.skip(key, path, before, modRevision);
    const decoded = decodeEntry(typeof value === 'string' ? value : Buffer.from(value).toString());
    if (!decoded.ok) return this.skip(key, path, { reason: 'undecodable', error: decoded.error }, modRevision);
    const full = this.entriesSkip(path);
    if (full) return this.skip(key, path, full, modRevision);
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
    this.unskip(key);
    if (!node.stored) {
      for (let n: IndexNode | undefined = node; n; n = n.parent) n.size += 1;
      if (node.parent) node.parent.storedChildren += 1;
    }
    // Ownership fields are the controller's business; the copy keeps only what answers need.
    const { owner: _owner, resource: _resource, ...entry } = decoded.entry;
    node.stored = { key, entry, modRevision };
    return { kind: 'stored' };
  }

  delete(key: string, modRevision: number): boolean {
    const path = this.keyPath(key);
    if (!path) return false;
    this.touch(key, modRevision);
    this.unskip(key);
    return this.removeAt(path);
  }

  /**
   * The per-name limit for a value at `path`: a new value among its parent's child entries (a
   * replaced one always passes; none applies one label below a zone apex). Checked before any
   * node is made, so a skipped key leaves nothing behind.
   */
  private entriesSkip(path: readonly string[]): Skip | undefined {
    if (path.length === 0) return undefined;
    let parent: IndexNode | undefined = this.root;
    for (let i = 0; i < path.length - 1 && parent; i++) parent = parent.children?.get(path[i]!);
    if (!parent || parent.children?.get(path[path.length - 1]!)?.stored) return undefined;
    const full = entriesSkip(parent.storedChildren, this.limits);
    return full && !this.apexPaths.has(path.slice(0, -1).join('/')) ? full : undefined;
  }

  private skip(key: string, path: string[] | undefined, skip: Skip, modRevision: number): PutResult {
    this.unskip(key);
    this.skippedKeys.set(key, packSkip(skip.reason, modRevision));
    this.skippedCounts.set(skip.reason, (this.skippedCounts.get(skip.reason) ?? 0) + 1);
    if (path) this.removeAt(path);
    return { kind: 'skipped', ...skip };
  }

  private unskip(key: string): void {
    const packed = this.skippedKeys.get(key);
    if (packed === undefined) return;
    this.skippedKeys.delete(key);
    const reason = unpackReason(packed);
    this.skippedCounts.set(reason, this.skippedCounts.get(reason)! - 1);
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
    if (node.parent) node.parent.storedChildren -= 1;
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
    for (const [key, packed] of this.skippedKeys) {
      if (isInZone(this.nameOf(key), zone)) out.set(key, unpackRevision(packed));
    }
    return out;
  }

  private zoneContentEquals(other: RecordIndex, zone: string): boolean {
    const mine = this.zoneRevisions(zone);
    const theirs = other.zoneRevisions(zone);
    return mine.size === theirs.size && [...mine].every(([key, rev]) => theirs.get(key) === rev);
  }
}

/** "example.org." -> "org/example", as keyPath joins it. */
function keyPathOfName(name: string): string {
  return name === '.' ? '' : name.slice(0, -1).split('.').reverse().join('/');
}

export function byKey(a: StoredEntry, b: StoredEntry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
