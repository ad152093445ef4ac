// PTR records for a view's published addresses: each A/AAAA whose address lies in one of the
// view's reverse zones gets a PTR from the address's reverse name back to its name, owned by the
// same object (so it is merged, owned and cleaned up like the forward record). Two names on one
// address give two PTRs; an address outside every reverse zone gets none.
import { cidrContains, parseAddress, parseCidr, type Cidr } from '../../../dns/cidr.ts';
import type { ReverseZoneConfig } from '../../../config/reverse-zone-config.ts';
import type { DesiredRecord } from '../desired-record.ts';
import { reverseName } from './reverse-name.ts';

/** An object opts out of PTRs with this annotation set to "false". */
export const PTR_ANNOTATION = 'etcdns.io/ptr';

/** The networks of the reverse zones that `view` publishes in (config validated in src/config/). */
export function reverseZonesOf(zones: readonly ReverseZoneConfig[], view: string): Cidr[] {
  return zones
    .filter((z) => z.views === undefined || z.views.includes(view))
    .map((z) => {
      const parsed = parseCidr(z.network);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.cidr;
    });
}

/** The PTRs for `records` (a view's published records); `optedOut` says which objects want none. */
export function pointerRecords(
  records: readonly DesiredRecord[],
  zones: readonly Cidr[],
  optedOut: (record: DesiredRecord) => boolean,
): DesiredRecord[] {
  if (zones.length === 0) return [];
  const out: DesiredRecord[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    if (r.type !== 'A' && r.type !== 'AAAA') continue;
    const address = parseAddress(r.target);
    if (!address || !zones.some((z) => cidrContains(z, address))) continue;
    if (optedOut(r)) continue;
    const name = reverseName(address);
    const id = `${name} ${r.name} ${r.object.kind}/${r.object.namespace}/${r.object.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ name, type: 'PTR', target: r.name, ...(r.ttl !== undefined ? { ttl: r.ttl } : {}), object: r.object });
  }
  return out;
}
