// DnsStack: the whole etcdns deployment from one props object, grouped the way users think
// about it. It validates everything first (one error listing every problem), then composes the
// Namespace, the EtcdCluster, one DnsServer per view, the DnsController and opt-in monitoring.
import { Construct } from 'constructs';
import { problemsOf } from '../config/schema-problems.ts';
import { zoneSchema, zonesSchema } from '../config/zone-config.ts';
import { DnsEndpointCrd } from './controller/dns-endpoint-crd.ts';
import {
  DnssecSigner,
  dnssecProblems,
  signedViewName,
  signedZoneNames,
  signerTransfer,
  type DnssecProps,
} from './dnssec/dnssec-signer.ts';
import { StaticRecords, staticRecordProblems, type StaticRecordProps } from './server/static-records.ts';
import {
  CONTROLLER_DEFAULTS,
  DnsController,
  controllerProblems,
  reverseZoneViewProblems,
  type ControllerProps,
  type OwnershipProps,
  type SourcesProps,
} from './controller/dns-controller.ts';
import { DnsServer, serverProblems, type ServerProps } from './server/dns-server.ts';
import { EtcdCluster, etcdProblems, type EtcdProps } from './etcd/etcd-cluster.ts';
import {
  EtcdRolesJob,
  ROOT_PASSWORD_KEY,
  accessAs,
  etcdRolesProblems,
  etcdUsers,
  type EtcdRolesProps,
  type EtcdUser,
} from './etcd/etcd-roles.ts';
import { clusterEtcdUser, clustersProblems, type ClusterProps } from './etcd/member-clusters.ts';
import { hubConfig, hubMergeProblems, hubReader, mergesClusters, type HubMergeProps } from './server/hub-merge.ts';
import { GrafanaDashboard, dashboardProblems, type DashboardProps } from './monitoring/grafana-dashboard.ts';
import { DEFAULT_IMAGES } from './base/image.ts';
import { NetworkPolicies, networkPolicyProblems, type NetworkPolicyProps } from './network-policies.ts';
import { PrometheusRule, alertsProblems, type AlertsProps } from './monitoring/prometheus-rule.ts';
import { NAMESPACE_DEFAULTS, STACK_NAME, stackContext, StackNamespace, type NamespaceProps } from './stack-base.ts';
import { ServiceMonitor, type ServiceMonitorProps } from './monitoring/service-monitor.ts';
import { orderDefinitionsFirst } from './base/gitops.ts';
import type { StackContext } from './base/stack-context.ts';
import { DURATION, intProblem, k8sName, mapProblems, show } from './base/kubernetes-rules.ts';
import {
  DEFAULT_PREFIX,
  DEFAULT_VIEWS,
  controllerViewConfigs,
  isPlainView,
  resolveViews,
  viewsProblems,
  type ViewProps,
} from './server/views.ts';
import { catalogProblems, zoneTransferProblems, type ZoneProps } from './server/zone-transfer.ts';

export interface ObservabilityProps {
  /**
   * Port of /healthz, /readyz and /metrics on the DNS server and the controller.
   * @default 8080
   */
  readonly metricsPort?: number;
  /**
   * prometheus.io/* scrape annotations on the pods.
   * @default true
   */
  readonly prometheusAnnotations?: boolean;
  /**
   * Prometheus Operator ServiceMonitor (needs its CRD).
   * @default - off
   */
  readonly serviceMonitor?: ServiceMonitorProps;
  /**
   * Prometheus Operator PrometheusRule with etcdns's alerts (needs its CRD and `serviceMonitor`);
   * runbook: docs/operations/alerts.md.
   * @default - off
   */
  readonly alerts?: AlertsProps;
  /**
   * Grafana dashboard in a ConfigMap for Grafana's dashboard sidecar (needs `serviceMonitor`); the
   * same JSON ships in the package as dashboards/etcdns.json.
   * @default - off
   */
  readonly dashboard?: DashboardProps;
}

export interface GitOpsProps {
  /**
   * Argo CD sync waves: Namespace, etcd, workloads, DNS Service last.
   * @default false
   */
  readonly syncWaves?: boolean;
}

export interface DnsStackProps {
  /**
   * Prefix of every object name and the app.kubernetes.io/name label. The ClusterRole and ClusterRoleBinding
   * carry it too: use one name per cluster.
   * @default "etcdns"
   */
  readonly name?: string;
  /**
   * The namespace of the stack.
   * @default - namespace "etcdns", created, protected from pruning
   */
  readonly namespace?: NamespaceProps;
  /**
   * DNS domain of the cluster (the kubelet's clusterDomain): etcd's certificates name the members
   * by their full names under it.
   * @default "cluster.local"
   */
  readonly clusterDomain?: string;
  /**
   * Zones the DNS server is authoritative for and the controller publishes into (at least one),
   * each with its own zone-transfer settings if any.
   */
  readonly zones: ZoneProps[];
  /**
   * Views (split horizon): one DNS server and Service each, one etcd prefix each.
   * @default - one view "internal" on "/skydns" answering every zone
   */
  readonly views?: ViewProps[];
  /**
   * What the controller publishes.
   * @default - see SourcesProps
   */
  readonly sources?: SourcesProps;
  /**
   * Static records, each synthesized into a DNSEndpoint object (needs "crd" in `sources.kinds`).
   * @default - none
   */
  readonly records?: StaticRecordProps[];
  /**
   * Whose records the controller may change.
   * @default - see OwnershipProps
   */
  readonly ownership?: OwnershipProps;
  /**
   * The etcd cluster that stores the records.
   * @default - see EtcdProps (3 members)
   */
  readonly etcd?: EtcdProps;
  /**
   * The DNS server Deployment(s) and their Service(s).
   * @default - see ServerProps (2 replicas, mixed-protocol LoadBalancer)
   */
  readonly server?: ServerProps;
  /**
   * The controller Deployment.
   * @default - see ControllerProps (1 replica)
   */
  readonly controller?: ControllerProps;
  /**
   * Health, readiness and metrics endpoints; Prometheus scraping.
   * @default - see ObservabilityProps
   */
  readonly observability?: ObservabilityProps;
  /**
   * Argo CD and Flux specifics.
   * @default - see GitOpsProps
   */
  readonly gitops?: GitOpsProps;
  /**
   * NetworkPolicies admitting only the traffic each pod needs (opt out with `enabled: false`).
   * @default - on, see NetworkPolicyProps
   */
  readonly networkPolicy?: NetworkPolicyProps;
  /**
   * One etcd user per component, each allowed only its own key prefixes (the DNS servers read
   * their view's, the controller reads and writes every view's), and the Job creating them.
   * @default - off: the components share `etcd.auth`, if any
   */
  readonly etcdRoles?: EtcdRolesProps;
  /**
   * A hub: the member clusters whose spokes (SpokeStack) write into this stack's etcd over TLS,
   * each as its own etcd user allowed only its own prefix, "/skydns-clusters/<name>"
   * (docs/multi-cluster.md). Needs `etcdRoles` and `etcd.tls`.
   * @default - none
   */
  readonly clusters?: ClusterProps[];
  /**
   * A hub's merge of its `clusters`: the grace period and a policy per zone. The servers of every
   * internal view serving a zone that holds a cluster's suffix merge the clusters' records into
   * their answers (the server config's `hub`) and read "/skydns-clusters/" (with `etcdRoles`,
   * their etcd user may). Needs `clusters`.
   * @default - with `clusters`: grace 10 s, every zone merges by "all"
   */
  readonly hub?: HubMergeProps;
  /**
   * DNSSEC: Knot DNS signs one view's zones and serves them to the outside (docs/dnssec.md);
   * that view's server allows it zone transfers. etcdns itself stays unsigned.
   * @default - off
   */
  readonly dnssec?: DnssecProps;
}

export const STACK_DEFAULTS = {
  name: STACK_NAME,
  namespace: NAMESPACE_DEFAULTS.name,
  metricsPort: 8080,
  namespaceLabels: NAMESPACE_DEFAULTS.labels,
} as const;

export class DnsStack extends Construct {
  readonly etcd: EtcdCluster;
  readonly servers: DnsServer[];
  readonly controller: DnsController;
  readonly context: StackContext;
  /** Knot signing a view's zones, with `dnssec`. */
  readonly signer?: DnssecSigner;

  constructor(scope: Construct, id: string, props: DnsStackProps) {
    super(scope, id);
    const stack = stackContext(this, props, stackProblems(props));
    this.context = stack;
    const observability = props.observability ?? {};
    const httpPort = observability.metricsPort ?? STACK_DEFAULTS.metricsPort;
    const prometheusAnnotations = observability.prometheusAnnotations ?? true;
    const monitor = observability.serviceMonitor?.enabled === true;
    const version = (props.server?.image ?? DEFAULT_IMAGES.etcdns).tag;

    new StackNamespace(this, 'namespace', { stack, version, namespace: props.namespace });

    // With etcdRoles each component logs in as its own user: the controller first, then one per view.
    const roles = props.etcdRoles;
    this.etcd = new EtcdCluster(this, 'etcd', {
      ...props.etcd,
      stack,
      clusterDomain: props.clusterDomain,
      metricsService: monitor,
      // etcd-member runs from the DNS server's image, so one image setting (and one overlay) moves both.
      ...(props.server?.image ? { helperImage: props.server.image } : {}),
      ...(props.server?.imagePullPolicy ? { helperImagePullPolicy: props.server.imagePullPolicy } : {}),
      ...(roles ? { rootPassword: { name: roles.passwordSecret, key: ROOT_PASSWORD_KEY } } : {}),
    });
    const views = resolveViews(props.views, props.zones, props.server?.service, props.server?.transfer);
    const dnssec = props.dnssec;
    const signed = dnssec
      ? views.find(
          (v) =>
            v.name ===
            signedViewName(
              dnssec,
              views.map((x) => x.name),
            ),
        )!
      : undefined;
    if (dnssec && signed) signed.transfer = signerTransfer(signed.transfer, dnssec);
    const [controllerUser, ...ownServerUsers] = etcdUsers(stack.name, views, props.server?.acme !== undefined);
    // A hub: the views whose servers merge the member clusters, each reading their prefix too.
    const clusters = props.clusters ?? [];
    const merges = views.map(
      (view) => clusters.length > 0 && mergesClusters({ ...view, zones: view.zones.map((z) => z.name) }, clusters),
    );
    const serverUsers = ownServerUsers.map((user, i) => (merges[i] ? hubReader(user) : user));
    const etcdAs = (user: EtcdUser) =>
      roles ? accessAs(this.etcd.clientAccess, user, roles.passwordSecret) : this.etcd.clientAccess;
    if (roles && roles.job !== false) {
      new EtcdRolesJob(this, 'etcd-roles', {
        stack,
        etcd: this.etcd.clientAccess,
        users: [controllerUser!, ...serverUsers, ...clusters.map((c) => clusterEtcdUser(c.name))],
        passwordSecret: roles.passwordSecret,
        enableAuth: roles.enableAuth ?? true,
        ...(props.server?.image ? { image: props.server.image } : {}),
        ...(props.server?.imagePullPolicy ? { imagePullPolicy: props.server.imagePullPolicy } : {}),
      });
    }
    this.servers = views.map(
      (view, i) =>
        new DnsServer(this, `server-${view.name}`, {
          ...props.server,
          stack,
          view: view.name,
          prefix: view.prefix,
          exposure: view.exposure,
          zones: view.zones,
          service: view.service,
          transfer: view.transfer,
          allowQueryFrom: view.allowQueryFrom,
          ...(view.answerOrder ? { answerOrder: { ...props.server?.answerOrder, ...view.answerOrder } } : {}),
          ...(view.catalog ? { catalog: view.catalog } : {}),
          ...(merges[i]
            ? {
                hub: hubConfig(
                  clusters,
                  props.hub,
                  view.zones.map((z) => z.name),
                ),
              }
            : {}),
          etcd: etcdAs(serverUsers[i]!),
          httpPort,
          prometheusAnnotations,
          metricsService: monitor,
        }),
    );
    // One plain view: the controller writes its prefix as it always has; otherwise every view.
    this.controller = new DnsController(this, 'controller', {
      ...props.controller,
      stack,
      etcd: etcdAs(controllerUser!),
      prefix: views[0]!.prefix,
      ...(isPlainView(views, props.zones) ? {} : { views: controllerViewConfigs(views) }),
      domains: props.zones.map((z) => z.name),
      ...(props.sources ? { sources: props.sources } : {}),
      ...(props.ownership ? { ownership: props.ownership } : {}),
      httpPort,
      prometheusAnnotations,
      metricsService: monitor,
    });
    if (dnssec && signed)
      this.signer = new DnssecSigner(this, 'dnssec-signer', {
        ...dnssec,
        stack,
        signedZones: signedZoneNames(
          dnssec,
          signed.zones.map((z) => z.name),
        ),
        primaryService: this.servers[views.indexOf(signed)]!.serviceNames[0]!,
      });
    if (props.networkPolicy?.enabled !== false) {
      new NetworkPolicies(this, 'network-policies', {
        ...props.networkPolicy,
        stack,
        version,
        views: views.map((v) => v.name),
        transferFrom: Object.fromEntries(views.map((v, i) => [v.name, this.servers[i]!.transferCidrs])),
        serverPeers: Object.fromEntries(views.map((v, i) => [v.name, this.servers[i]!.peers])),
        rolesJob: roles !== undefined && roles.job !== false,
        ...(props.etcd?.spokeService ? { etcdClientCidrs: clusters.flatMap((c) => c.etcdClientCidrs ?? []) } : {}),
        ...(signed ? { signerView: signed.name } : {}),
      });
    }
    if (props.sources?.dnsEndpointCrd) new DnsEndpointCrd(this, 'dns-endpoint-crd', { stack, version });
    if (props.records && props.records.length > 0)
      new StaticRecords(this, 'records', { stack, version, records: props.records });
    if (monitor && observability.serviceMonitor) {
      new ServiceMonitor(this, 'service-monitor', { ...observability.serviceMonitor, stack, version });
    }
    if (observability.alerts?.enabled) {
      new PrometheusRule(this, 'prometheus-rule', {
        stack,
        version,
        etcdReplicas: this.etcd.replicas,
        views: views.map((v) => v.name),
        resyncSeconds: this.controller.config.resyncSeconds!,
        alerts: observability.alerts,
      });
    }
    if (observability.dashboard?.enabled) {
      new GrafanaDashboard(this, 'dashboard', { stack, version, dashboard: observability.dashboard });
    }
    orderDefinitionsFirst(this, stack);
  }
}

export function stackProblems(props: DnsStackProps): string[] {
  const o = props.observability;
  const viewNames = Array.isArray(props.views ?? DEFAULT_VIEWS)
    ? (props.views ?? DEFAULT_VIEWS).map((v) => v?.name)
    : [];
  const problems = [
    ...k8sName(props.name, 'name', 'label', 30),
    ...k8sName(props.namespace?.name, 'namespace.name', 'label', 63),
    ...k8sName(props.clusterDomain, 'clusterDomain', 'subdomain', 253),
    ...mapProblems(props.namespace?.labels, 'namespace.labels', true),
    ...problemsOf(zonesSchema(zoneSchema), props.zones, 'zones'),
    ...zoneTransferProblems(props.zones, 'zones'),
    ...viewsProblems(props.views, props.zones, 'views'),
    ...etcdProblems(props.etcd ?? {}, 'etcd'),
    ...serverProblems(props.server ?? {}, 'server'),
    ...controllerProblems({ ...props.controller, sources: props.sources, ownership: props.ownership }, 'controller'),
    ...reverseZoneViewProblems(props.sources, viewNames),
    ...staticRecordProblems(props.records, props.name ?? STACK_DEFAULTS.name, 'records'),
    ...(props.records?.length && !(props.sources?.kinds ?? CONTROLLER_DEFAULTS.kinds).includes('crd')
      ? ['records: need "crd" in sources.kinds, or the controller does not publish them']
      : []),
    ...intProblem(o?.metricsPort, 'observability.metricsPort', 1024, 65535, 'an unprivileged port'),
    ...networkPolicyProblems(props.networkPolicy, viewNames, 'networkPolicy'),
    ...etcdRolesProblems(
      props.etcdRoles,
      { etcdAuth: props.etcd?.auth !== undefined, views: viewNames, name: props.name ?? STACK_DEFAULTS.name },
      'etcdRoles',
    ),
    ...hubProblems(props),
    ...signerProblems(props),
  ];
  // Each view's server with its catalog: the view's own, else the server's.
  if (Array.isArray(props.zones) && Array.isArray(props.views ?? DEFAULT_VIEWS))
    (props.views ?? DEFAULT_VIEWS).forEach((view, i) => {
      const own = view?.catalog !== undefined;
      for (const problem of catalogProblems(
        own ? view.catalog : props.server?.catalog,
        view?.transfer ?? props.server?.transfer,
        props.zones,
        own ? `views[${i}].catalog` : 'server.catalog',
      ))
        if (!problems.includes(problem)) problems.push(problem);
    });
  if (o?.metricsPort === 5353)
    problems.push('observability.metricsPort: must not be 5353, the DNS port inside the pod');
  if (o?.serviceMonitor?.interval !== undefined && !DURATION.test(o.serviceMonitor.interval))
    problems.push(
      `observability.serviceMonitor.interval: must be a duration such as "30s" or "1m" (got ${show(o.serviceMonitor.interval)})`,
    );
  problems.push(...mapProblems(o?.serviceMonitor?.labels, 'observability.serviceMonitor.labels', true));
  problems.push(...alertsProblems(o?.alerts, o?.serviceMonitor?.enabled === true, 'observability.alerts'));
  problems.push(...dashboardProblems(o?.dashboard, o?.serviceMonitor?.enabled === true, 'observability.dashboard'));
  return problems;
}

/** The signer's props against the views (each with its zones) and the stack's zones. */
function signerProblems(props: DnsStackProps): string[] {
  if (props.dnssec === undefined || !Array.isArray(props.zones)) return [];
  const views = Array.isArray(props.views ?? DEFAULT_VIEWS) ? (props.views ?? DEFAULT_VIEWS) : [];
  const zoneNames = props.zones.map((z) => z?.name).filter((n) => typeof n === 'string');
  return dnssecProblems(
    props.dnssec,
    views.map((v) => ({ name: v?.name, zones: Array.isArray(v?.zones) ? v.zones : zoneNames })),
    props.zones,
    'dnssec',
  );
}

/** The member clusters, against the stack's zones, views and own etcd users; then their merge. */
function hubProblems(props: DnsStackProps): string[] {
  if (props.clusters === undefined)
    return [
      ...(props.hub === undefined ? [] : ['hub: needs clusters (the member clusters it merges)']),
      ...(props.etcd?.spokeService === undefined
        ? []
        : ['etcd.spokeService: needs clusters (the member clusters whose controllers reach etcd through it)']),
    ];
  const views = Array.isArray(props.views ?? DEFAULT_VIEWS) ? (props.views ?? DEFAULT_VIEWS) : [];
  const zones = Array.isArray(props.zones) ? props.zones.map((z) => z?.name).filter((n) => typeof n === 'string') : [];
  const stackUsers = etcdUsers(
    props.name ?? STACK_DEFAULTS.name,
    views.map((v) => ({ name: v?.name, prefix: v?.prefix ?? DEFAULT_PREFIX })),
  ).map((u) => u.name);
  const problems = clustersProblems(
    props.clusters,
    {
      zones,
      viewPrefixes: views.map((v) => (typeof v?.prefix === 'string' ? v.prefix : DEFAULT_PREFIX)),
      users: stackUsers,
      etcdRoles: props.etcdRoles !== undefined,
      etcdTls: props.etcd?.tls !== undefined,
      spokePolicy: props.etcd?.spokeService !== undefined && props.networkPolicy?.enabled !== false,
    },
    'clusters',
  );
  if (problems.length > 0) return problems;
  return hubMergeProblems(
    props.clusters,
    props.hub,
    views.map((v) => ({ exposure: v?.exposure, zones: Array.isArray(v?.zones) ? v.zones : zones })),
  );
}
