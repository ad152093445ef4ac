// The DNS server's configuration file (rendered by the DnsServer construct into a ConfigMap,
// or written by hand). Command-line flags and environment variables override it.
import type { EtcdConnection } from './etcd-connection.ts';
import type { ZoneConfig } from './zone-config.ts';

export interface ForwardConfig {
  /** Upstream resolvers, "ip" or "ip:port". */
  upstreams: string[];
  /** Only clients in these CIDRs are forwarded; everyone else gets REFUSED. */
  clientCidrs: string[];
}

/** A name server of a zone, published as the zone's NS records (with glue when in the zone). */
export interface NameServerConfig {
  /** e.g. "ns1.example.org". */
  name: string;
  /** Its IPv4/IPv6 addresses: glue, answered in the additional section. */
  addresses?: string[];
}

/** A zone as the server reads it: ZoneConfig plus what only the server needs. */
export interface ServerZoneConfig extends ZoneConfig {
  /** The zone's NS set; when absent, NS come from the entries under `<zone>/dns/ns` in etcd. */
  nameServers?: NameServerConfig[];
}

export interface ServerConfig {
  etcd: EtcdConnection;
  /** etcd key prefix of the served view; default "/skydns". */
  prefix?: string;
  zones: ServerZoneConfig[];
  /** DNS listen address, "host:port"; default "0.0.0.0:5353". */
  listen?: string;
  /** Health and metrics listen address; default "0.0.0.0:8080". */
  httpListen?: string;
  /** "own" (default): a name answers with its own entries; "subtree": CoreDNS's union. */
  lookup?: 'own' | 'subtree';
  /** Off when absent: the server is never an open resolver. */
  forward?: ForwardConfig;
  /** The served view's audience; default "internal". "external" refuses `forward` (authoritative only). */
  exposure?: 'internal' | 'external';
  /** Worker processes sharing the socket; default 1. */
  workers?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Largest UDP answer sent, whatever size a client offers (512..65535); default 4096. */
  maxUdpPayload?: number;
  /** Seconds before an idle DNS-over-TCP connection is closed; default 10. */
  tcpIdleSeconds?: number;
}
