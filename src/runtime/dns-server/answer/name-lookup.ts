// Which stored entries answer for a name, and whether the name exists at all (NODATA vs
// NXDOMAIN). This is where deviations 1, 3, 6, 9, 10 and 18 of docs/skydns-layout.md live:
// - "own" (default): a name's entries are the one at its key plus leaf entries directly below it
//   (the record-id layout external-dns writes); deeper descendants are other names. The apex is
//   the exception (deviation 9): the leaves directly under it are the zone's own names (www, mail),
//   so its entries are those under `dns/apex` (its only addresses) and the one at its key.
// - "subtree": CoreDNS's etcd plugin: the union of the whole subtree, and apex addresses from the
//   whole zone when `dns/apex` is empty.
// - A stored "*" label is an RFC 4592 wildcard in both modes. In "subtree" a "*" label in the
//   query name matches any label at that position (CoreDNS's query wildcards), and so does "any",
//   as CoreDNS reads it; in "own" mode both are ordinary labels: "any" is a valid name of its own
//   (a Service called "any"), and "*" the owner name of a stored wildcard, as the zone holds it.
import { labelsOf } from '../../../dns/dns-name.ts';
import {
  childOf,
  childrenOf,
  sortByKey,
  type IndexNode,
  type RecordIndex,
  type StoredEntry,
} from '../store/record-index.ts';
import type { Zone } from './zones.ts';

export type LookupMode = 'own' | 'subtree';

/**
 * What a lookup reads: a record index, or a hub's view of one member cluster in its copy of the
 * clusters' prefix (`rootDepth`: the labels between that copy's root and the cluster's records).
 */
export type IndexReader = Pick<RecordIndex, 'find' | 'subtree' | 'nameOf'> & { readonly rootDepth?: number };

/** address: A/AAAA (the apex reads dns/apex); exact: CNAME/PTR (CoreDNS reads only the key). */
export type LookupPurpose = 'address' | 'exact' | 'other';

export interface NameData {
  exists: boolean;
  entries: StoredEntry[];
  /** Synthesized from a stored wildcard: its owner name ("*.<parent>"), whose entries these are. */
  wildcard?: string;
  /** A hub's: the clusters answering were drawn (weighted) for this query alone. */
  drawn?: true;
}

function leafChildren(node: IndexNode): StoredEntry[] {
  const out: StoredEntry[] = [];
  for (const child of childrenOf(node)) if (!child.children && child.stored) out.push(child.stored);
  return out;
}

function entriesOf(index: IndexReader, node: IndexNode, isApex: boolean, mode: LookupMode, purpose: LookupPurpose) {
  if (mode === 'own') {
    const own = isApex ? [] : leafChildren(node);
    return node.stored ? [node.stored, ...own] : own;
  }
  if (purpose === 'exact') return node.stored ? [node.stored] : [];
  // CoreDNS reads "<key>/" as a prefix and falls back to the exact key only when that is empty.
  if (!node.children) return node.stored ? [node.stored] : [];
  return index.subtree(node).filter((s) => s !== node.stored);
}

/** RFC 4592: the source of synthesis for a name that does not exist, if its closest encloser has "*". */
function wildcardFor(index: IndexReader, labels: string[], zoneDepth: number): IndexNode | undefined {
  let closest: IndexNode | undefined;
  for (let depth = labels.length - 1; depth >= 0; depth--) {
    const node = index.find(labels.slice(depth));
    if (!node) break;
    closest = node;
  }
  // Without any stored node the closest encloser would be the root, outside every zone but ".".
  const encloserDepth = closest ? depthOf(closest) - (index.rootDepth ?? 0) : 0;
  if (encloserDepth < zoneDepth) return undefined;
  const star = closest ? childOf(closest, '*') : index.find(['*']);
  return star && star.size > 0 ? star : undefined;
}

function depthOf(node: IndexNode): number {
  let depth = 0;
  for (let n = node.parent; n; n = n.parent) depth += 1;
  return depth;
}

/** Nodes matching a query name with "*" labels, each "*" standing for any one label. */
function patternNodes(index: IndexReader, labels: string[]): IndexNode[] {
  const reversed = [...labels].reverse();
  let frontier: IndexNode[] = [];
  const root = index.find([]);
  if (root) frontier = [root];
  for (const label of reversed) {
    const next: IndexNode[] = [];
    for (const node of frontier) {
      if (label === '*') next.push(...[...childrenOf(node)].filter((c) => c.size > 0));
      else {
        const child = childOf(node, label);
        if (child && child.size > 0) next.push(child);
      }
    }
    frontier = next;
  }
  return frontier;
}

/**
 * SkyDNS grouping, as CoreDNS applies it: the shortest keys decide the group; entries of another
 * group are left out, and a disagreement among the shortest keys disables grouping.
 */
export function groupFilter(entries: StoredEntry[]): StoredEntry[] {
  if (entries.length === 0) return entries;
  const depths = entries.map((s) => s.depth);
  let group = entries[0]!.entry.group ?? '';
  let depth = depths[0]!;
  for (const [i, s] of entries.entries()) {
    if (depths[i]! < depth) {
      if (!s.entry.group) break;
      depth = depths[i]!;
      group = s.entry.group;
    }
  }
  if (!group) return entries;
  const kept: StoredEntry[] = [];
  for (const [i, s] of entries.entries()) {
    if (!s.entry.group) kept.push(s);
    else if (depths[i] === depth && s.entry.group !== group) return entries;
    else if (s.entry.group === group) kept.push(s);
  }
  return kept;
}

function finish(exists: boolean, entries: StoredEntry[]): NameData {
  // An entry is its key's node: the same key is the same object.
  const unique = sortByKey(entries.length < 2 ? entries : [...new Set(entries)]);
  return { exists, entries: groupFilter(unique) };
}

export function lookupName(
  index: IndexReader,
  zone: Zone,
  name: string,
  mode: LookupMode,
  purpose: LookupPurpose,
): NameData {
  const labels = labelsOf(name).map((label) => (mode === 'subtree' && label === 'any' ? '*' : label));
  const zoneLabels = labelsOf(zone.name);
  const isApex = name === zone.name;

  // The default mode reads a query "*" as the label it is: the zone's wildcard owner, as a
  // secondary holding the zone answers it (deviation 18).
  if (mode === 'subtree' && labels.includes('*')) {
    const nodes = patternNodes(index, labels);
    return finish(
      nodes.length > 0,
      nodes.flatMap((n) => entriesOf(index, n, false, mode, purpose)),
    );
  }

  if (isApex && (purpose === 'address' || mode === 'own')) {
    const apexNode = index.find(['apex', 'dns', ...zoneLabels]);
    const fromApex = apexNode ? entriesOf(index, apexNode, false, mode, purpose) : [];
    // Own mode: the apex's entries are those under dns/apex (its only addresses) and its own key's.
    if (mode === 'own') {
      const own = purpose === 'address' ? undefined : index.find(zoneLabels)?.stored;
      return finish(true, own ? [own, ...fromApex] : fromApex);
    }
    if (apexNode) return finish(true, fromApex);
    const zoneNode = index.find(zoneLabels);
    return finish(true, zoneNode ? entriesOf(index, zoneNode, true, mode, purpose) : []);
  }

  const node = index.find(labels);
  if (node) return finish(true, entriesOf(index, node, isApex, mode, purpose));
  if (isApex) return finish(true, []);
  const star = wildcardFor(index, labels, zoneLabels.length);
  if (star) return { ...finish(true, entriesOf(index, star, false, mode, purpose)), wildcard: index.nameOf(star.key) };
  return finish(false, []);
}

/** All entries at or below a name (NS sets under dns/ns), grouped like any other answer. */
export function subtreeOf(index: RecordIndex, name: string): StoredEntry[] {
  const node = index.find(labelsOf(name));
  return node ? groupFilter(index.subtree(node)) : [];
}
