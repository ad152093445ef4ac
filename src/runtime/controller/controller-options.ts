// The option tables of `etcdns controller` and `etcdns plan`, and their settings: the --config
// file (a ControllerConfig), overridden by environment variables, overridden by flags, validated
// by the one ControllerConfig schema (src/config/). `plan` has no controller-only flags.
import { hostname } from 'node:os';
import { loadOptions, usage, type CommandTable, type OptionSpec } from '../../config/command-options.ts';
import {
  CONTROLLER_CONFIG_DEFAULTS,
  controllerConfigSchema,
  type ControllerConfig,
} from '../../config/controller-config.ts';
import { ETCD_OPTIONS } from '../../config/etcd-options.ts';
import { parseConfig } from '../../config/schema-problems.ts';
import { CLUSTERS_PREFIX, clusterPrefix } from '../../skydns/cluster-prefix.ts';
import { DEFAULT_PREFIX } from '../../skydns/skydns-key.ts';
import { SOURCE_KINDS } from '../../config/source-kinds.ts';
import { RECORD_TYPES } from '../../dns/record-types.ts';
import { DNS_ENDPOINT_API_VERSION } from './sources/dns-endpoint/dns-endpoint.ts';

import { ConfigError } from '../../config/config-error.ts';

export { ConfigError };

const SHARED: OptionSpec[] = [
  {
    flag: 'kubeconfig',
    kind: 'string',
    field: 'kubeconfig',
    value: 'FILE',
    help: 'kubeconfig file (default: in-cluster ServiceAccount, else ~/.kube/config)',
  },
  ...ETCD_OPTIONS,
  {
    flag: 'owner-id',
    kind: 'string',
    field: 'ownerId',
    value: 'ID',
    help: 'owner id written into every entry (required)',
  },
  {
    flag: 'prefix',
    kind: 'string',
    field: 'prefix',
    value: 'PATH',
    help: `etcd key prefix (default ${DEFAULT_PREFIX})`,
  },
  {
    flag: 'cluster',
    kind: 'string',
    field: 'cluster',
    value: 'NAME',
    help: `a spoke of a hub: write under this cluster's prefix, ${CLUSTERS_PREFIX}/NAME`,
  },
  {
    flag: 'cluster-lease-seconds',
    kind: 'int',
    field: 'clusterLeaseSeconds',
    value: 'N',
    help: "with --cluster: TTL of the lease on the cluster's lease key, which the hub counts (default 10)",
  },
  { flag: 'domain-filter', kind: 'list', field: 'domainFilter', help: 'only names in these domains' },
  { flag: 'exclude-domains', kind: 'list', field: 'excludeDomains', help: 'never names in these domains' },
  { flag: 'namespace', kind: 'string', field: 'namespace', value: 'NAME', help: 'watch one namespace (default all)' },
  {
    flag: 'source',
    kind: 'list',
    field: 'sources',
    help: `${SOURCE_KINDS.join(', ')} (default service, ingress)`,
  },
  { flag: 'ingress-class', kind: 'list', field: 'ingressClasses', help: 'only Ingresses of these classes' },
  {
    flag: 'gateway-name',
    kind: 'string',
    field: 'gatewayName',
    value: 'NAME',
    help: 'routes only through Gateways of this name',
  },
  {
    flag: 'gateway-namespace',
    kind: 'string',
    field: 'gatewayNamespace',
    value: 'NAME',
    help: 'routes only through Gateways of this namespace',
  },
  {
    flag: 'gateway-label-filter',
    kind: 'string',
    field: 'gatewayLabelFilter',
    value: 'SELECTOR',
    help: 'routes only through Gateways with these labels',
  },
  {
    flag: 'gateway-listener-sets',
    kind: 'bool',
    field: 'gatewayListenerSets',
    help: 'routes may attach to ListenerSets of the Gateways',
  },
  {
    flag: 'ignore-hostname-annotation',
    kind: 'bool',
    field: 'ignoreHostnameAnnotation',
    help: "the hostname annotation (and a Service's internal-hostname) publishes nothing",
  },
  {
    flag: 'traefik-enable-legacy',
    kind: 'bool',
    field: 'traefikEnableLegacy',
    help: 'traefik-proxy: also the traefik.containo.us group (Traefik v2)',
  },
  {
    flag: 'traefik-disable-new',
    kind: 'bool',
    field: 'traefikDisableNew',
    help: 'traefik-proxy: not the traefik.io group',
  },
  {
    flag: 'traefik-service',
    kind: 'string',
    field: 'traefikService',
    value: 'NAMESPACE/NAME',
    help: "traefik-proxy: routes without a target annotation take this Service's addresses (etcdns extension)",
  },
  {
    flag: 'openshift-router-name',
    kind: 'string',
    field: 'openshiftRouterName',
    value: 'NAME',
    help: "openshift-route: only this router's admission (default the first router that admitted the route)",
  },
  {
    flag: 'exclude-unschedulable',
    kind: 'bool',
    field: 'excludeUnschedulable',
    help: 'node: leave out unschedulable Nodes (default true; --exclude-unschedulable=false keeps them)',
  },
  {
    flag: 'expose-internal-ipv6',
    kind: 'bool',
    field: 'exposeInternalIpv6',
    help: 'node: also publish the IPv6 InternalIPs of Nodes that have ExternalIPs',
  },
  {
    flag: 'pod-source-domain',
    kind: 'string',
    field: 'podSourceDomain',
    value: 'DOMAIN',
    help: 'pod: publish every Pod as <pod name>.DOMAIN at its IP',
  },
  {
    flag: 'ignore-non-host-network-pods',
    kind: 'bool',
    field: 'ignoreNonHostNetworkPods',
    help: 'pod: only Pods on the host network (default false)',
  },
  {
    flag: 'managed-record-types',
    kind: 'list',
    field: 'managedRecordTypes',
    help: `only these record types (${RECORD_TYPES.join(', ')}; default all)`,
  },
  {
    flag: 'crd-source-apiversion',
    kind: 'string',
    value: 'GROUP/VERSION',
    help: `the crd source's API version: ${DNS_ENDPOINT_API_VERSION} only (accepted for external-dns's flags)`,
  },
  {
    flag: 'crd-source-kind',
    kind: 'string',
    value: 'KIND',
    help: "the crd source's kind: DNSEndpoint only (accepted for external-dns's flags)",
  },
  {
    flag: 'label-selector',
    kind: 'string',
    field: 'labelSelector',
    value: 'SELECTOR',
    help: 'label selector on Services and Ingresses',
  },
  {
    flag: 'annotation-filter',
    kind: 'string',
    field: 'annotationFilter',
    value: 'SELECTOR',
    help: 'annotation filter (label-selector syntax)',
  },
  {
    flag: 'annotation-prefix',
    kind: 'string',
    field: 'annotationPrefix',
    value: 'PREFIX',
    help: 'the prefix of the external-dns annotations read (default external-dns.kubernetes.io/, and the alpha one)',
  },
  {
    flag: 'enable-legacy-annotation-prefix',
    kind: 'bool',
    field: 'enableLegacyAnnotationPrefix',
    help: 'also read external-dns.alpha.kubernetes.io/, the --annotation-prefix winning (default on without --annotation-prefix)',
  },
  {
    flag: 'default-targets',
    kind: 'list',
    field: 'defaultTargets',
    help: 'targets of DNSEndpoint endpoints without any (IP addresses, or one host name)',
  },
  {
    flag: 'force-default-targets',
    kind: 'bool',
    field: 'forceDefaultTargets',
    help: "every published name takes the --default-targets instead of its own (external-dns's deprecated flag)",
  },
  {
    flag: 'fqdn-template',
    kind: 'repeated',
    field: 'fqdnTemplate',
    value: 'TEMPLATE',
    help: 'Go template of names for objects that give none (repeatable)',
  },
  {
    flag: 'target-template',
    kind: 'repeated',
    field: 'targetTemplate',
    value: 'TEMPLATE',
    help: "Go template of the unstructured source's targets (repeatable)",
  },
  {
    flag: 'fqdn-target-template',
    kind: 'repeated',
    field: 'fqdnTargetTemplate',
    value: 'TEMPLATE',
    help: 'Go template of host:target pairs, unstructured source (repeatable)',
  },
  {
    flag: 'combine-fqdn-annotation',
    kind: 'bool',
    field: 'combineFqdnAnnotation',
    help: "add the template's names to the object's own",
  },
  {
    flag: 'unstructured-resource',
    kind: 'list',
    field: 'unstructuredResources',
    value: 'RESOURCE.VERSION.GROUP',
    help: 'what the unstructured source reads, e.g. configmaps.v1',
  },
  {
    flag: 'publish-cluster-ip',
    kind: 'bool',
    field: 'publishClusterIp',
    help: 'publish ClusterIP Services by their hostname annotation',
  },
  {
    flag: 'policy',
    kind: 'string',
    field: 'policy',
    value: 'POLICY',
    help: `sync | upsert-only | create-only (default ${CONTROLLER_CONFIG_DEFAULTS.policy})`,
  },
  {
    flag: 'adopt-external-dns-owner',
    kind: 'string',
    field: 'adoptExternalDnsOwner',
    value: 'ID',
    help: "take over external-dns's records of this owner id",
  },
  { flag: 'log-level', kind: 'string', field: 'logLevel', value: 'LEVEL', help: 'debug | info | warn | error' },
];

export const CONTROLLER_OPTIONS: CommandTable = {
  command: 'controller',
  synopsis: '--etcd-urls URL[,URL] --owner-id ID [options]',
  description: 'Watches Services and Ingresses and writes exactly their records into etcd.',
  options: [
    ...SHARED,
    {
      flag: 'resync-seconds',
      kind: 'int',
      field: 'resyncSeconds',
      value: 'N',
      help: `seconds between full resyncs (default ${CONTROLLER_CONFIG_DEFAULTS.resyncSeconds})`,
    },
    {
      flag: 'debounce-ms',
      kind: 'int',
      field: 'debounceMs',
      value: 'N',
      help: `milliseconds to gather events into one sync (default ${CONTROLLER_CONFIG_DEFAULTS.debounceMs})`,
    },
    {
      flag: 'leader-elect',
      kind: 'bool',
      field: 'leaderElection.enabled',
      help: 'elect a leader through a Lease (needed with replicas > 1)',
    },
    {
      flag: 'leader-election-namespace',
      kind: 'string',
      field: 'leaderElection.namespace',
      value: 'NAME',
      help: 'namespace of the Lease (default $POD_NAMESPACE)',
    },
    {
      flag: 'lease-name',
      kind: 'string',
      field: 'leaderElection.leaseName',
      value: 'NAME',
      help: 'name of the Lease (default etcdns-controller)',
    },
    {
      flag: 'lease-duration-seconds',
      kind: 'int',
      field: 'leaderElection.leaseDurationSeconds',
      value: 'N',
      help: 'default 15',
    },
    {
      flag: 'renew-deadline-seconds',
      kind: 'int',
      field: 'leaderElection.renewDeadlineSeconds',
      value: 'N',
      help: 'default 10',
    },
    {
      flag: 'retry-period-seconds',
      kind: 'int',
      field: 'leaderElection.retryPeriodSeconds',
      value: 'N',
      help: 'default 2',
    },
    {
      flag: 'http-listen',
      kind: 'string',
      field: 'httpListen',
      value: 'HOST:PORT',
      help: 'health and metrics address (default 0.0.0.0:8080)',
    },
    { flag: 'once', kind: 'bool', help: 'sync once and exit (exit code 1 when a change failed)' },
    { flag: 'dry-run', kind: 'bool', help: 'compute and log the changes, write nothing' },
  ],
};

export const PLAN_OPTIONS: CommandTable = {
  command: 'plan',
  synopsis: '--etcd-urls URL[,URL] --owner-id ID [options]',
  description:
    'Prints the changes the controller would make now, per name (and per view), and exits.\nExit code 0: no changes, 3: changes, 1: error, 2: bad arguments.',
  options: [
    ...SHARED,
    { flag: 'view', kind: 'string', value: 'NAME', help: "only this view's plan (default: every view)" },
  ],
};

export interface CommandOptions {
  config: ControllerConfig;
  once: boolean;
  dryRun: boolean;
  /** plan --view. */
  view?: string;
}

export function controllerUsage(command: string): string {
  return usage(command === 'plan' ? PLAN_OPTIONS : CONTROLLER_OPTIONS);
}

/** Flags > environment > --config file. Throws ConfigError naming the field and the source. */
export function parseControllerOptions(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  command: 'controller' | 'plan' = 'controller',
  warn: (message: string) => void = (m) => process.stderr.write(`etcdns ${command}: ${m}\n`),
): CommandOptions {
  const table = command === 'plan' ? PLAN_OPTIONS : CONTROLLER_OPTIONS;
  const { raw, sourceOf, switches } = loadOptions(table, args, env, warn);
  const view = switches.get('view') as string | undefined;
  crdSourceProblems(switches);
  return {
    config: withControllerDefaults(parseConfig(controllerConfigSchema, raw, sourceOf), env),
    once: switches.get('once') === true,
    dryRun: switches.get('dry-run') === true,
    ...(view !== undefined ? { view } : {}),
  };
}

/** external-dns's crd-source flags name the DNSEndpoint it reads; another resource is not supported. */
function crdSourceProblems(switches: Map<string, unknown>): void {
  const problems: string[] = [];
  const apiVersion = switches.get('crd-source-apiversion');
  if (apiVersion !== undefined && apiVersion !== DNS_ENDPOINT_API_VERSION)
    problems.push(
      `--crd-source-apiversion: only ${DNS_ENDPOINT_API_VERSION} is read (got ${JSON.stringify(apiVersion)})`,
    );
  const kind = switches.get('crd-source-kind');
  if (kind !== undefined && kind !== 'DNSEndpoint')
    problems.push(`--crd-source-kind: only DNSEndpoint is read (got ${JSON.stringify(kind)})`);
  if (problems.length > 0) throw new ConfigError(problems);
}

/** This replica's name in Leases and Events: the pod's name in a cluster, the host name elsewhere. */
export function podIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return env.POD_NAME || hostname();
}

/**
 * Fills the defaults of a validated config; the result is what the controller runs with.
 * `env` supplies the pod's identity (POD_NAME, POD_NAMESPACE) for leader election.
 */
function withControllerDefaults(config: ControllerConfig, env: NodeJS.ProcessEnv): ControllerConfig {
  let leaderElection = config.leaderElection;
  if (leaderElection?.enabled) {
    leaderElection = {
      ...leaderElection,
      namespace: leaderElection.namespace || env.POD_NAMESPACE || '',
      leaseName: leaderElection.leaseName || 'etcdns-controller',
      identity: leaderElection.identity || podIdentity(env),
    };
    if (!leaderElection.namespace)
      throw new ConfigError([
        'leaderElection.namespace: required with leader election (--leader-election-namespace or $POD_NAMESPACE)',
      ]);
  }
  return {
    ...config,
    prefix: config.cluster !== undefined ? clusterPrefix(config.cluster) : (config.prefix ?? DEFAULT_PREFIX),
    sources: config.sources ?? ['service', 'ingress'],
    policy: config.policy ?? CONTROLLER_CONFIG_DEFAULTS.policy,
    resyncSeconds: config.resyncSeconds ?? CONTROLLER_CONFIG_DEFAULTS.resyncSeconds,
    debounceMs: config.debounceMs ?? CONTROLLER_CONFIG_DEFAULTS.debounceMs,
    logLevel: config.logLevel ?? 'info',
    ...(leaderElection ? { leaderElection } : {}),
  };
}
