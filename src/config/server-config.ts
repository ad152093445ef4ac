// The DNS server's configuration (rendered by the DnsServer construct into a ConfigMap, or
// written by hand); flags and environment variables override it (server-options.ts).
import * as v from 'valibot';
import { canonicalName, isInZone } from '../dns/dns-name.ts';
import { catalogSchema } from './catalog-config.ts';
import { etcdConnectionSchema } from './etcd-connection.ts';
import {
  cidr,
  hostPort,
  integer,
  ipAddress,
  keyPrefix,
  list,
  logLevel,
  namespaceName,
  network,
  objectName,
  oneOf,
  path,
  pathTo,
  text,
  upstream,
} from './field-rules.ts';
import { hubSchema } from './hub-config.ts';
import { transferSchema } from './transfer-config.ts';
import { updateSchema } from './update-config.ts';
import { serverZoneSchema, zonesSchema } from './zone-config.ts';

export const forwardSchema = v.object({
  /** Upstream resolvers, "ip" or "ip:port" (port 53 when absent). */
  upstreams: list(upstream, 'upstream resolvers, "ip" or "ip:port"'),
  /** Only clients in these CIDRs are forwarded; everyone else gets REFUSED. */
  clientCidrs: list(cidr, 'client CIDRs'),
});

/**
 * What the server does between SIGTERM and closing its sockets (readiness is false from the
 * start): in a pod that can read its Services' EndpointSlices, it answers until they no longer
 * list its address as ready and `seconds` more, at most `maxSeconds` in all; otherwise it answers
 * `seconds` from SIGTERM.
 */
export const DRAIN_DEFAULTS = { maxSeconds: 30, seconds: 0, quietSeconds: 1 } as const;
export const drainSchema = v.object({
  /** The Services whose EndpointSlices are read (names in `namespace`); none: the fixed drain. */
  services: v.optional(list(objectName, 'Service names')),
  /** The pod's address as the EndpointSlices list it (the downward API's status.podIP). */
  podIp: v.optional(ipAddress),
  /** The pod's namespace (the downward API's metadata.namespace). */
  namespace: v.optional(namespaceName),
  /** A kubeconfig file; default: $KUBECONFIG, else the pod's ServiceAccount. */
  kubeconfig: v.optional(path),
  /** The most seconds to wait for the EndpointSlices; default DRAIN_DEFAULTS.maxSeconds (30). */
  maxSeconds: v.optional(integer(0, 3600)),
  /** Seconds to answer on after the EndpointSlices dropped the pod, or after SIGTERM when they cannot be read; default DRAIN_DEFAULTS.seconds (0). */
  seconds: v.optional(integer(0, 3600)),
  /**
   * Then answer on until no query arrived for this long (a proxy that applies the change late still
   * routes here), within `maxSeconds`; 0: do not wait; default DRAIN_DEFAULTS.quietSeconds (1).
   */
  quietSeconds: v.optional(integer(0, 60)),
});

/**
 * How a replica tells who it is, so an operator knows which one answered: its identifier in the
 * NSID option (RFC 5001) to a query that asks, and as TXT of CHAOS id.server. and hostname.bind.;
 * the etcdns version as TXT of CHAOS version.server. and version.bind. only when turned on.
 */
export const identitySchema = v.object({
  /** The identifier (one TXT string: 1-255 bytes); default the host name (os.hostname(): the pod's name). */
  name: v.optional(text('1-255 bytes', (s) => s.length > 0 && Buffer.byteLength(s) <= 255)),
  /** false: no NSID, and id.server./hostname.bind. are REFUSED. Default true. */
  enabled: v.optional(v.boolean()),
  /** true: version.server./version.bind. answer the etcdns version. Default false: REFUSED (as Knot with no version). */
  version: v.optional(v.boolean()),
});

/**
 * The order of A and AAAA records in answers (CoreDNS's `loadbalance`): `rotation: round-robin`
 * moves each RRset one step per answer; `prefer` puts first the records in those of its networks
 * that hold the client (its source address), the first listed network first.
 */
/** `prefer` lists at most this many networks: the server keeps a record's networks as the bits of a small integer. */
export const MAX_PREFER = 30;
export const answerOrderSchema = v.object({
  /** "off" (default): the stored order; "round-robin": each answer starts one record further. */
  rotation: v.optional(oneOf(['off', 'round-robin'])),
  /** Networks (CIDRs, at most 30), in order of preference; default none. */
  prefer: v.optional(
    v.pipe(
      list(network, 'networks'),
      v.check((a) => a.length <= MAX_PREFER, `must list at most ${MAX_PREFER} networks`),
    ),
  ),
});

export const DEFAULT_LISTEN = '0.0.0.0:5353';
export const DEFAULT_HTTP_LISTEN = '0.0.0.0:8080';
/** What the server runs with where the config says nothing (the fields below say which). */
export const SERVER_CONFIG_DEFAULTS = { maxUdpPayload: 4096, tcpIdleSeconds: 10, maxTcpConnections: 4096 } as const;

/** Each setting of the server, for checking one at a time (the constructs' props). */
export const serverEntries = {
  etcd: etcdConnectionSchema,
  /** etcd key prefix of the served view; default "/skydns". */
  prefix: v.optional(keyPrefix),
  zones: zonesSchema(serverZoneSchema),
  /** DNS listen address, "host:port". */
  listen: v.optional(hostPort, DEFAULT_LISTEN),
  /** Health and metrics listen address, "host:port". */
  httpListen: v.optional(hostPort, DEFAULT_HTTP_LISTEN),
  /** "own" (default): a name answers with its own entries; "subtree": CoreDNS's union. */
  lookup: v.optional(oneOf(['own', 'subtree'])),
  /** Off when absent: the server is never an open resolver. */
  forward: v.optional(forwardSchema),
  /**
   * The networks the view answers (CoreDNS's `acl`, BIND's `allow-query`): a query from any other
   * client is REFUSED and counted; zone transfers keep their own `transfer.allowCidrs`. Absent: all.
   */
  allowQueryFrom: v.optional(list(cidr, 'client CIDRs')),
  /** The served view's audience; default "internal". "external" refuses `forward` (authoritative only). */
  exposure: v.optional(oneOf(['internal', 'external'])),
  /** Worker processes sharing the socket; default 1. */
  workers: v.optional(integer(1, 64)),
  logLevel: v.optional(logLevel),
  /** Largest UDP answer sent, whatever size a client offers (512..65535); default SERVER_CONFIG_DEFAULTS (4096). */
  maxUdpPayload: v.optional(integer(512, 65535)),
  /**
   * Seconds before an idle DNS-over-TCP connection is closed, told to clients that ask (RFC 7828);
   * shorter when more than half of `maxTcpConnections` are open. Default SERVER_CONFIG_DEFAULTS (10).
   */
  tcpIdleSeconds: v.optional(integer(1, 3600)),
  /**
   * Open DNS-over-TCP connections per server process at most; at the bound a new connection closes
   * the least recently active idle ones (RFC 7766 6.2.3). Default SERVER_CONFIG_DEFAULTS (4096).
   */
  maxTcpConnections: v.optional(integer(1, 1_000_000)),
  /**
   * Response rate limiting of UDP answers per client prefix (BIND/Knot RRL). Default: on for
   * `exposure: external` (20 responses/s, window 15 s, slip 2, /24 and /56), off for internal
   * views; `responsesPerSecond: 0` turns it off.
   */
  rateLimit: v.optional(
    v.object({
      responsesPerSecond: v.optional(integer(0, 1_000_000)),
      windowSeconds: v.optional(integer(1, 3600)),
      slip: v.optional(integer(0, 10)),
      ipv4PrefixLength: v.optional(integer(8, 32)),
      ipv6PrefixLength: v.optional(integer(16, 128)),
    }),
  ),
  /** Log one query in N (client, question, rcode, size) as a JSON line; off when absent or 0. */
  queryLogEvery: v.optional(integer(0, 1_000_000)),
  /**
   * What the in-memory copy refuses to keep (bounds from DNS: see the server README); keys over a
   * limit are skipped, logged and counted. Defaults: values up to 65,535 bytes, 4,000 entries per name.
   */
  recordLimits: v.optional(
    v.object({
      maxValueBytes: v.optional(integer(512, 1_572_864)),
      maxEntriesPerName: v.optional(integer(1, 1_000_000)),
    }),
  ),
  /** Last-known copy of the records on local disk, served when the server starts while etcd is unreachable; none when absent. */
  snapshotFile: v.optional(path),
  /** The drain after SIGTERM (see drainSchema); none: the sockets close at once. */
  drain: v.optional(drainSchema),
  /** Zone transfers out (AXFR over TCP) to these secondaries; off (REFUSED) when absent. */
  transfer: v.optional(transferSchema),
  /** NSID and the CHAOS names (see identitySchema); default: the host name, no version. */
  identity: v.optional(identitySchema),
  /** The order of A and AAAA records (see answerOrderSchema); default: as stored, for every client. */
  answerOrder: v.optional(answerOrderSchema),
  /** A catalog zone (RFC 9432) of the zones transferred with `transfer`; none when absent. */
  catalog: v.optional(catalogSchema),
  /** Dynamic updates (RFC 2136) from TSIG keys, each scoped (see update-config.ts); off (NOTIMP) when absent. */
  update: v.optional(updateSchema),
  /** A hub (docs/multi-cluster.md): the member clusters' prefixes read beside `prefix`, merged per name; none when absent. */
  hub: v.optional(hubSchema),
};

/** The served zone the catalog's apex equals, lies in or holds, if any: its names would be both. */
export function catalogClash(catalog: string, zones: readonly { name: string }[]): string | undefined {
  const apex = canonicalName(catalog);
  return zones.map((z) => canonicalName(z.name)).find((zone) => isInZone(apex, zone) || isInZone(zone, apex));
}

/** The first update key suffix in no served zone, as [key index, suffix index], or undefined. */
export function suffixOutsideZones(c: {
  zones: { name: string }[];
  update?: { keys: { suffixes: string[] }[] } | undefined;
}) {
  const zones = c.zones.map((z) => canonicalName(z.name));
  for (const [i, key] of (c.update?.keys ?? []).entries())
    for (const [j, suffix] of key.suffixes.entries())
      if (!zones.some((z) => isInZone(canonicalName(suffix), z))) return [i, j] as const;
  return undefined;
}

export const serverConfigSchema = v.pipe(
  v.object(serverEntries),
  // Split horizon: the outside gets authoritative answers only, never an open resolver.
  v.forward(
    v.check(
      (c) => !(c.exposure === 'external' && c.forward),
      'is not allowed with exposure "external": an external view answers authoritatively only',
    ),
    ['forward', 'upstreams'],
  ),
  // The catalog goes to the secondaries of the server-wide transfer settings.
  v.forward(
    v.check(
      (c) => !(c.catalog && !c.transfer),
      "needs the server-wide transfer (allowCidrs, notify): the catalog's secondaries",
    ),
    ['catalog', 'zone'],
  ),
  v.forward(
    v.check(
      (c) => !c.catalog || catalogClash(c.catalog.zone, c.zones) === undefined,
      (i) =>
        `must be a name of its own, neither one of zones nor above or below one (it clashes with ${JSON.stringify(catalogClash(i.input.catalog!.zone, i.input.zones))})`,
    ),
    ['catalog', 'zone'],
  ),
  // A zone's merge policy is for a zone this server answers.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const served = dataset.value.zones.map((z) => canonicalName(z.name));
    (dataset.value.hub?.zones ?? []).forEach((z, i) => {
      if (!served.includes(canonicalName(z.zone)))
        addIssue({
          message: `must be one of zones (got ${JSON.stringify(z.zone)})`,
          path: pathTo(dataset.value, ['hub', 'zones', i, 'zone']),
        });
    });
  }),
  // An update key's scope must lie in a zone this server answers: else it could write nothing.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const at = suffixOutsideZones(dataset.value);
    if (!at) return;
    const suffix = dataset.value.update!.keys[at[0]]!.suffixes[at[1]]!;
    addIssue({
      message: `must be in one of the served zones (got ${JSON.stringify(suffix)})`,
      path: pathTo(dataset.value, ['update', 'keys', at[0], 'suffixes', at[1]]),
    });
  }),
);

/** As the server runs with it: addresses parsed, defaults filled. */
export type ForwardConfig = v.InferOutput<typeof forwardSchema>;
export type DrainConfig = v.InferOutput<typeof drainSchema>;
export type ServerConfig = v.InferOutput<typeof serverConfigSchema>;
/** As written in the config file (and in the constructs' props). */
export type ForwardInput = v.InferInput<typeof forwardSchema>;
export type IdentityInput = v.InferInput<typeof identitySchema>;
export type AnswerOrderInput = v.InferInput<typeof answerOrderSchema>;
export type RateLimitInput = NonNullable<v.InferInput<typeof serverEntries.rateLimit>>;
export type ServerConfigInput = v.InferInput<typeof serverConfigSchema>;
