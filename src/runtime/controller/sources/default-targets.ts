// external-dns's --default-targets and --force-default-targets (v0.22 applies them once, to what
// every source produced): a DNSEndpoint endpoint without targets takes the default targets, and a
// source's own targets win; with --force-default-targets every name points at the default targets
// instead of its own. Each target's type follows from it: IPv4 A, IPv6 AAAA, a host name CNAME.
import { isIPv4, isIPv6 } from 'node:net';
import { canonicalName } from '../../../dns/dns-name.ts';
import type { DesiredRecord } from '../desired-record.ts';
import type { EndpointRecord } from './dns-endpoint/endpoint-records.ts';

export interface DefaultTargets {
  records: EndpointRecord[];
  force: boolean;
}

export function defaultTargets(targets: string[], force: boolean): DefaultTargets {
  const records = targets.map((t): EndpointRecord => {
    if (isIPv4(t)) return { type: 'A', target: t };
    if (isIPv6(t)) return { type: 'AAAA', target: t };
    return { type: 'CNAME', target: canonicalName(t) };
  });
  return { records, force };
}

/** With --force-default-targets, the records of every name the sources publish point at the default targets. */
export function forceDefaultTargets(records: DesiredRecord[], defaults: DefaultTargets): DesiredRecord[] {
  if (!defaults.force || defaults.records.length === 0) return records;
  const out: DesiredRecord[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    for (const d of defaults.records) {
      const key = `${r.name} ${d.type} ${d.target}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ name: r.name, ...d, ...(r.ttl !== undefined ? { ttl: r.ttl } : {}), object: r.object });
    }
  }
  return out;
}
