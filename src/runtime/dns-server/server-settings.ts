// Where the server's settings come from: the config file (a ServerConfig, as the DnsServer
// construct renders it), overridden by environment variables (etcd ones named as external-dns
// names them), overridden by flags. The merged result is validated; a mistake fails start-up
// with the field, where it came from, and what is allowed.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { dnsNameProblem } from '../shared/dns-name.ts';
import { parseHostPort } from '../shared/http-server.ts';
import type { NameServerConfig, ServerConfig, ServerZoneConfig } from '../shared/config/server-config.ts';
import { isIP } from 'node:net';
import { cidrMatcher, parseUpstream } from './forwarder.ts';

export interface ServerSettings {
  config: ServerConfig;
  /** ETCD_PASSWORD: a password given as a value (external-dns's way) rather than a file. */
  etcdPassword?: string;
  help: boolean;
}

export class SettingsError extends Error {}

export const DEFAULT_LISTEN = '0.0.0.0:5353';
export const DEFAULT_HTTP_LISTEN = '0.0.0.0:8080';

export const USAGE = `Usage: etcdns server --etcd URL[,URL] --zone example.org [--zone ...] [options]

Answers DNS authoritatively from the SkyDNS records under an etcd prefix, kept live by a watch.

Options (environment variable in brackets; flags override variables, variables the config file):
  --etcd URL[,URL]            etcd client URLs [ETCD_URLS]
  --etcd-ca-file FILE         CA bundle of etcd's server certificate [ETCD_CA_FILE]
  --etcd-cert-file FILE       client certificate [ETCD_CERT_FILE]
  --etcd-key-file FILE        client key [ETCD_KEY_FILE]
  --etcd-username NAME        [ETCD_USERNAME]
  --etcd-password-file FILE   file holding the password [ETCD_PASSWORD_FILE]; or ETCD_PASSWORD
  --zone ZONE                 a zone we are authoritative for; repeatable [ETCDNS_ZONES, comma-separated]
  --prefix PATH               etcd key prefix, default /skydns [ETCDNS_PREFIX]
  --listen HOST:PORT          DNS (UDP and TCP), default 0.0.0.0:5353 [ETCDNS_LISTEN]
  --http-listen HOST:PORT     /healthz /readyz /metrics, default 0.0.0.0:8080 [ETCDNS_HTTP_LISTEN]
  --lookup own|subtree        which entries answer for a name, default own [ETCDNS_LOOKUP]
  --workers N                 processes sharing the sockets, default 1 [ETCDNS_WORKERS]
  --exposure internal|external  the view's audience, default internal; external never forwards [ETCDNS_EXPOSURE]
  --forward-upstream IP[:PORT]   forward other names there; repeatable [ETCDNS_FORWARD_UPSTREAMS]
  --forward-client-cidr CIDR  only for clients in these CIDRs; repeatable [ETCDNS_FORWARD_CLIENT_CIDRS]
  --log-level LEVEL           debug|info|warn|error, default info [ETCDNS_LOG_LEVEL]
  --config FILE               a ServerConfig JSON file [ETCDNS_CONFIG]
`;

const FLAGS = {
  etcd: { type: 'string' },
  'etcd-ca-file': { type: 'string' },
  'etcd-cert-file': { type: 'string' },
  'etcd-key-file': { type: 'string' },
  'etcd-username': { type: 'string' },
  'etcd-password-file': { type: 'string' },
  zone: { type: 'string', multiple: true },
  prefix: { type: 'string' },
  listen: { type: 'string' },
  'http-listen': { type: 'string' },
  lookup: { type: 'string' },
  workers: { type: 'string' },
  exposure: { type: 'string' },
  'forward-upstream': { type: 'string', multiple: true },
  'forward-client-cidr': { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validates a merged config; `origin` tells where a top-level field came from. */
export function validateServerConfig(
  raw: unknown,
  origin: (field: string) => string | undefined = () => undefined,
): ServerConfig {
  const fail = (field: string, problem: string): never => {
    // The most specific origin known: "forward.upstreams[0]" -> "forward.upstreams" -> "forward".
    const path = field.replace(/\[\d+\]/g, '').split('.');
    let from: string | undefined;
    for (let n = path.length; n > 0 && from === undefined; n--) from = origin(path.slice(0, n).join('.'));
    throw new SettingsError(`${field}${from ? ` (from ${from})` : ''} ${problem}`);
  };
  if (!isObject(raw)) return fail('config', 'must be a JSON object');
  const str = (v: unknown, field: string) =>
    typeof v === 'string' && v.length > 0 ? v : fail(field, 'must be a non-empty string');
  const int = (v: unknown, field: string, min: number, max: number) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? v
      : fail(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  const strings = (v: unknown, field: string) => {
    if (!Array.isArray(v) || v.length === 0) return fail(field, 'must be a non-empty list of strings');
    return v.map((s, i) => str(s, `${field}[${i}]`));
  };
  const name = (v: unknown, field: string) => {
    const s = str(v, field);
    const problem = dnsNameProblem(s);
    return problem ? fail(field, `"${s}" ${problem}`) : s;
  };
  const hostPort = (v: unknown, field: string) => {
    const s = str(v, field);
    try {
      parseHostPort(s);
    } catch (e) {
      fail(field, `${(e as Error).message} (expected host:port, e.g. 127.0.0.1:5353)`);
    }
    return s;
  };
  const oneOf = <T extends string>(v: unknown, field: string, allowed: readonly T[]) =>
    allowed.includes(v as T) ? (v as T) : fail(field, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);

  if (!isObject(raw.etcd) || raw.etcd.endpoints === undefined) {
    return fail('etcd.endpoints', 'is required (--etcd URL or ETCD_URLS)');
  }
  const endpoints = strings(raw.etcd.endpoints, 'etcd.endpoints');
  endpoints.forEach((url, i) => {
    if (!/^https?:\/\/[^/]+/.test(url)) fail(`etcd.endpoints[${i}]`, `"${url}" is not an http:// or https:// URL`);
  });
  const config: ServerConfig = { etcd: { endpoints }, zones: [] };
  const tls = raw.etcd.tls;
  if (tls !== undefined) {
    if (!isObject(tls)) return fail('etcd.tls', 'must be an object');
    config.etcd.tls = { caFile: str(tls.caFile, 'etcd.tls.caFile') };
    if (tls.certFile !== undefined) config.etcd.tls.certFile = str(tls.certFile, 'etcd.tls.certFile');
    if (tls.keyFile !== undefined) config.etcd.tls.keyFile = str(tls.keyFile, 'etcd.tls.keyFile');
    if (!config.etcd.tls.certFile !== !config.etcd.tls.keyFile)
      fail('etcd.tls', 'needs both certFile and keyFile, or neither');
  }
  const auth = raw.etcd.auth;
  if (auth !== undefined) {
    if (!isObject(auth)) return fail('etcd.auth', 'must be an object');
    config.etcd.auth = { username: str(auth.username, 'etcd.auth.username'), passwordFile: '' };
    if (auth.passwordFile !== undefined)
      config.etcd.auth.passwordFile = str(auth.passwordFile, 'etcd.auth.passwordFile');
  }

  if (!Array.isArray(raw.zones) || raw.zones.length === 0) return fail('zones', 'needs at least one zone (--zone)');
  config.zones = raw.zones.map((z: unknown, i: number): ServerZoneConfig => {
    const at = `zones[${i}]`;
    if (!isObject(z)) return fail(at, 'must be an object with a name');
    const zone: ServerZoneConfig = { name: name(z.name, `${at}.name`) };
    if (z.defaultTtl !== undefined) zone.defaultTtl = int(z.defaultTtl, `${at}.defaultTtl`, 1, 0x7fffffff);
    if (z.nameServers !== undefined) {
      if (!Array.isArray(z.nameServers)) return fail(`${at}.nameServers`, 'must be a list of { name, addresses }');
      zone.nameServers = z.nameServers.map((ns: unknown, j: number) => {
        const nsAt = `${at}.nameServers[${j}]`;
        if (!isObject(ns)) return fail(nsAt, 'must be an object with a name');
        const server: NameServerConfig = { name: name(ns.name, `${nsAt}.name`) };
        if (ns.addresses !== undefined) {
          server.addresses = strings(ns.addresses, `${nsAt}.addresses`).map((a, k) =>
            isIP(a) ? a : fail(`${nsAt}.addresses[${k}]`, `"${a}" is not an IPv4 or IPv6 address`),
          );
        }
        return server;
      });
    }
    if (z.soa !== undefined) {
      if (!isObject(z.soa)) return fail(`${at}.soa`, 'must be an object');
      const soa = z.soa;
      zone.soa = {};
      if (soa.mname !== undefined) zone.soa.mname = name(soa.mname, `${at}.soa.mname`);
      if (soa.rname !== undefined) zone.soa.rname = name(soa.rname, `${at}.soa.rname`);
      for (const f of ['refresh', 'retry', 'expire', 'minimum'] as const) {
        if (soa[f] !== undefined) zone.soa[f] = int(soa[f], `${at}.soa.${f}`, 0, 0x7fffffff);
      }
    }
    return zone;
  });
  const seen = new Set<string>();
  config.zones.forEach((z, i) => {
    const key = z.name.toLowerCase().replace(/\.$/, '');
    if (seen.has(key)) fail(`zones[${i}].name`, `"${z.name}" is listed twice`);
    seen.add(key);
  });

  if (raw.prefix !== undefined) {
    const prefix = str(raw.prefix, 'prefix');
    if (!prefix.startsWith('/')) fail('prefix', `"${prefix}" must start with "/"`);
    config.prefix = prefix;
  }
  if (raw.listen !== undefined) config.listen = hostPort(raw.listen, 'listen');
  if (raw.httpListen !== undefined) config.httpListen = hostPort(raw.httpListen, 'httpListen');
  if (raw.lookup !== undefined) config.lookup = oneOf(raw.lookup, 'lookup', ['own', 'subtree'] as const);
  if (raw.workers !== undefined) config.workers = int(raw.workers, 'workers', 1, 64);
  if (raw.logLevel !== undefined)
    config.logLevel = oneOf(raw.logLevel, 'logLevel', ['debug', 'info', 'warn', 'error'] as const);
  if (raw.maxUdpPayload !== undefined) config.maxUdpPayload = int(raw.maxUdpPayload, 'maxUdpPayload', 512, 65535);
  if (raw.tcpIdleSeconds !== undefined) config.tcpIdleSeconds = int(raw.tcpIdleSeconds, 'tcpIdleSeconds', 1, 3600);
  if (raw.forward !== undefined) {
    if (!isObject(raw.forward)) return fail('forward', 'must be an object with upstreams and clientCidrs');
    const upstreams = strings(raw.forward.upstreams, 'forward.upstreams');
    upstreams.forEach((u, i) => {
      try {
        parseUpstream(u);
      } catch (e) {
        fail(`forward.upstreams[${i}]`, (e as Error).message);
      }
    });
    const clientCidrs = strings(raw.forward.clientCidrs, 'forward.clientCidrs');
    clientCidrs.forEach((c, i) => {
      try {
        cidrMatcher([c]);
      } catch (e) {
        fail(`forward.clientCidrs[${i}]`, (e as Error).message);
      }
    });
    config.forward = { upstreams, clientCidrs };
  }
  if (raw.exposure !== undefined) config.exposure = oneOf(raw.exposure, 'exposure', ['internal', 'external'] as const);
  // Split horizon: the outside gets authoritative answers only, never an open resolver.
  if (config.exposure === 'external' && config.forward)
    fail('forward.upstreams', 'is not allowed with exposure "external": an external view answers authoritatively only');
  return config;
}

/** Flags, environment and config file -> validated settings. Throws SettingsError. */
export function loadServerSettings(args: string[], env: NodeJS.ProcessEnv): ServerSettings {
  let flags;
  try {
    flags = parseArgs({ args, options: FLAGS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    throw new SettingsError((e as Error).message);
  }
  if (flags.help) return { config: { etcd: { endpoints: [] }, zones: [] }, help: true };

  const origins = new Map<string, string>();
  const configFile = flags.config ?? env.ETCDNS_CONFIG;
  let raw: Json = {};
  if (configFile) {
    try {
      raw = JSON.parse(readFileSync(configFile, 'utf8')) as Json;
    } catch (e) {
      throw new SettingsError(`config file ${configFile}: ${(e as Error).message}`);
    }
    if (!isObject(raw)) throw new SettingsError(`config file ${configFile}: must hold a JSON object`);
    for (const k of Object.keys(raw)) origins.set(k, `config file ${configFile}`);
  }
  const etcd: Json = isObject(raw.etcd) ? { ...raw.etcd } : {};
  const set = (target: Json, field: string, value: unknown, origin: string, parent?: string) => {
    if (value === undefined) return;
    target[field] = value;
    origins.set(parent ? `${parent}.${field}` : field, origin);
  };
  const pick = (flag: string | undefined, flagName: string, envName: string): [string | undefined, string] =>
    flag !== undefined ? [flag, `--${flagName}`] : [env[envName], envName];

  const [urls, urlsFrom] = pick(flags.etcd, 'etcd', 'ETCD_URLS');
  if (urls !== undefined) set(etcd, 'endpoints', list(urls), urlsFrom, 'etcd');
  const tls: Json = isObject(etcd.tls) ? { ...etcd.tls } : {};
  for (const [field, flag, envName] of [
    ['caFile', 'etcd-ca-file', 'ETCD_CA_FILE'],
    ['certFile', 'etcd-cert-file', 'ETCD_CERT_FILE'],
    ['keyFile', 'etcd-key-file', 'ETCD_KEY_FILE'],
  ] as const) {
    const [value, from] = pick(flags[flag], flag, envName);
    set(tls, field, value, from, 'etcd.tls');
  }
  if (Object.keys(tls).length > 0) etcd.tls = tls;
  const authIn: Json = isObject(etcd.auth) ? { ...etcd.auth } : {};
  const [user, userFrom] = pick(flags['etcd-username'], 'etcd-username', 'ETCD_USERNAME');
  set(authIn, 'username', user, userFrom, 'etcd.auth');
  const [pwFile, pwFrom] = pick(flags['etcd-password-file'], 'etcd-password-file', 'ETCD_PASSWORD_FILE');
  set(authIn, 'passwordFile', pwFile, pwFrom, 'etcd.auth');
  const etcdPassword = env.ETCD_PASSWORD;
  if (Object.keys(authIn).length > 0 || etcdPassword !== undefined) etcd.auth = authIn;
  raw = { ...raw, etcd };

  const zones = flags.zone ?? (env.ETCDNS_ZONES ? list(env.ETCDNS_ZONES) : undefined);
  if (zones)
    set(
      raw,
      'zones',
      zones.map((name) => ({ name })),
      flags.zone ? '--zone' : 'ETCDNS_ZONES',
    );
  for (const [field, flag, envName] of [
    ['prefix', 'prefix', 'ETCDNS_PREFIX'],
    ['listen', 'listen', 'ETCDNS_LISTEN'],
    ['httpListen', 'http-listen', 'ETCDNS_HTTP_LISTEN'],
    ['lookup', 'lookup', 'ETCDNS_LOOKUP'],
    ['logLevel', 'log-level', 'ETCDNS_LOG_LEVEL'],
    ['exposure', 'exposure', 'ETCDNS_EXPOSURE'],
  ] as const) {
    const [value, from] = pick(flags[flag], flag, envName);
    set(raw, field, value, from);
  }
  const [workers, workersFrom] = pick(flags.workers, 'workers', 'ETCDNS_WORKERS');
  if (workers !== undefined) set(raw, 'workers', /^\d+$/.test(workers) ? Number(workers) : workers, workersFrom);
  const upstreams =
    flags['forward-upstream'] ?? (env.ETCDNS_FORWARD_UPSTREAMS ? list(env.ETCDNS_FORWARD_UPSTREAMS) : undefined);
  const cidrs =
    flags['forward-client-cidr'] ??
    (env.ETCDNS_FORWARD_CLIENT_CIDRS ? list(env.ETCDNS_FORWARD_CLIENT_CIDRS) : undefined);
  if (upstreams || cidrs) {
    const forward: Json = isObject(raw.forward) ? { ...raw.forward } : {};
    set(
      forward,
      'upstreams',
      upstreams,
      flags['forward-upstream'] ? '--forward-upstream' : 'ETCDNS_FORWARD_UPSTREAMS',
      'forward',
    );
    set(
      forward,
      'clientCidrs',
      cidrs,
      flags['forward-client-cidr'] ? '--forward-client-cidr' : 'ETCDNS_FORWARD_CLIENT_CIDRS',
      'forward',
    );
    raw = { ...raw, forward };
  }

  const config = validateServerConfig(raw, (field) => origins.get(field));
  if (config.etcd.auth && !config.etcd.auth.passwordFile && etcdPassword === undefined) {
    throw new SettingsError('etcd.auth needs a password: --etcd-password-file, ETCD_PASSWORD_FILE or ETCD_PASSWORD');
  }
  return { config, help: false, ...(etcdPassword !== undefined ? { etcdPassword } : {}) };
}
