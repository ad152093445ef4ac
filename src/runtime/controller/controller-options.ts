// The controller's command line, environment (ETCDNS_<FLAG>) and --config file, merged in that
// order of precedence into one validated ControllerConfig. Every mistake names the config field
// and where the value came from.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ControllerConfig, Policy, SourceKind } from '../shared/config/controller-config.ts';
import { dnsNameProblem } from '../shared/dns-name.ts';
import { parseHostPort } from '../shared/http-server.ts';
import { DEFAULT_PREFIX, normalizePrefix } from '../shared/skydns-key.ts';
import { parseSelector } from './sources/selector.ts';
import { viewProblems } from './views/view-validation.ts';

type Kind = 'string' | 'list' | 'bool' | 'int';

interface OptionSpec {
  flag: string;
  kind: Kind;
  /** The config field it sets, as named in errors ("etcd.endpoints"). */
  field: string;
  help: string;
  set(config: Partial<ControllerConfig> & Record<string, unknown>, value: unknown): void;
}

const etcd = (c: Partial<ControllerConfig>) => (c.etcd ??= { endpoints: [] });
const election = (c: Partial<ControllerConfig>) =>
  (c.leaderElection ??= { enabled: false, namespace: '', leaseName: '' });

export const OPTIONS: OptionSpec[] = [
  {
    flag: 'kubeconfig',
    kind: 'string',
    field: 'kubeconfig',
    help: 'kubeconfig file (default: in-cluster ServiceAccount, else ~/.kube/config)',
    set: (c, v) => (c.kubeconfig = v as string),
  },
  {
    flag: 'etcd',
    kind: 'list',
    field: 'etcd.endpoints',
    help: 'etcd client URLs, comma-separated',
    set: (c, v) => (etcd(c).endpoints = v as string[]),
  },
  {
    flag: 'etcd-ca-file',
    kind: 'string',
    field: 'etcd.tls.caFile',
    help: 'CA bundle of etcd',
    set: (c, v) => (etcd(c).tls = { ...etcd(c).tls, caFile: v as string }),
  },
  {
    flag: 'etcd-cert-file',
    kind: 'string',
    field: 'etcd.tls.certFile',
    help: 'client certificate',
    set: (c, v) => (etcd(c).tls = { caFile: '', ...etcd(c).tls, certFile: v as string }),
  },
  {
    flag: 'etcd-key-file',
    kind: 'string',
    field: 'etcd.tls.keyFile',
    help: 'client key',
    set: (c, v) => (etcd(c).tls = { caFile: '', ...etcd(c).tls, keyFile: v as string }),
  },
  {
    flag: 'etcd-username',
    kind: 'string',
    field: 'etcd.auth.username',
    help: 'etcd user',
    set: (c, v) => (etcd(c).auth = { passwordFile: '', ...etcd(c).auth, username: v as string }),
  },
  {
    flag: 'etcd-password-file',
    kind: 'string',
    field: 'etcd.auth.passwordFile',
    help: 'file holding the etcd password',
    set: (c, v) => (etcd(c).auth = { username: '', ...etcd(c).auth, passwordFile: v as string }),
  },
  {
    flag: 'owner-id',
    kind: 'string',
    field: 'ownerId',
    help: 'owner id written into every entry (required)',
    set: (c, v) => (c.ownerId = v as string),
  },
  {
    flag: 'prefix',
    kind: 'string',
    field: 'prefix',
    help: `etcd key prefix (default ${DEFAULT_PREFIX})`,
    set: (c, v) => (c.prefix = v as string),
  },
  {
    flag: 'domain-filter',
    kind: 'list',
    field: 'domainFilter',
    help: 'only names in these domains (repeatable)',
    set: (c, v) => (c.domainFilter = v as string[]),
  },
  {
    flag: 'exclude-domains',
    kind: 'list',
    field: 'excludeDomains',
    help: 'never names in these domains (repeatable)',
    set: (c, v) => (c.excludeDomains = v as string[]),
  },
  {
    flag: 'namespace',
    kind: 'string',
    field: 'namespace',
    help: 'watch one namespace (default all)',
    set: (c, v) => (c.namespace = v as string),
  },
  {
    flag: 'source',
    kind: 'list',
    field: 'sources',
    help: 'service, ingress (repeatable; default both)',
    set: (c, v) => (c.sources = v as SourceKind[]),
  },
  {
    flag: 'ingress-class',
    kind: 'list',
    field: 'ingressClasses',
    help: 'only Ingresses of these classes (repeatable)',
    set: (c, v) => (c.ingressClasses = v as string[]),
  },
  {
    flag: 'label-selector',
    kind: 'string',
    field: 'labelSelector',
    help: 'label selector on Services and Ingresses',
    set: (c, v) => (c.labelSelector = v as string),
  },
  {
    flag: 'annotation-filter',
    kind: 'string',
    field: 'annotationFilter',
    help: 'annotation filter (label-selector syntax)',
    set: (c, v) => (c.annotationFilter = v as string),
  },
  {
    flag: 'publish-cluster-ip',
    kind: 'bool',
    field: 'publishClusterIp',
    help: 'publish ClusterIP Services by their hostname annotation',
    set: (c, v) => (c.publishClusterIp = v as boolean),
  },
  {
    flag: 'policy',
    kind: 'string',
    field: 'policy',
    help: 'sync | upsert-only | create-only (default sync)',
    set: (c, v) => (c.policy = v as Policy),
  },
  {
    flag: 'resync-seconds',
    kind: 'int',
    field: 'resyncSeconds',
    help: 'seconds between full resyncs (default 300)',
    set: (c, v) => (c.resyncSeconds = v as number),
  },
  {
    flag: 'adopt-external-dns-owner',
    kind: 'string',
    field: 'adoptExternalDnsOwner',
    help: "take over external-dns's records of this owner id",
    set: (c, v) => (c.adoptExternalDnsOwner = v as string),
  },
  {
    flag: 'debounce-ms',
    kind: 'int',
    field: 'debounceMs',
    help: 'milliseconds to gather events into one sync (default 5)',
    set: (c, v) => (c.debounceMs = v as number),
  },
  {
    flag: 'leader-elect',
    kind: 'bool',
    field: 'leaderElection.enabled',
    help: 'elect a leader through a Lease (needed with replicas > 1)',
    set: (c, v) => (election(c).enabled = v as boolean),
  },
  {
    flag: 'leader-election-namespace',
    kind: 'string',
    field: 'leaderElection.namespace',
    help: 'namespace of the Lease (default $POD_NAMESPACE)',
    set: (c, v) => (election(c).namespace = v as string),
  },
  {
    flag: 'lease-name',
    kind: 'string',
    field: 'leaderElection.leaseName',
    help: 'name of the Lease (default etcdns-controller)',
    set: (c, v) => (election(c).leaseName = v as string),
  },
  {
    flag: 'lease-duration-seconds',
    kind: 'int',
    field: 'leaderElection.leaseDurationSeconds',
    help: 'default 15',
    set: (c, v) => (election(c).leaseDurationSeconds = v as number),
  },
  {
    flag: 'renew-deadline-seconds',
    kind: 'int',
    field: 'leaderElection.renewDeadlineSeconds',
    help: 'default 10',
    set: (c, v) => (election(c).renewDeadlineSeconds = v as number),
  },
  {
    flag: 'retry-period-seconds',
    kind: 'int',
    field: 'leaderElection.retryPeriodSeconds',
    help: 'default 2',
    set: (c, v) => (election(c).retryPeriodSeconds = v as number),
  },
  {
    flag: 'http-listen',
    kind: 'string',
    field: 'httpListen',
    help: 'health and metrics address (default 0.0.0.0:8080)',
    set: (c, v) => (c.httpListen = v as string),
  },
  {
    flag: 'log-level',
    kind: 'string',
    field: 'logLevel',
    help: 'debug | info | warn | error',
    set: (c, v) => (c.logLevel = v as ControllerConfig['logLevel']),
  },
];

export interface CommandOptions {
  config: ControllerConfig;
  once: boolean;
  dryRun: boolean;
}

export class ConfigError extends Error {}

/** Flags > environment > --config file. Throws ConfigError naming the field. */
export function parseControllerOptions(args: string[], env: NodeJS.ProcessEnv = process.env): CommandOptions {
  const flags = new Map<OptionSpec, string[]>();
  let configFile = env.ETCDNS_CONFIG;
  let once = false;
  let dryRun = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new ConfigError(`unexpected argument "${arg}"`);
    const [, flag, inline] = m as unknown as [string, string, string | undefined];
    if (flag === 'once') once = true;
    else if (flag === 'dry-run') dryRun = true;
    else if (flag === 'config') configFile = inline ?? args[++i];
    else {
      const spec = OPTIONS.find((o) => o.flag === flag);
      if (!spec) throw new ConfigError(`unknown flag --${flag} (see --help)`);
      let value = inline;
      if (value === undefined && spec.kind === 'bool') value = 'true';
      if (value === undefined) value = args[++i];
      if (value === undefined) throw new ConfigError(`--${flag} needs a value (config field "${spec.field}")`);
      flags.set(spec, [...(flags.get(spec) ?? []), value]);
    }
  }

  const config: Partial<ControllerConfig> & Record<string, unknown> = configFile ? readConfigFile(configFile) : {};
  for (const spec of OPTIONS) {
    const envName = `ETCDNS_${spec.flag.toUpperCase().replace(/-/g, '_')}`;
    const fromFlags = flags.get(spec);
    const raw = fromFlags ?? (env[envName] !== undefined ? [env[envName]!] : undefined);
    if (raw === undefined) continue;
    const origin = fromFlags ? `--${spec.flag}` : envName;
    spec.set(config, convert(spec, raw, origin));
  }
  return { config: validateControllerConfig(config, env), once, dryRun };
}

function readConfigFile(file: string): Partial<ControllerConfig> & Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`--config ${file}: ${(e as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as Partial<ControllerConfig> & Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`--config ${file}: ${(e as Error).message}`);
  }
}

function convert(spec: OptionSpec, raw: string[], origin: string): unknown {
  const last = raw[raw.length - 1]!;
  switch (spec.kind) {
    case 'list':
      return raw
        .flatMap((r) => r.split(','))
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'bool':
      if (!['true', 'false', '1', '0'].includes(last))
        throw new ConfigError(`config field "${spec.field}" (${origin}): "${last}" is not true or false`);
      return last === 'true' || last === '1';
    case 'int':
      if (!/^\d+$/.test(last))
        throw new ConfigError(`config field "${spec.field}" (${origin}): "${last}" is not a whole number`);
      return Number(last);
    default:
      return last;
  }
}

const POLICIES: Policy[] = ['sync', 'upsert-only', 'create-only'];
const SOURCES: SourceKind[] = ['service', 'ingress'];
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'];

/** This replica's name in Leases and Events: the pod's name in a cluster, the host name elsewhere. */
export function podIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return env.POD_NAME || hostname();
}

/**
 * Checks every field and fills the defaults; the result is what the controller runs with.
 * `env` supplies the pod's identity (POD_NAME, POD_NAMESPACE) for leader election.
 */
export function validateControllerConfig(
  input: Partial<ControllerConfig> & Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): ControllerConfig {
  const fail = (field: string, message: string): never => {
    throw new ConfigError(`config field "${field}": ${message}`);
  };
  const isStringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  const e = input.etcd;
  if (!e || !isStringList(e.endpoints) || e.endpoints.length === 0)
    fail('etcd.endpoints', 'at least one etcd URL is required (--etcd)');
  for (const url of input.etcd!.endpoints)
    if (!/^https?:\/\/[^/]+$/.test(url)) fail('etcd.endpoints', `"${url}" is not http(s)://host:port`);
  if (e!.tls && !e!.tls.caFile) fail('etcd.tls.caFile', 'required with TLS (--etcd-ca-file)');
  if (e!.auth && (!e!.auth.username || !e!.auth.passwordFile))
    fail('etcd.auth', 'needs both username and passwordFile');
  if (typeof input.ownerId !== 'string' || input.ownerId === '') fail('ownerId', 'required (--owner-id)');
  if (!/^[A-Za-z0-9._-]+$/.test(input.ownerId!))
    fail('ownerId', `"${input.ownerId}" may contain only letters, digits, ".", "_" and "-"`);
  if (input.prefix !== undefined && (typeof input.prefix !== 'string' || normalizePrefix(input.prefix) === '/'))
    fail('prefix', `"${String(input.prefix)}" is not a key prefix such as /skydns`);
  if (input.views !== undefined) {
    if (input.prefix !== undefined) fail('prefix', "not together with views: set each view's prefix there");
    const problems = viewProblems(input.views);
    // Each problem starts with its field path ("views[1].rules[0].action: ..."), the config field itself.
    if (problems.length > 0)
      throw new ConfigError(problems.map((p) => p.replace(/^([^:]+): /, 'config field "$1": ')).join('; '));
  }
  for (const field of ['domainFilter', 'excludeDomains'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    if (!isStringList(v)) fail(field, 'must be a list of domain names');
    for (const d of v) {
      const problem = dnsNameProblem(d);
      if (problem) fail(field, `"${d}" ${problem}`);
    }
  }
  if (
    input.sources !== undefined &&
    (!isStringList(input.sources) || input.sources.some((s) => !SOURCES.includes(s)) || input.sources.length === 0)
  ) {
    fail('sources', `${JSON.stringify(input.sources)}: each must be one of ${SOURCES.join(', ')}`);
  }
  if (input.ingressClasses !== undefined && !isStringList(input.ingressClasses))
    fail('ingressClasses', 'must be a list of class names');
  for (const field of ['labelSelector', 'annotationFilter'] as const) {
    if (input[field] === undefined) continue;
    try {
      parseSelector(String(input[field]));
    } catch (err) {
      fail(field, (err as Error).message);
    }
  }
  if (input.policy !== undefined && !POLICIES.includes(input.policy))
    fail('policy', `"${input.policy}" is not one of ${POLICIES.join(', ')}`);
  const positive = (field: string, v: unknown, min = 1) => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min))
      fail(field, `${JSON.stringify(v)} must be a whole number >= ${min}`);
  };
  positive('resyncSeconds', input.resyncSeconds);
  positive('debounceMs', input.debounceMs, 0);
  if (input.httpListen !== undefined) {
    try {
      parseHostPort(input.httpListen);
    } catch (err) {
      fail('httpListen', (err as Error).message);
    }
  }
  if (input.logLevel !== undefined && !LOG_LEVELS.includes(input.logLevel))
    fail('logLevel', `"${input.logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);

  let leaderElection = input.leaderElection;
  if (leaderElection?.enabled) {
    leaderElection = {
      ...leaderElection,
      namespace: leaderElection.namespace || env.POD_NAMESPACE || '',
      leaseName: leaderElection.leaseName || 'etcdns-controller',
      identity: leaderElection.identity || podIdentity(env),
    };
    if (!leaderElection.namespace)
      fail('leaderElection.namespace', 'required with leader election (--leader-election-namespace or $POD_NAMESPACE)');
    positive('leaderElection.leaseDurationSeconds', leaderElection.leaseDurationSeconds);
    positive('leaderElection.renewDeadlineSeconds', leaderElection.renewDeadlineSeconds);
    positive('leaderElection.retryPeriodSeconds', leaderElection.retryPeriodSeconds);
  }
  return {
    ...(input as ControllerConfig),
    prefix: normalizePrefix(input.prefix ?? DEFAULT_PREFIX),
    sources: input.sources ?? ['service', 'ingress'],
    policy: input.policy ?? 'sync',
    resyncSeconds: input.resyncSeconds ?? 300,
    debounceMs: input.debounceMs ?? 5,
    httpListen: input.httpListen ?? '0.0.0.0:8080',
    logLevel: input.logLevel ?? 'info',
    ...(leaderElection ? { leaderElection } : {}),
  };
}

export function controllerUsage(command: string): string {
  const lines = [
    `Usage: etcdns ${command} --etcd URL[,URL] --owner-id ID [options]`,
    '',
    'Every flag can also be set as ETCDNS_<FLAG> (e.g. ETCDNS_OWNER_ID) or in --config FILE (ControllerConfig JSON).',
    'Precedence: flags, then environment, then the file.',
    '',
    `  ${'--config FILE'.padEnd(34)}ControllerConfig JSON file`,
    ...OPTIONS.map(
      (o) =>
        `  ${`--${o.flag}${o.kind === 'bool' ? '' : o.kind === 'list' ? ' A[,B]' : ' VALUE'}`.padEnd(34)}${o.help}`,
    ),
    `  ${'--once'.padEnd(34)}sync once and exit (exit code 1 when a change failed)`,
    `  ${'--dry-run'.padEnd(34)}compute and log the changes, write nothing`,
  ];
  return lines.join('\n');
}
