// The zones the server is authoritative for, with their SOA fields resolved against CoreDNS's
// defaults, and the longest-match lookup that decides which zone (if any) owns a name.
import { canonicalName, isInZone } from '../../../dns/dns-name.ts';
import { ZONE_DEFAULTS } from '../../../config/zone-config.ts';
import type { ServerZoneConfig } from '../../../config/zone-config.ts';

export interface Zone {
  /** Canonical apex, e.g. "example.org.". */
  name: string;
  defaultTtl: number;
  mname: string;
  rname: string;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  /** Configured NS set (canonical names); empty: NS come from `<zone>/dns/ns` entries. */
  nameServers: { name: string; addresses: string[] }[];
}

export function resolveZone(config: ServerZoneConfig): Zone {
  const name = canonicalName(config.name);
  const soa = config.soa ?? {};
  // CoreDNS writes "ns.dns.<zone>" and "hostmaster.<zone>"; for the root zone that is "ns.dns.".
  const under = (label: string) => (name === '.' ? `${label}.` : `${label}.${name}`);
  return {
    name,
    defaultTtl: config.defaultTtl ?? ZONE_DEFAULTS.defaultTtl,
    // The primary is the first configured name server, if any; else CoreDNS's synthesized name.
    mname: soa.mname
      ? canonicalName(soa.mname)
      : config.nameServers?.[0]
        ? canonicalName(config.nameServers[0].name)
        : under('ns.dns'),
    rname: soa.rname ? canonicalName(soa.rname) : under('hostmaster'),
    refresh: soa.refresh ?? ZONE_DEFAULTS.refresh,
    retry: soa.retry ?? ZONE_DEFAULTS.retry,
    expire: soa.expire ?? ZONE_DEFAULTS.expire,
    minimum: soa.minimum ?? ZONE_DEFAULTS.minimum,
    nameServers: (config.nameServers ?? []).map((ns) => ({
      name: canonicalName(ns.name),
      addresses: ns.addresses ?? [],
    })),
  };
}

export class ZoneTable {
  /** Longest apex first, so the first match is the most specific zone. */
  readonly zones: readonly Zone[];

  constructor(configs: ServerZoneConfig[]) {
    this.zones = configs.map(resolveZone).sort((a, b) => b.name.length - a.name.length);
  }

  get names(): string[] {
    return this.zones.map((z) => z.name);
  }

  /** The zone whose apex is exactly this canonical name. */
  byName(name: string): Zone | undefined {
    return this.zones.find((z) => z.name === name);
  }

  /** The most specific zone containing a canonical name, or undefined (we are not authoritative). */
  match(name: string): Zone | undefined {
    return this.zones.find((z) => isInZone(name, z.name));
  }
}
