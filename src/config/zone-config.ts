// A zone the DNS server is authoritative for. Defaults match CoreDNS's etcd plugin.
import * as v from 'valibot';
import { canonicalName } from '../dns/dns-name.ts';
import { dnsName, ipAddress, list, pathTo, soaTimer, ttl, zoneName } from './field-rules.ts';
import { transferSchema } from './transfer-config.ts';

export const soaSchema = v.object({
  /** Primary name server; default: the first configured name server, else "ns.dns.<zone>". */
  mname: v.optional(dnsName),
  /** Responsible mailbox as a name; default "hostmaster.<zone>". */
  rname: v.optional(dnsName),
  /** Seconds; defaults 7200 / 1800 / 86400. */
  refresh: v.optional(soaTimer),
  retry: v.optional(soaTimer),
  expire: v.optional(soaTimer),
  /** Negative-caching TTL and the SOA record's own TTL; default 30. */
  minimum: v.optional(soaTimer),
});

const zoneEntries = {
  /** Zone apex, e.g. "example.org". */
  name: zoneName,
  /** TTL for entries without one; default 300. */
  defaultTtl: v.optional(ttl),
  soa: v.optional(soaSchema),
};

export const zoneSchema = v.object(zoneEntries);

/** A name server of a zone, published as the zone's NS records (with glue when in the zone). */
export const nameServerSchema = v.object({
  /** e.g. "ns1.example.org". */
  name: dnsName,
  /** Its IPv4/IPv6 addresses: glue, answered in the additional section. */
  addresses: v.optional(list(ipAddress, 'IP addresses')),
});

/** A zone as the server reads it: the zone plus what only the server needs. */
export const serverZoneSchema = v.object({
  ...zoneEntries,
  /** The zone's NS set; when absent, NS come from the entries under `<zone>/dns/ns` in etcd. */
  nameServers: v.optional(v.array(nameServerSchema)),
  /** Transfers of this zone; replaces the server-wide `transfer` for it. */
  transfer: v.optional(transferSchema),
});

/** Zones, at least one, each once (compared as DNS names: case and trailing dot do not count). */
export function zonesSchema<S extends typeof zoneSchema | typeof serverZoneSchema>(zone: S) {
  return v.pipe(
    list(zone, 'zones, e.g. [{ name: "example.org" }]'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const seen = new Set<string>();
      dataset.value.forEach((z, i) => {
        const key = canonicalName(z.name);
        if (seen.has(key))
          addIssue({
            message: `zone ${JSON.stringify(z.name)} is listed twice`,
            path: pathTo(dataset.value, [i, 'name']),
          });
        seen.add(key);
      });
    }),
  );
}

export type SoaConfig = v.InferOutput<typeof soaSchema>;
export type ZoneConfig = v.InferOutput<typeof zoneSchema>;
export type NameServerConfig = v.InferOutput<typeof nameServerSchema>;
export type ServerZoneConfig = v.InferOutput<typeof serverZoneSchema>;

export const ZONE_DEFAULTS = {
  defaultTtl: 300,
  refresh: 7200,
  retry: 1800,
  expire: 86400,
  minimum: 30,
} as const;
