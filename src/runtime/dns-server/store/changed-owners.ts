// Which names of a zone differ between two copies of it (the state a secondary has, read back from
// etcd, and ours): the names of the keys added, removed or rewritten, and the names above them,
// whose SRV answers list their children. An IXFR then resolves those names only, not the zone.
// Pure.
import { labelsOf } from '../../../dns/dns-name.ts';
import { childOf, childrenOf, sameEntries, type IndexNode, type RecordIndex } from './record-index.ts';

/** The changed names (canonical), or 'all' when a zone cut (NS under `dns/ns`) changed. */
export function changedOwners(before: RecordIndex, after: RecordIndex, zone: string): Set<string> | 'all' {
  const apexLabels = labelsOf(zone);
  const owners = new Set<string>();
  let cutChanged = false;
  const nameOf = (labels: readonly string[]) => (labels.length === 0 ? '.' : `${labels.join('.')}.`);
  const changedAt = (labels: readonly string[]) => {
    if (labels.some((label, i) => label === 'ns' && labels[i + 1] === 'dns')) cutChanged = true;
    // The name and every name above it, up to the apex.
    for (let i = 0; i <= labels.length - apexLabels.length; i++) owners.add(nameOf(labels.slice(i)));
  };
  const walk = (a: IndexNode | undefined, b: IndexNode | undefined, labels: readonly string[]) => {
    if (!a && !b) return;
    const entryA = a?.entry ? a.modRevision : 0;
    const entryB = b?.entry ? b.modRevision : 0;
    if (entryA !== entryB) changedAt(labels);
    const seen = new Set<string>();
    for (const side of [a, b])
      if (side)
        for (const child of childrenOf(side)) {
          if (seen.has(child.label)) continue;
          seen.add(child.label);
          const ca = a && childOf(a, child.label);
          const cb = b && childOf(b, child.label);
          // Same mod revisions all the way down is the common case: skip the subtree.
          if (ca && cb && sameEntries(ca, cb)) continue;
          walk(ca, cb, [child.label, ...labels]);
        }
  };
  walk(before.find(apexLabels), after.find(apexLabels), apexLabels);
  return cutChanged ? 'all' : owners;
}
