// The controller's configuration (rendered by the DnsController construct into a ConfigMap, or
// written by hand); flags and environment variables override it (controller-options.ts).
import { isIP } from 'node:net';
import * as v from 'valibot';
import { dnsNameProblem } from '../dns/dns-name.ts';
import { parseSelector } from './label-selector.ts';
import { etcdConnectionSchema } from './etcd-connection.ts';
import {
  dnsName,
  hostPort,
  integer,
  clusterName,
  keyPrefix,
  list,
  logLevel,
  namespaceName,
  objectName,
  oneOf,
  ownerId,
  path,
  pathTo,
  text,
} from './field-rules.ts';
import { reverseZonesSchema } from './reverse-zone-config.ts';
import { DEFAULT_VIEW, UNKNOWN_RULE_KIND, unlistedRuleKinds, viewsSchema } from './view-config.ts';

import { SOURCE_KINDS } from './source-kinds.ts';
import {
  FqdnTemplates,
  NO_TEMPLATES,
  TemplateConfigError,
  type TemplateFlags,
} from '../runtime/controller/fqdn/fqdn-templates.ts';
import { parseUnstructuredResource } from './unstructured-resource.ts';
import { RECORD_TYPES } from '../dns/record-types.ts';

export type { SourceKind } from './source-kinds.ts';
const POLICIES = ['sync', 'upsert-only', 'create-only'] as const;
export type Policy = (typeof POLICIES)[number];

/** A Kubernetes label selector ("app=web,tier!=db"), also the syntax of the annotation filter. */
export const labelSelector = v.pipe(
  v.string('must be a label selector such as "app=web"'),
  v.rawCheck(({ dataset, addIssue }) => {
    try {
      parseSelector(dataset.value as string);
    } catch (e) {
      addIssue({ message: (e as Error).message });
    }
  }),
);

const SOURCE_NAMES = SOURCE_KINDS.map((k) => `"${k}"`).join(', ');
export const sourceKinds = v.pipe(
  list(oneOf(SOURCE_KINDS), `sources (${SOURCE_NAMES})`),
  v.check((k) => new Set(k).size === k.length, 'must list each source once'),
);
export const recordTypes = v.pipe(
  list(oneOf(RECORD_TYPES), 'record types'),
  v.check((k) => new Set(k).size === k.length, 'must list each record type once'),
);
export const policy = oneOf(POLICIES);
export const resyncSeconds = integer(1, 86400, 'a number of seconds');
/** What the controller runs with where the config says nothing (the fields below say which). */
export const CONTROLLER_CONFIG_DEFAULTS = { policy: 'sync', resyncSeconds: 300, debounceMs: 5 } as const;
export const domains = v.array(dnsName, 'must be a list of domain names');
const defaultTargets = v.pipe(
  list(
    text('an IP address or a host name', (s) => isIP(s) !== 0 || dnsNameProblem(s) === undefined),
    'IP addresses or one host name',
  ),
  v.check(
    (targets) => targets.every((t) => isIP(t) !== 0) || targets.length === 1,
    'must be IP addresses, or one host name (a CNAME stands alone)',
  ),
);
export const ingressClasses = v.array(objectName, 'must be a list of class names');

/** A template flag's values: each must parse (fqdn/), the error naming the value's index. */
const templates = (flag: keyof TemplateFlags) =>
  v.pipe(
    v.array(v.string(), 'must be a list of Go templates'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      try {
        FqdnTemplates.parse({ ...NO_TEMPLATES, [flag]: dataset.value });
      } catch (e) {
        if (!(e instanceof TemplateConfigError)) throw e;
        addIssue({ message: e.message });
      }
    }),
  );
export const unstructuredResources = v.pipe(
  v.array(v.string(), 'must be a list of resource.version.group'),
  v.check((r) => new Set(r).size === r.length, 'must list each resource once'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const r of dataset.value) {
      const parsed = parseUnstructuredResource(r);
      if (!parsed.ok) addIssue({ message: parsed.error });
    }
  }),
);

const leaderElectionSchema = v.object({
  enabled: v.optional(v.boolean('must be true or false'), false),
  /** Namespace of the Lease; default $POD_NAMESPACE. */
  namespace: v.optional(v.union([v.literal(''), namespaceName]), ''),
  /** Default "etcdns-controller". */
  leaseName: v.optional(v.union([v.literal(''), objectName]), ''),
  /** This replica's name in the Lease; default $POD_NAME, else the host name. */
  identity: v.optional(v.string()),
  /** client-go's defaults: 15 / 10 / 2 seconds. */
  leaseDurationSeconds: v.optional(integer(1, 3600, 'a number of seconds')),
  renewDeadlineSeconds: v.optional(integer(1, 3600, 'a number of seconds')),
  retryPeriodSeconds: v.optional(integer(1, 3600, 'a number of seconds')),
});

/** Each setting of the controller, for checking one at a time (the constructs' props). */
export const controllerEntries = {
  etcd: etcdConnectionSchema,
  /** Written into every entry's `owner`; entries of other owners are never touched. */
  ownerId,
  /** etcd key prefix; default "/skydns". Not together with `views` (each view has its own). */
  prefix: v.optional(keyPrefix),
  /**
   * A spoke of a hub: this cluster's name; the records go under its own prefix,
   * "/skydns-clusters/<cluster>" (src/skydns/cluster-prefix.ts). Not together with prefix or views.
   */
  cluster: v.optional(clusterName),
  /**
   * With `cluster`: the TTL of the etcd lease on the cluster's lease key (clusterLeaseKey), kept
   * alive while this replica leads; the hub counts the cluster while the key exists. Default 10.
   */
  clusterLeaseSeconds: v.optional(integer(2, 3600)),
  /**
   * With `cluster`: what the cluster may publish (src/skydns/cluster-claims.ts), as the hub's
   * `hub.clusters[].suffixes` say, optionally only from some namespaces. A name outside them is
   * refused with a log line, an Event and the problems metric (a DNSEndpoint's Ready condition
   * NotClaimed), not published only for the hub to refuse it. Default: unchecked here.
   */
  claims: v.optional(
    list(
      v.object({
        /** The cluster may publish this name and the names below it. */
        suffix: dnsName,
        /** Only objects in these namespaces may; default every namespace. */
        namespaces: v.optional(list(namespaceName, 'namespaces')),
      }),
      'claims',
    ),
  ),
  /** Split horizon: each view is planned and written under its own prefix; default one view "internal" at `prefix`. */
  views: v.optional(viewsSchema),
  /** PTR records for published addresses inside these networks (per view); default none. */
  reverseZones: v.optional(reverseZonesSchema),
  /** Only names inside these domains are published (usually the zones). */
  domainFilter: v.optional(domains),
  excludeDomains: v.optional(domains),
  /** Watch one namespace only; default all. */
  namespace: v.optional(namespaceName),
  /** external-dns's source names; default ["service", "ingress"]. */
  sources: v.optional(sourceKinds),
  /** Routes only through Gateways of this name (external-dns's --gateway-name). */
  gatewayName: v.optional(objectName),
  /** Routes only through Gateways of this namespace (--gateway-namespace). */
  gatewayNamespace: v.optional(namespaceName),
  /** Routes only through Gateways with these labels (--gateway-label-filter, label-selector syntax). */
  gatewayLabelFilter: v.optional(labelSelector),
  /** Routes may attach to ListenerSets (--gateway-listener-sets); default false. */
  gatewayListenerSets: v.optional(v.boolean('must be true or false')),
  /** The hostname annotation (and a Service's internal-hostname) publishes nothing (--ignore-hostname-annotation); default false. */
  ignoreHostnameAnnotation: v.optional(v.boolean('must be true or false')),
  /** traefik-proxy also reads Traefik v2's traefik.containo.us group (--traefik-enable-legacy); default false. */
  traefikEnableLegacy: v.optional(v.boolean('must be true or false')),
  /** traefik-proxy does not read the traefik.io group (--traefik-disable-new); default false. */
  traefikDisableNew: v.optional(v.boolean('must be true or false')),
  /**
   * etcdns extension: Traefik routes without a target annotation take this Service's load-balancer
   * addresses ("NAMESPACE/NAME"; a route's etcdns.io/traefik-service annotation names another).
   */
  traefikService: v.optional(
    text('NAMESPACE/NAME of a Service', (s) =>
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s),
    ),
  ),
  /** openshift-route: only this router's admission in status.ingress[] (--openshift-router-name); default the first. */
  openshiftRouterName: v.optional(objectName),
  /** node: leave out unschedulable Nodes (--exclude-unschedulable); default true, as external-dns. */
  excludeUnschedulable: v.optional(v.boolean('must be true or false')),
  /** node: with ExternalIPs, also the IPv6 InternalIPs (--expose-internal-ipv6); default false. */
  exposeInternalIpv6: v.optional(v.boolean('must be true or false')),
  /** pod: every Pod as "<pod name>.<domain>" at its IP (--pod-source-domain); default none. */
  podSourceDomain: v.optional(dnsName),
  /** pod: only host-network Pods (--ignore-non-host-network-pods); default false, as external-dns v0.22. */
  ignoreNonHostNetworkPods: v.optional(v.boolean('must be true or false')),
  /** Only these record types are published (--managed-record-types); default every type. */
  managedRecordTypes: v.optional(recordTypes),
  /** Only Ingresses of these classes; default all. */
  ingressClasses: v.optional(ingressClasses),
  /** Kubernetes label selector applied to watched resources. */
  labelSelector: v.optional(labelSelector),
  /** Annotation filter in label-selector syntax (external-dns's --annotation-filter). */
  annotationFilter: v.optional(labelSelector),
  /**
   * The prefix of every external-dns annotation read (--annotation-prefix, as external-dns v0.22);
   * default "external-dns.kubernetes.io/".
   */
  annotationPrefix: v.optional(
    text('an annotation prefix such as "external-dns.kubernetes.io/" (a DNS subdomain and "/")', (s) =>
      /^(?=.{2,254}$)[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/$/.test(s),
    ),
  ),
  /**
   * Also read "external-dns.alpha.kubernetes.io/" annotations, the annotationPrefix winning when an
   * object has both (external-dns v0.23's --enable-legacy-annotation-prefix); default true unless
   * annotationPrefix is set.
   */
  enableLegacyAnnotationPrefix: v.optional(v.boolean('must be true or false')),
  /**
   * external-dns's --default-targets: a DNSEndpoint endpoint without targets takes these (IP
   * addresses, or one host name: a CNAME); default none.
   */
  defaultTargets: v.optional(defaultTargets),
  /** --force-default-targets: every published name takes defaultTargets instead of its own targets; default false. */
  forceDefaultTargets: v.optional(v.boolean('must be true or false')),
  /** external-dns's --fqdn-template: names for objects that give none (fqdn/README.md). */
  fqdnTemplate: v.optional(templates('fqdnTemplate')),
  /** --target-template: the targets of the unstructured source's template names. */
  targetTemplate: v.optional(templates('targetTemplate')),
  /** --fqdn-target-template: "host:target" pairs (unstructured source). */
  fqdnTargetTemplate: v.optional(templates('fqdnTargetTemplate')),
  /** --combine-fqdn-annotation: the template's names are added to the object's own; default false. */
  combineFqdnAnnotation: v.optional(v.boolean('must be true or false')),
  /** --unstructured-resource: what the unstructured source reads ("configmaps.v1", "virtualmachineinstances.v1.kubevirt.io"). */
  unstructuredResources: v.optional(unstructuredResources),
  /** Publish ClusterIP Services without internal-hostname; default false. */
  publishClusterIp: v.optional(v.boolean('must be true or false')),
  /** SRV records per named port of every non-headless Service (annotation etcdns.io/srv per Service); default false. */
  srv: v.optional(v.boolean('must be true or false')),
  /** At most this many SRV records per Service (logged and evented when reached); default 64. */
  srvMaxPerService: v.optional(integer(1, 10_000, 'a number of records')),
  /** Default CONTROLLER_CONFIG_DEFAULTS ("sync"). */
  policy: v.optional(policy),
  /** Seconds between full resyncs (a safety net; events drive changes); default CONTROLLER_CONFIG_DEFAULTS (300). */
  resyncSeconds: v.optional(resyncSeconds),
  /** Lease-based leader election, required with more than one replica. */
  leaderElection: v.optional(leaderElectionSchema),
  /** kubeconfig file; default: the in-cluster ServiceAccount in a pod, else ~/.kube/config. */
  kubeconfig: v.optional(path),
  /** Take over the records external-dns's CoreDNS provider wrote for this owner id (migration). */
  adoptExternalDnsOwner: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  /** Milliseconds to gather watch events into one sync; default CONTROLLER_CONFIG_DEFAULTS (5). */
  debounceMs: v.optional(integer(0, 60_000, 'a number of milliseconds')),
  /** Health, metrics and /debug listen address, "host:port". */
  httpListen: v.optional(hostPort, '0.0.0.0:8080'),
  logLevel: v.optional(logLevel),
};

export const controllerConfigSchema = v.pipe(
  v.object(controllerEntries),
  v.forward(
    v.check(
      (c) => c.views === undefined || c.prefix === undefined,
      "not together with views: set each view's prefix there",
    ),
    ['prefix'],
  ),
  v.forward(
    v.check(
      (c) => c.cluster === undefined || (c.prefix === undefined && c.views === undefined),
      'not together with prefix or views: a cluster writes under its own prefix, /skydns-clusters/<cluster>',
    ),
    ['cluster'],
  ),
  v.forward(
    v.check((c) => c.claims === undefined || c.cluster !== undefined, "only with cluster: they are a member cluster's"),
    ['claims'],
  ),
  v.forward(
    v.check(
      (c) => !c.sources?.includes('unstructured') || (c.unstructuredResources?.length ?? 0) > 0,
      'the unstructured source reads only what this names: required with it',
    ),
    ['unstructuredResources'],
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    // Another kind is the unstructured source's, known only once discovery named it (at start-up).
    if (!dataset.typed || dataset.value.sources?.includes('unstructured')) return;
    for (const { keys } of unlistedRuleKinds(dataset.value.views ?? []))
      addIssue({ message: UNKNOWN_RULE_KIND, path: pathTo(dataset.value, keys) });
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const names = dataset.value.views?.map((view) => view.name) ?? [DEFAULT_VIEW.name];
    dataset.value.reverseZones?.forEach((zone, i) =>
      zone.views?.forEach((name, j) => {
        if (names.includes(name)) return;
        addIssue({
          message: `"${name}" is not a configured view (${names.join(', ')})`,
          path: pathTo(dataset.value, ['reverseZones', i, 'views', j]),
        });
      }),
    );
  }),
);

/** As the controller runs with it (listen address parsed). */
export type ControllerConfig = v.InferOutput<typeof controllerConfigSchema>;
/** As written in the config file (rendered by the DnsController construct). */
export type ControllerConfigInput = v.InferInput<typeof controllerConfigSchema>;
