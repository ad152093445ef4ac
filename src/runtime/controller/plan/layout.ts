// Where a desired record lives in etcd, per docs/skydns-layout.md "What our controller writes":
// address, TXT, MX and SRV records in a child key named by a stable hash of (type, target) (at a
// zone apex under dns/apex/, where the children are the zone's names), a CNAME at the name's
// exact key, an NS record (a delegation, or the apex's name servers) under the name's dns/ns/,
// owner and resource in the value.
import { isIP } from 'node:net';
import { childLabelOf } from '../../../skydns/child-label.ts';
import { keyToName, nameToKey, normalizePrefix } from '../../../skydns/skydns-key.ts';
import type { SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { namePolicyFields } from '../../../skydns/name-policy.ts';
import { resourceId, type DesiredRecord } from '../desired-record.ts';

export interface LaidOutEntry {
  name: string;
  key: string;
  entry: SkyDnsEntry;
}

/** 8 hex digits that depend only on the record's type and target: same state, same keys. */
export function childLabel(record: Pick<DesiredRecord, 'type' | 'target' | 'port' | 'priority' | 'weight'>): string {
  const identity =
    record.type === 'SRV'
      ? `SRV ${record.priority} ${record.weight} ${record.port} ${record.target}`
      : record.type === 'MX'
        ? `MX ${record.priority} ${record.target}`
        : `${record.type} ${record.target}`;
  return childLabelOf(identity);
}

export interface Placement {
  /** For a PTR, whether it is its name's first (see planPrefix). */
  atExactKey?: boolean;
  /** The name is a zone apex: its records go below dns/apex/. */
  apex?: boolean;
}

export function layOut(record: DesiredRecord, prefix: string, ownerId: string, where: Placement = {}): LaidOutEntry {
  const nameKey = nameToKey(record.name, prefix);
  // Child entries of a name; of an apex below dns/apex, since the apex's children are the zone's names.
  const child = `${where.apex ? `${nameKey}/${APEX_KEY}` : nameKey}/${childLabel(record)}`;
  // Values hold names without the trailing dot, as external-dns writes them (the root stays ".").
  const host =
    record.type === 'A' || record.type === 'AAAA' || record.target === '.'
      ? record.target
      : record.target.replace(/\.$/, '');
  const ttl = record.ttl !== undefined ? { ttl: record.ttl } : {};
  const owned = {
    owner: ownerId,
    resource: resourceId(record.object),
    ...(record.namePolicy ? namePolicyFields(record.namePolicy) : {}),
    ...(record.unready ? { hubready: false } : {}),
  };
  switch (record.type) {
    case 'CNAME':
      return { name: record.name, key: nameKey, entry: { host, ...ttl, ...owned } };
    case 'PTR':
      // The first PTR of a reverse name at its exact key, where CoreDNS reads PTRs; further ones
      // (two names on one address) in child entries, which our server also answers from.
      return {
        name: record.name,
        key: where.atExactKey ? nameKey : `${nameKey}/${childLabel(record)}`,
        entry: { host, ...ttl, ...owned },
      };
    case 'TXT':
      return {
        name: record.name,
        key: child,
        entry: { text: record.target, ...ttl, ...owned },
      };
    case 'MX':
      return {
        name: record.name,
        key: child,
        entry: { host, priority: record.priority!, mail: true, ...ttl, ...owned },
      };
    case 'NS':
      return {
        name: record.name,
        key: `${nameKey}/${NS_KEY}/${childLabel(record)}`,
        entry: { host, ...ttl, ...owned },
      };
    case 'SRV':
      return {
        name: record.name,
        key: child,
        entry: { host, port: record.port!, priority: record.priority!, weight: record.weight!, ...ttl, ...owned },
      };
    default:
      return {
        name: record.name,
        key: child,
        entry: { host, ...ttl, targetstrip: 1, ...owned },
      };
  }
}

const CHILD_LABEL = /^[0-9a-f]{8}$/;
/** Where a name's name servers are kept below its key (the SkyDNS zone convention). */
const NS_KEY = 'dns/ns';
/** Where a zone apex's own records are kept below its key. */
const APEX_KEY = 'dns/apex';
/** A key of a name server entry: the name's key, then dns/ns/<id>. */
const NS_ENTRY = /^(.*)\/dns\/ns\/[^/]+$/;
/** A key of an apex entry: the zone's key, then dns/apex/<id>. */
const APEX_ENTRY = /^(.*)\/dns\/apex\/[^/]+$/;

/** Keys of reverse names (in-addr.arpa, ip6.arpa), where a name host is a PTR. */
function isReverseKey(key: string, prefix: string): boolean {
  return /^\/arpa\/(in-addr|ip6)(\/|$)/.test(key.slice(normalizePrefix(prefix).length));
}

/** The record type of an entry in our layout (with its key: a name host under a reverse name is a PTR). */
export function typeOfEntry(entry: SkyDnsEntry, key?: string, prefix?: string): DesiredRecord['type'] {
  if (key !== undefined && NS_ENTRY.test(key)) return 'NS';
  if (entry.host === undefined && entry.text !== undefined) return 'TXT';
  if (entry.mail) return 'MX';
  if (entry.port !== undefined) return 'SRV';
  const family = isIP(entry.host ?? '');
  if (family === 0 && key !== undefined && prefix !== undefined && isReverseKey(key, prefix)) return 'PTR';
  return family === 4 ? 'A' : family === 6 ? (/^::ffff:\d+\./i.test(entry.host!) ? 'A' : 'AAAA') : 'CNAME';
}

/** The zone whose apex entry a key is (`<zone>/dns/apex/<id>`), or undefined. */
export function apexOfKey(key: string, prefix: string): string | undefined {
  const apex = APEX_ENTRY.exec(key);
  return apex ? keyToName(apex[1]!, prefix) : undefined;
}

/** The name an entry we wrote belongs to: a child entry's parent, an NS or apex entry's name, or the key's own name (CNAME). */
export function nameOfOwnedKey(key: string, entry: SkyDnsEntry, prefix: string): string {
  const zoneEntry = NS_ENTRY.exec(key) ?? APEX_ENTRY.exec(key);
  if (zoneEntry) return keyToName(zoneEntry[1]!, prefix) ?? '.';
  const lastSlash = key.lastIndexOf('/');
  const isChild = CHILD_LABEL.test(key.slice(lastSlash + 1)) && typeOfEntry(entry, key, prefix) !== 'CNAME';
  return keyToName(isChild ? key.slice(0, lastSlash) : key, prefix) ?? '.';
}
