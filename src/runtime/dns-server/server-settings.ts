// `etcdns server`'s option table, and its settings: the config file (a ServerConfig, as the
// DnsServer construct renders it), overridden by environment variables, overridden by flags,
// validated by the one ServerConfig schema (src/config/).
import { loadOptions, usage, type CommandTable } from '../../config/command-options.ts';
import { ETCD_OPTIONS } from '../../config/etcd-options.ts';
import { parseConfig } from '../../config/schema-problems.ts';
import {
  DEFAULT_HTTP_LISTEN,
  DEFAULT_LISTEN,
  DRAIN_DEFAULTS,
  SERVER_CONFIG_DEFAULTS,
  serverConfigSchema,
  type ServerConfig,
} from '../../config/server-config.ts';

export interface ServerSettings {
  config: ServerConfig;
}

export const SERVER_OPTIONS: CommandTable = {
  command: 'server',
  synopsis: '--etcd-urls URL[,URL] --zone example.org [--zone ...] [options]',
  description: 'Answers DNS authoritatively from the SkyDNS records under an etcd prefix, kept live by a watch.',
  options: [
    ...ETCD_OPTIONS,
    {
      flag: 'zone',
      kind: 'list',
      field: 'zones',
      value: 'ZONE',
      help: 'a zone we are authoritative for',
      deprecatedEnv: ['ETCDNS_ZONES'],
      toField: (names) => (names as string[]).map((name) => ({ name })),
    },
    { flag: 'prefix', kind: 'string', field: 'prefix', value: 'PATH', help: 'etcd key prefix, default /skydns' },
    {
      flag: 'listen',
      kind: 'string',
      field: 'listen',
      value: 'HOST:PORT',
      help: `DNS (UDP and TCP), default ${DEFAULT_LISTEN}`,
    },
    {
      flag: 'http-listen',
      kind: 'string',
      field: 'httpListen',
      value: 'HOST:PORT',
      help: `/healthz /readyz /metrics, default ${DEFAULT_HTTP_LISTEN}`,
    },
    {
      flag: 'lookup',
      kind: 'string',
      field: 'lookup',
      value: 'own|subtree',
      help: "own (default): a name's own entries, answered as the zone transfers them; subtree: as CoreDNS",
    },
    { flag: 'workers', kind: 'int', field: 'workers', value: 'N', help: 'processes sharing the sockets, default 1' },
    {
      flag: 'exposure',
      kind: 'string',
      field: 'exposure',
      value: 'internal|external',
      help: "the view's audience, default internal; external never forwards",
    },
    {
      flag: 'allow-query-from',
      kind: 'list',
      field: 'allowQueryFrom',
      value: 'CIDR',
      help: 'answer only clients in these CIDRs, REFUSED to others (zone transfers apart); default all',
    },
    {
      flag: 'forward-upstream',
      kind: 'list',
      field: 'forward.upstreams',
      value: 'IP[:PORT]',
      help: 'forward other names there',
      deprecatedEnv: ['ETCDNS_FORWARD_UPSTREAMS'],
    },
    {
      flag: 'forward-client-cidr',
      kind: 'list',
      field: 'forward.clientCidrs',
      value: 'CIDR',
      help: 'only for clients in these CIDRs',
      deprecatedEnv: ['ETCDNS_FORWARD_CLIENT_CIDRS'],
    },
    {
      flag: 'transfer-allow-cidr',
      kind: 'list',
      field: 'transfer.allowCidrs',
      value: 'CIDR',
      help: 'secondaries allowed to transfer zones (AXFR over TCP); none: transfers REFUSED',
    },
    {
      flag: 'transfer-key-file',
      kind: 'string',
      field: 'transfer.keyFile',
      value: 'PATH',
      help: 'BIND key file; transfers must then be TSIG-signed with one of its keys',
    },
    {
      flag: 'transfer-notify',
      kind: 'list',
      field: 'transfer.notify',
      value: 'IP[:PORT]',
      help: 'secondaries to NOTIFY when a zone changes',
    },
    {
      flag: 'catalog-zone',
      kind: 'string',
      field: 'catalog.zone',
      value: 'ZONE',
      help: 'serve a catalog zone (RFC 9432) of the zones transferred with the --transfer-* settings, NOTIFYed to the same secondaries',
    },
    {
      flag: 'rate-limit',
      kind: 'int',
      field: 'rateLimit.responsesPerSecond',
      value: 'N',
      help: 'UDP responses per second per client prefix and answer (RRL); 0: off; default 20 for exposure external, else off',
    },
    {
      flag: 'rate-limit-window',
      kind: 'int',
      field: 'rateLimit.windowSeconds',
      value: 'SECONDS',
      help: 'how many seconds of responses an account may owe, default 15',
    },
    {
      flag: 'rate-limit-slip',
      kind: 'int',
      field: 'rateLimit.slip',
      value: 'N',
      help: 'every Nth limited response is sent truncated (TC) instead of dropped, 0: none; default 2',
    },
    {
      flag: 'rate-limit-ipv4-prefix',
      kind: 'int',
      field: 'rateLimit.ipv4PrefixLength',
      value: 'BITS',
      help: 'IPv4 clients are counted per prefix of this length, default 24',
    },
    {
      flag: 'rate-limit-ipv6-prefix',
      kind: 'int',
      field: 'rateLimit.ipv6PrefixLength',
      value: 'BITS',
      help: 'IPv6 clients are counted per prefix of this length, default 56',
    },
    {
      flag: 'max-tcp-connections',
      kind: 'int',
      field: 'maxTcpConnections',
      value: 'N',
      help: `open TCP connections at most; when full a new one closes the least recently active idle ones, default ${SERVER_CONFIG_DEFAULTS.maxTcpConnections}`,
    },
    {
      flag: 'tcp-idle-seconds',
      kind: 'int',
      field: 'tcpIdleSeconds',
      value: 'SECONDS',
      help: `close a TCP connection idle this long (shorter when over half the connections are open), default ${SERVER_CONFIG_DEFAULTS.tcpIdleSeconds}`,
    },
    {
      flag: 'query-log-every',
      kind: 'int',
      field: 'queryLogEvery',
      value: 'N',
      help: 'log one query in N (client, question, rcode, size) as a JSON line; default 0: off',
    },
    {
      flag: 'snapshot-file',
      kind: 'string',
      field: 'snapshotFile',
      value: 'FILE',
      help: 'keep the last-known records there; served (stale) when started while etcd is unreachable',
    },
    {
      flag: 'drain-service',
      kind: 'list',
      field: 'drain.services',
      value: 'NAME',
      help: "after SIGTERM, answer until these Services' EndpointSlices no longer list --pod-ip as ready, then --drain-seconds",
    },
    {
      flag: 'pod-ip',
      kind: 'string',
      field: 'drain.podIp',
      value: 'IP',
      help: "this pod's address (the downward API's status.podIP)",
    },
    {
      flag: 'pod-namespace',
      kind: 'string',
      field: 'drain.namespace',
      value: 'NS',
      help: "the Services' namespace (the downward API's metadata.namespace)",
    },
    {
      flag: 'kubeconfig',
      kind: 'string',
      field: 'drain.kubeconfig',
      value: 'FILE',
      help: "API server access for the drain; default $KUBECONFIG, else the pod's ServiceAccount",
    },
    {
      flag: 'drain-max-seconds',
      kind: 'int',
      field: 'drain.maxSeconds',
      value: 'SECONDS',
      help: `the longest wait for the EndpointSlices, default ${DRAIN_DEFAULTS.maxSeconds}`,
    },
    {
      flag: 'drain-seconds',
      kind: 'int',
      field: 'drain.seconds',
      value: 'SECONDS',
      help: `answer this long more once the EndpointSlices dropped this pod (unreadable: from SIGTERM), default ${DRAIN_DEFAULTS.seconds}`,
    },
    {
      flag: 'drain-quiet-seconds',
      kind: 'int',
      field: 'drain.quietSeconds',
      value: 'SECONDS',
      help: `then answer until no query arrived for this long (within --drain-max-seconds), default ${DRAIN_DEFAULTS.quietSeconds}`,
    },
    {
      flag: 'identity',
      kind: 'string',
      field: 'identity.name',
      value: 'NAME',
      help: 'the identifier told by NSID and CHAOS TXT id.server./hostname.bind., default the host name (the pod name)',
    },
    {
      flag: 'identity-enabled',
      kind: 'bool',
      field: 'identity.enabled',
      help: 'false: no NSID, and CHAOS id.server./hostname.bind. REFUSED; default true',
    },
    {
      flag: 'answer-version',
      kind: 'bool',
      field: 'identity.version',
      help: 'answer CHAOS TXT version.server./version.bind. with the etcdns version; default off (REFUSED)',
    },
    {
      flag: 'answer-rotation',
      kind: 'string',
      field: 'answerOrder.rotation',
      value: 'off|round-robin',
      help: 'round-robin: each answer starts its A/AAAA records one further; default off',
    },
    {
      flag: 'answer-prefer',
      kind: 'list',
      field: 'answerOrder.prefer',
      value: 'CIDR',
      help: 'A/AAAA records in those of these networks that hold the client go first, first listed first; default none',
    },
    {
      flag: 'log-level',
      kind: 'string',
      field: 'logLevel',
      value: 'LEVEL',
      help: 'debug|info|warn|error, default info',
    },
  ],
};

export const USAGE = usage(SERVER_OPTIONS);

/** Flags, environment and config file -> validated settings. Throws ConfigError naming field and source. */
export function loadServerSettings(
  args: string[],
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void = (m) => process.stderr.write(`etcdns server: ${m}\n`),
): ServerSettings {
  const { raw, sourceOf } = loadOptions(SERVER_OPTIONS, args, env, warn);
  return { config: parseConfig(serverConfigSchema, raw, sourceOf) };
}
