// Deviation 7: delegation from etcd. NS entries under "<name>/dns/ns/" (the apex convention applied
// to a child name) make <name> a zone cut; queries at or below it get a referral.
import { labelsOf } from '../../../dns/dns-name.ts';
import type { RecordIndex, StoredEntry } from '../store/record-index.ts';
import { subtreeOf } from './name-lookup.ts';
import type { Zone } from './zones.ts';

export interface ZoneCut {
  /** The delegated name, canonical. */
  name: string;
  /** Entries under <name>/dns/ns, each one NS target. */
  nameServers: StoredEntry[];
}

/** The highest zone cut strictly below the apex on the way to `name`, if any. */
export function findZoneCut(index: RecordIndex, zone: Zone, name: string): ZoneCut | undefined {
  const labels = labelsOf(name);
  const zoneDepth = labelsOf(zone.name).length;
  for (let depth = zoneDepth + 1; depth <= labels.length; depth++) {
    const suffix = labels.slice(labels.length - depth);
    const node = index.find(suffix);
    if (!node) return undefined;
    if (node.children?.get('dns')?.children?.get('ns')) {
      const cut = `${suffix.join('.')}.`;
      const nameServers = subtreeOf(index, `ns.dns.${cut}`);
      if (nameServers.length > 0) return { name: cut, nameServers };
    }
  }
  return undefined;
}
