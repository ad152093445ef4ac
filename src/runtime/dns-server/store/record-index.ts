// The server's in-memory copy of the record prefix: a tree of key labels (a name's labels in
// reverse, as the SkyDNS layout stores them) holding the decoded value of each key. Pure: the
// record store feeds it etcd's range reads and watch events; the resolver only reads it.
import { isInZone } from '../../../dns/dns-name.ts';
import { decodeEntry, type SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { keyToName, normalizePrefix } from '../../../skydns/skydns-key.ts';
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

/** A stored value, as answers read it: the node of its key (the key is made from the labels on demand). */
export interface StoredEntry {
  readonly key: string;
  readonly entry: SkyDnsEntry;
  /** etcd's mod revision of the value: tells on a resync whether anything changed. */
  readonly modRevision: number;
  /** Labels between the prefix and the key. */
  readonly depth: number;
}

/**
 * One key label. The copy holds 100,000s of these, so a node is lean: the value sits on the node
 * itself (no separate entry object), its key is not kept but made from the labels when asked
 * (answers are cached, so that is rare), and children are a node, a small array or a Map.
 */
export class IndexNode {
  readonly label: string;
  readonly parent: IndexNode | undefined;
  /** The children by label; undefined for a leaf (most nodes: one per record id). */
  children: Children | undefined = undefined;
  /** The decoded value stored at exactly this node's key. */
  entry: SkyDnsEntry | undefined = undefined;
  modRevision = 0;
  /** Stored entries in this subtree, this node included; 0 means the node is pruned. */
  size = 0;
  /** Children holding a stored value (the name's child entries, for the per-name limit). */
  storedChildren = 0;

  constructor(label: string, parent: IndexNode | undefined) {
    this.label = label;
    this.parent = parent;
  }

  /** This node as a stored entry, when a value is stored here. */
  get stored(): StoredEntry | undefined {
    return this.entry ? (this as StoredEntry) : undefined;
  }

  /** The etcd key: the root's label is the prefix. */
  get key(): string {
    const labels = [this.label];
    for (let n = this.parent; n; n = n.parent) labels.push(n.label);
    return labels.reverse().join('/');
  }

  /** Labels between the root and this node. */
  get depth(): number {
    let depth = 0;
    for (let n = this.parent; n; n = n.parent) depth += 1;
    return depth;
  }
}

const SLASH = 0x2f;
/** Bytes to text without a Buffer object per value (a load decodes every one). */
const UTF8 = new TextDecoder();

/** Above this many children a node indexes them in a Map; below, a scan is as fast and far smaller. */
const LIST_MAX = 8;

/** A node's children by label: one node, an array of up to LIST_MAX, or a Map. */
export class Children {
  private items: IndexNode | IndexNode[] | Map<string, IndexNode>;

  constructor(first: IndexNode) {
    this.items = first;
  }

  get size(): number {
    const items = this.items;
    if (items instanceof IndexNode) return 1;
    return Array.isArray(items) ? items.length : items.size;
  }

  get(label: string): IndexNode | undefined {
    const items = this.items;
    if (items instanceof IndexNode) return items.label === label ? items : undefined;
    if (!Array.isArray(items)) return items.get(label);
    for (const node of items) if (node.label === label) return node;
    return undefined;
  }

  /** Adds a child whose label is not here yet. */
  add(node: IndexNode): void {
    const items = this.items;
    if (items instanceof IndexNode) this.items = [items, node];
    else if (!Array.isArray(items)) items.set(node.label, node);
    else if (items.length < LIST_MAX) items.push(node);
    else this.items = new Map([...items, node].map((n) => [n.label, n]));
  }

  /** Removes a child; false when it was the last (the parent then drops this object). */
  delete(label: string): boolean {
    const items = this.items;
    if (items instanceof IndexNode) return items.label !== label;
    if (!Array.isArray(items)) items.delete(label);
    else {
      const i = items.findIndex((n) => n.label === label);
      if (i >= 0) items.splice(i, 1);
      if (items.length === 1) this.items = items[0]!;
    }
    return this.size > 0;
  }

  values(): Iterable<IndexNode> {
    const items = this.items;
    if (items instanceof IndexNode) return [items];
    return Array.isArray(items) ? items : items.values();
  }
}

export interface KeyValue {
  key: string;
  value: string;
  modRevision: number;
}

/** What one put did: stored, skipped (undecodable or over a limit: the key is left out) or outside the prefix. */
export type PutResult = { kind: 'stored' } | ({ kind: 'skipped' } & Skip) | { kind: 'outside' };

/** A skipped key's reason and mod revision in one number (a Map of small objects costs more). */
const packSkip = (reason: SkipReason, modRevision: number) => modRevision * 8 + SKIP_REASONS.indexOf(reason);
const unpackRevision = (packed: number) => Math.floor(packed / 8);
const unpackReason = (packed: number) => SKIP_REASONS[packed % 8]!;

/** A node's children, none for a leaf. */
export function childrenOf(node: IndexNode): Iterable<IndexNode> {
  return node.children?.values() ?? [];
}

/** A node's child by label. */
export function childOf(node: IndexNode, label: string): IndexNode | undefined {
  return node.children?.get(label);
}

/** Whether two subtrees hold the same stored keys at the same mod revisions. */
export function sameEntries(mine: IndexNode | undefined, theirs: IndexNode | undefined): boolean {
  if ((mine?.size ?? 0) !== (theirs?.size ?? 0)) return false;
  if (!mine || !theirs || mine.size === 0) return true;
  if (mine.modRevision !== theirs.modRevision || !mine.entry !== !theirs.entry) return false;
  for (const child of childrenOf(mine)) if (!sameEntries(child, theirs.children?.get(child.label))) return false;
  return true;
}

export class RecordIndex {
  readonly prefix: string;
  /** The etcd revision this copy reflects. */
  revision = 0;
  private readonly root: IndexNode;
  private readonly zones: string[];
  /** Each zone's labels as a key path ("example.org." -> ["org", "example"]). */
  private readonly zonePaths: string[][];
  private readonly limits: RecordLimits;
  private readonly serials = new Map<string, number>();
  /** Each zone's latest change revision: a later change moves a serial even when a raise passed it. */
  private readonly touched = new Map<string, number>();
  /** Keys whose current value is skipped (undecodable or over a limit): reason and mod revision, packed. */
  private readonly skippedKeys = new Map<string, number>();
  private readonly skippedCounts = new Map<SkipReason, number>();
  /** "<prefix>/": what every key below the prefix starts with. */
  private readonly keyPrefix: string;
  /**
   * The last stored key, its labels and the nodes on its path (nodes[i] at labels[i]). A load puts
   * keys in key order, so most of a key's path is the last one's: those labels and nodes are
   * taken from here instead of being split off and looked up again. A removal empties `nodes` (a
   * node on the path may be pruned).
   */
  private last: { key: string; labels: string[]; nodes: IndexNode[] } = { key: '', labels: [], nodes: [] };

  constructor(prefix: string, zones: string[], limits: RecordLimits = DEFAULT_RECORD_LIMITS) {
    this.prefix = normalizePrefix(prefix);
    this.keyPrefix = `${this.prefix}/`;
    this.root = new IndexNode(this.prefix, undefined);
    this.zones = zones;
    this.zonePaths = zones.map((z) => (z === '.' ? [] : z.slice(0, -1).split('.').reverse()));
    this.limits = limits;
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
    for (const [i, zone] of this.zones.entries()) {
      const before = previous.serial(zone);
      if (this.zoneContentEquals(previous, zone, this.zonePaths[i]!)) this.serials.set(zone, before);
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

  /**
   * Moves a zone's serial up to `serial` (a later revision with the same content): after a fresh
   * load the last key's mod revision can predate deletions in the zone (zone-serials.ts).
   */
  raiseSerial(zone: string, serial: number): void {
    this.serials.set(zone, Math.max(this.serial(zone), serial));
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
    if (key !== this.prefix && !key.startsWith(this.keyPrefix)) return { kind: 'outside' };
    const tooLong = keyTailSkip(key.length - this.keyPrefix.length);
    if (tooLong) return this.skip(key, undefined, tooLong, modRevision);
    const shared = this.sharedLabels(key);
    const path = this.pathAfter(key, shared);
    this.touch(path, modRevision);
    const bytes = typeof value === 'string' ? Buffer.byteLength(value) : value.length;
    const before = namePathSkip(path) ?? valueSizeSkip(bytes, this.limits);
    if (before) return this.skip(key, path, before, modRevision);
    const decoded = decodeEntry(typeof value === 'string' ? value : UTF8.decode(value));
    if (!decoded.ok) return this.skip(key, path, { reason: 'undecodable', error: decoded.error }, modRevision);

    // The deepest node that exists on the path; the per-name limit before anything is made, so a
    // skipped key leaves nothing behind.
    const nodes = this.last.nodes.slice(0, shared);
    let node = nodes.at(-1) ?? this.root;
    let depth = nodes.length;
    for (; depth < path.length; depth++) {
      const child = node.children?.get(path[depth]!);
      if (!child) break;
      node = child;
      nodes.push(node);
    }
    const parentDepth = path.length - 1;
    const parent = depth === path.length ? node.parent : depth === parentDepth ? node : undefined;
    if (parent && !(depth === path.length && node.entry)) {
      const full = entriesSkip(parent.storedChildren, this.limits);
      if (full && !this.isApexPath(path, parentDepth)) return this.skip(key, path, full, modRevision);
    }
    for (; depth < path.length; depth++) {
      const child = new IndexNode(path[depth]!, node);
      if (node.children) node.children.add(child);
      else node.children = new Children(child);
      node = child;
      nodes.push(node);
    }

    this.unskip(key);
    if (!node.entry) {
      for (let n: IndexNode | undefined = node; n; n = n.parent) n.size += 1;
      if (node.parent) node.parent.storedChildren += 1;
    }
    node.entry = answerFields(decoded.entry);
    node.modRevision = modRevision;
    this.last = { key, labels: path, nodes };
    return { kind: 'stored' };
  }

  /** How many leading labels of a key below the prefix are the last stored key's (labels compared as written). */
  private sharedLabels(key: string): number {
    const last = this.last.key;
    const end = Math.min(key.length, last.length);
    let i = this.keyPrefix.length;
    let labels = 0;
    for (; i < end && key.charCodeAt(i) === last.charCodeAt(i); i++) {
      if (key.charCodeAt(i) !== SLASH) continue;
      // An empty label (keyPath drops it) would count a label too many.
      if (key.charCodeAt(i - 1) === SLASH) return 0;
      labels += 1;
    }
    // Where both keys end a non-empty label, that label is shared too.
    const labelEnds = (k: string) => i === k.length || k.charCodeAt(i) === SLASH;
    return labelEnds(key) && labelEnds(last) && key.charCodeAt(i - 1) !== SLASH ? labels + 1 : labels;
  }

  /** A key's path: its first `shared` labels the last stored key's, the rest split off the key. */
  private pathAfter(key: string, shared: number): string[] {
    if (shared === 0) return this.keyPath(key)!;
    let at = this.keyPrefix.length;
    for (let i = 0; i < shared; i++) at += this.last.labels[i]!.length + 1;
    const labels = this.last.labels.slice(0, shared);
    if (at <= key.length) for (const label of key.slice(at).split('/')) if (label) labels.push(label);
    return labels;
  }

  delete(key: string, modRevision: number): boolean {
    const path = this.keyPath(key);
    if (!path) return false;
    this.touch(path, modRevision);
    this.unskip(key);
    return this.removeAt(path);
  }

  /** Whether the first `length` labels of `path` are a zone apex (the per-name limit stops there). */
  private isApexPath(path: readonly string[], length: number): boolean {
    return this.zonePaths.some((z) => z.length === length && z.every((label, i) => path[i] === label));
  }

  private skip(key: string, path: string[] | undefined, skip: Skip, modRevision: number): PutResult {
    this.unskip(key);
    this.skippedKeys.set(key, packSkip(skip.reason, modRevision));
    this.skippedCounts.set(skip.reason, (this.skippedCounts.get(skip.reason) ?? 0) + 1);
    if (path) this.removeAt(path);
    return { kind: 'skipped', ...skip };
  }

  private unskip(key: string): void {
    if (this.skippedKeys.size === 0) return;
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
      if (n.entry) out.push(n as StoredEntry);
      if (n.children) for (const child of n.children.values()) walk(child);
    };
    walk(node);
    return sortByKey(out);
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
    if (!key.startsWith(this.keyPrefix)) return undefined;
    const labels = key.slice(this.keyPrefix.length).split('/');
    return labels.includes('') ? labels.filter((l) => l.length > 0) : labels;
  }

  private removeAt(path: string[]): boolean {
    this.last.nodes = [];
    let node: IndexNode | undefined = this.root;
    for (const label of path) node = node?.children?.get(label);
    if (!node?.entry) return false;
    node.entry = undefined;
    node.modRevision = 0;
    if (node.parent) node.parent.storedChildren -= 1;
    for (let n: IndexNode | undefined = node; n; n = n.parent) {
      n.size -= 1;
      if (n.size === 0 && n.parent?.children && !n.parent.children.delete(n.label)) n.parent.children = undefined;
    }
    return true;
  }

  /**
   * A change at `path` moves the serial of every zone the key is in (labels compared as names: any
   * case): to its revision, or one up when a raise (a hub's merged zone) took the serial past it.
   */
  private touch(path: readonly string[], modRevision: number): void {
    for (const [i, zonePath] of this.zonePaths.entries()) {
      if (zonePath.length > path.length) continue;
      if (!zonePath.every((label, j) => path[j] === label || path[j]!.toLowerCase() === label)) continue;
      const zone = this.zones[i]!;
      const serial = this.serial(zone);
      const last = this.touched.get(zone) ?? 0;
      if (modRevision > serial) this.serials.set(zone, modRevision);
      else if (modRevision > last) this.serials.set(zone, serial + 1);
      if (modRevision > last) this.touched.set(zone, modRevision);
    }
  }

  /** Whether a zone holds the same keys at the same mod revisions in both copies, decoded or skipped. */
  private zoneContentEquals(other: RecordIndex, zone: string, zonePath: readonly string[]): boolean {
    const node = (index: RecordIndex) => {
      let n: IndexNode | undefined = index.root;
      for (const label of zonePath) n = n?.children?.get(label);
      return n;
    };
    if (!sameEntries(node(this), node(other))) return false;
    const skippedIn = (index: RecordIndex) =>
      [...index.skippedKeys].filter(([key]) => isInZone(index.nameOf(key), zone)).map(([key, p]) => `${key} ${p}`);
    const mine = skippedIn(this);
    const theirs = new Set(skippedIn(other));
    return mine.length === theirs.size && mine.every((k) => theirs.has(k));
  }
}

/** Ownership fields are the controller's business; the copy keeps only what answers need. */
function answerFields(entry: SkyDnsEntry): SkyDnsEntry {
  if (entry.owner === undefined && entry.resource === undefined) return entry;
  const { owner: _owner, resource: _resource, ...rest } = entry;
  return rest;
}

/** Entries in etcd key order (byte order of the keys; each key made once). */
export function sortByKey(entries: StoredEntry[]): StoredEntry[] {
  if (entries.length < 2) return entries;
  return entries
    .map((s) => ({ key: s.key, s }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((x) => x.s);
}
