// A zone the DNS server is authoritative for. Defaults match CoreDNS's etcd plugin.

export interface SoaConfig {
  /** Primary name server; default: the first configured name server, else "ns.dns.<zone>". */
  mname?: string;
  /** Responsible mailbox as a name; default "hostmaster.<zone>". */
  rname?: string;
  /** Seconds; defaults 7200 / 1800 / 86400. */
  refresh?: number;
  retry?: number;
  expire?: number;
  /** Negative-caching TTL and the SOA record's own TTL; default 30. */
  minimum?: number;
}

export interface ZoneConfig {
  /** Zone apex, e.g. "example.org". */
  name: string;
  /** TTL for entries without one; default 300. */
  defaultTtl?: number;
  soa?: SoaConfig;
}

export const ZONE_DEFAULTS = {
  defaultTtl: 300,
  refresh: 7200,
  retry: 1800,
  expire: 86400,
  minimum: 30,
} as const;
