// DnsServer: the authoritative DNS server of one view. A Deployment of `etcdns server` reading
// its ServerConfig from a ConfigMap (content hash on the pod template), listening on the
// unprivileged port 5353 inside the pod, exposed on 53 by DnsService; PDB and optional HPA. The
// Secrets holding zone-transfer keys are mounted read-only (zone-transfer.ts).
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import {
  DRAIN_DEFAULTS,
  serverEntries,
  type ForwardInput,
  type AnswerOrderInput,
  type IdentityInput,
  type RateLimitInput,
  type ServerConfigInput,
} from '../../config/server-config.ts';
import * as v from 'valibot';
import type { CatalogInput } from '../../config/catalog-config.ts';
import type { HubConfigInput } from '../../config/hub-config.ts';
import { keyPrefix, upstream, type LogLevel } from '../../config/field-rules.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import type { Exposure } from '../../config/view-config.ts';
import { zoneSchema, zonesSchema } from '../../config/zone-config.ts';
import { acmeProblems, acmeUpdateConfig, type AcmeProps } from './acme-updates.ts';
import {
  DNS_PORT_NAMES,
  DnsService,
  dnsServiceNames,
  dnsServiceProblems,
  mayUseIpv6,
  type DnsServiceProps,
} from './dns-service.ts';
import { etcdClientMounts, type EtcdClientAccess } from '../etcd/etcd-client-access.ts';
import { KUBE_API_ACCESS_MOUNT, KUBE_API_ACCESS_VOLUME } from '../base/kube-api-access.ts';
import { COMPONENT } from '../base/labels.ts';
import { RuntimeComponent, type RuntimeComponentProps } from '../base/runtime-component.ts';
import { ServerEndpointAccess } from './server-rbac.ts';
import { VIEW_SERVICE_LABEL } from '../base/metrics-service.ts';
import { assertNoProblems, intProblem, settingProblems } from '../base/kubernetes-rules.ts';
import {
  NONROOT_IDENTITY,
  podSecurityContext,
  replicaSpreadProblems,
  scheduling,
  sizeProblems,
  sortedEnv,
  spreadReplicas,
  type ReplicaSpreadProps,
  type TmpVolumeProps,
  type WorkloadProps,
  workloadProblems,
} from '../base/workload.ts';
import {
  transferFiles,
  transferProblems,
  zoneTransferProblems,
  type TransferProps,
  type ZoneProps,
} from './zone-transfer.ts';

export interface ServerProps extends WorkloadProps, TmpVolumeProps, ReplicaSpreadProps {
  /**
   * Pods.
   * @default 2 (ignored when autoscaling is on: the HPA owns the count)
   */
  readonly replicas?: number;
  /**
   * HorizontalPodAutoscaler on CPU.
   * @default - off
   */
  readonly autoscaling?: {
    /**
     * Fewest pods the autoscaler keeps.
     * @default - replicas
     */
    readonly minReplicas?: number;
    /** Required with autoscaling. */
    readonly maxReplicas: number;
    /**
     * Target average CPU utilization in percent of requests.
     * @default 70
     */
    readonly targetCpuUtilization?: number;
  };
  /**
   * Service settings shared by every view (a view may override them).
   * @default - see DnsServiceProps
   */
  readonly service?: DnsServiceProps;
  /**
   * "own" or "subtree" (CoreDNS's union of the subtree).
   * @default "own"
   */
  readonly lookup?: 'own' | 'subtree';
  /**
   * Forwarding for listed client networks.
   * @default - off (never an open resolver)
   */
  readonly forward?: ForwardInput;
  /**
   * Worker processes per pod sharing the socket.
   * @default 1
   */
  readonly workers?: number;
  /**
   * Log level of the DNS server.
   * @default "info"
   */
  readonly logLevel?: LogLevel;
  /**
   * After SIGTERM a server pod answers on (not ready) until its Services' EndpointSlices list it
   * neither as ready nor as serving, `drainSeconds` more, then until queries stop arriving, at
   * most this many seconds in all; the pod's grace period is this (or `drainSeconds`, the larger)
   * plus 30.
   * @default 30
   */
  readonly drainMaxSeconds?: number;
  /**
   * Seconds a terminating pod answers on once its EndpointSlices list it neither as ready nor as
   * serving (or after SIGTERM, when it cannot read them: the API server unreachable or refusing):
   * kube-proxy and load balancers take a moment to stop sending it queries. 0: it closes at once
   * then.
   * @default 5
   */
  readonly drainSeconds?: number;
  /**
   * Open DNS-over-TCP connections per server process at most (per worker with `workers`); at the
   * bound a new connection closes the least recently active idle ones (RFC 7766 6.2.3), and over
   * half of it idle connections time out sooner.
   * @default 4096
   */
  readonly maxTcpConnections?: number;
  /**
   * Keep the last-known records in a file on an emptyDir volume and serve them (stale, and
   * /readyz says so) when the server restarts while etcd is unreachable, instead of SERVFAIL.
   * An emptyDir outlives container restarts, not the pod. false: off.
   * @default true
   */
  readonly snapshot?: boolean;
  /**
   * Size limit of the snapshot's emptyDir (the file holds every record of the view); a pod
   * writing more is evicted. Raise `resources.limits.ephemeralStorage` with it.
   * @default "128Mi"
   */
  readonly snapshotSizeLimit?: string;
  /**
   * Response rate limiting of UDP answers per client prefix (BIND/Knot RRL): responses per
   * second per answer, window, slip, prefix lengths. `{ responsesPerSecond: 0 }` turns it off.
   * @default - on for exposure "external" (20/s, window 15 s, slip 2, /24, /56), off for internal
   */
  readonly rateLimit?: RateLimitInput;
  /**
   * Log one query in N as a JSON line (client, question, rcode, size); 0: off.
   * @default 0
   */
  readonly queryLogEvery?: number;
  /**
   * How a replica says who it is, so an operator knows which one answered: its identifier in
   * the NSID option (RFC 5001) to queries that ask (`dig +nsid`) and as CHAOS TXT `id.server.`
   * and `hostname.bind.`; `enabled: false` turns both off (REFUSED). `version: true` also answers
   * CHAOS TXT `version.bind.` and `version.server.` with the etcdns version (REFUSED when off).
   * @default - the identifier is the pod's name (its host name), enabled; version off
   */
  readonly identity?: IdentityInput;
  /**
   * The order of A and AAAA records in answers (CoreDNS's `loadbalance`): `rotation: 'round-robin'`
   * starts each answer one record further; `prefer` (CIDRs, at most 30) puts first the records in
   * those of its networks that hold the client, the first listed first. A view's own
   * `answerOrder` replaces the fields it sets. See docs/answer-order.md.
   * @default - off: records in the stored order for every client
   */
  readonly answerOrder?: AnswerOrderInput;
  /**
   * Zone transfers out (AXFR/IXFR over TCP, NOTIFY, TSIG) to secondaries such as the corporate DNS
   * servers, for every zone without its own `transfer`; a view may replace it with its own.
   * @default - off: transfers are REFUSED
   */
  readonly transfer?: TransferProps;
  /**
   * A catalog zone (RFC 9432, version 2), e.g. `{ zone: 'catalog.etcdns.invalid.' }`, of the zones
   * transferred with `transfer` (a zone with its own `transfer` is left out), transferred and
   * NOTIFYed with it: a BIND (`catalog-zones`) or Knot (`catalog-role: interpret`) secondary given
   * the catalog alone adds and removes the zones by itself. Needs `transfer`; a view's own
   * `catalog` replaces it for that view. See docs/catalog-zones.md.
   * @default - no catalog
   */
  readonly catalog?: CatalogInput;
  /**
   * DNS UPDATE (RFC 2136) for ACME DNS-01 challenges, e.g. cert-manager's `rfc2136` solver: TSIG
   * keys from a Secret, each allowed only TXT records at `_acme-challenge` names below its
   * suffixes, on an etcd lease; every view's servers take updates into their view (their etcd
   * user may then write the view's prefix). See docs/acme.md.
   * @default - off: updates are answered NOTIMP
   */
  readonly acme?: AcmeProps;
}

/** An address a DNS server sends to: a forwarder (UDP and TCP) or a secondary it NOTIFYs (UDP). */
export interface DnsPeer {
  host: string;
  port: number;
  protocols: ('UDP' | 'TCP')[];
}

/** Where the record snapshot lives in the server container (an emptyDir). */
const SNAPSHOT_MOUNT: k8s.VolumeMount = { name: 'snapshot', mountPath: '/var/lib/etcdns' };

export interface DnsServerProps extends ServerProps, RuntimeComponentProps {
  /** The view this server answers; part of every object name. */
  readonly view: string;
  /** etcd prefix of the view. */
  readonly prefix: string;
  /**
   * "external": authoritative only, `forward` is not rendered.
   * @default "internal"
   */
  readonly exposure?: Exposure;
  /** Zones the view answers, each with its own `transfer` if any. */
  readonly zones: ZoneProps[];
  /**
   * The view's `allowQueryFrom`: only these client CIDRs are answered.
   * @default - every client
   */
  readonly allowQueryFrom?: string[] | undefined;
  /** Where etcd is: EtcdCluster.clientAccess. */
  readonly etcd: EtcdClientAccess;
  /**
   * A hub's view: the member clusters it merges (server/hub-merge.ts).
   * @default - none
   */
  readonly hub?: HubConfigInput;
}

export const SERVER_DEFAULTS = {
  replicas: 2,
  targetCpuUtilization: 70,
  dnsPort: 5353,
  drainSeconds: 5,
  snapshotSizeLimit: '128Mi',
  // Ephemeral storage: the logs (the kubelet keeps up to 50Mi), /tmp and the snapshot.
  resources: {
    requests: { cpu: '100m', memory: '128Mi', ephemeralStorage: '64Mi' },
    limits: { memory: '512Mi', ephemeralStorage: '512Mi' },
  },
  /** The numeric user of the Dockerfile's image; fsGroup makes the 0440 Secret files readable to it. */
  identity: NONROOT_IDENTITY,
} as const;

export class DnsServer extends RuntimeComponent {
  /** Names of the Services exposing port 53. */
  readonly serviceNames: string[];
  /** The config file it renders into the ConfigMap. */
  readonly config: ServerConfigInput;
  /** The networks allowed to transfer some zone of it (for the NetworkPolicy), sorted. */
  readonly transferCidrs: string[];
  /** Where it sends queries (forwarders) and NOTIFYs (secondaries), for the egress NetworkPolicy. */
  readonly peers: DnsPeer[];

  constructor(scope: Construct, id: string, props: DnsServerProps) {
    super(scope, id, {
      ...props,
      name: `${props.stack.name}-server-${props.view}`,
      component: COMPONENT.server(props.view),
    });
    assertNoProblems([
      ...serverProblems(props, 'server'),
      ...problemsOf(zonesSchema(zoneSchema), props.zones, 'zones'),
      ...zoneTransferProblems(props.zones, 'zones'),
      ...settingProblems(keyPrefix, props.prefix, 'prefix'),
      ...acmeProblems(props.acme, props.zones, 'server.acme'),
    ]);
    const { stack } = props;
    const { name, component, image, selector } = this;

    const etcd = etcdClientMounts(props.etcd);
    const dualStack = mayUseIpv6(props.service);
    const snapshot = props.snapshot ?? true;
    const transfer = transferFiles(
      props.transfer,
      props.zones,
      props.catalog !== undefined,
      props.acme ? [props.acme.keySecret] : [],
    );
    this.transferCidrs = transfer.cidrs;
    const address = (s: string) => v.parse(upstream, s);
    this.peers = [
      // An external view never forwards (its config has no forward).
      ...(props.exposure !== 'external' && props.forward
        ? props.forward.upstreams.map((u) => ({ ...address(u), protocols: ['UDP', 'TCP'] as ('UDP' | 'TCP')[] }))
        : []),
      // NOTIFY goes over UDP (zone-notifier.ts).
      ...transfer.notify.map((n) => ({ ...address(n), protocols: ['UDP'] as ('UDP' | 'TCP')[] })),
    ];
    const drainSeconds = props.drainSeconds ?? SERVER_DEFAULTS.drainSeconds;
    const drainMaxSeconds = props.drainMaxSeconds ?? DRAIN_DEFAULTS.maxSeconds;
    this.config = {
      etcd: etcd.connection,
      prefix: props.prefix,
      zones: transfer.zones,
      listen: `${dualStack ? '[::]' : '0.0.0.0'}:${SERVER_DEFAULTS.dnsPort}`,
      httpListen: `${dualStack ? '[::]' : '0.0.0.0'}:${props.httpPort}`,
      lookup: props.lookup ?? 'own',
      // An external view is never a resolver; internal views forward for the listed clients.
      ...(props.exposure === 'external'
        ? { exposure: 'external' as const }
        : props.forward
          ? { forward: props.forward }
          : {}),
      workers: props.workers ?? 1,
      logLevel: props.logLevel ?? 'info',
      ...(snapshot ? { snapshotFile: `${SNAPSHOT_MOUNT.mountPath}/records.snapshot` } : {}),
      ...(props.rateLimit ? { rateLimit: props.rateLimit } : {}),
      ...(props.queryLogEvery ? { queryLogEvery: props.queryLogEvery } : {}),
      ...(props.identity ? { identity: props.identity } : {}),
      ...(props.allowQueryFrom ? { allowQueryFrom: props.allowQueryFrom } : {}),
      ...(props.answerOrder ? { answerOrder: props.answerOrder } : {}),
      ...(props.maxTcpConnections ? { maxTcpConnections: props.maxTcpConnections } : {}),
      ...(transfer.transfer ? { transfer: transfer.transfer } : {}),
      ...(props.catalog ? { catalog: props.catalog } : {}),
      ...(props.acme ? { update: acmeUpdateConfig(props.acme) } : {}),
      ...(props.hub ? { hub: props.hub } : {}),
      // The pod's address and namespace come from the downward API (ETCDNS_POD_IP, ETCDNS_POD_NAMESPACE).
      drain: {
        services: dnsServiceNames(name, props.service?.protocols),
        maxSeconds: drainMaxSeconds,
        seconds: drainSeconds,
      },
    };
    const configText = this.configMap(this.config);

    const access = new ServerEndpointAccess(this, 'endpoint-access', {
      metadata: this.meta(this.name),
      namespace: stack.namespace,
    });
    // The servers scale (an HPA may own the count): spread and budgeted whatever the replicas.
    const affinity = spreadReplicas(this, props, this.meta(this.name), selector);
    const spec: k8s.DeploymentSpec = {
      ...(props.autoscaling ? {} : { replicas: props.replicas ?? SERVER_DEFAULTS.replicas }),
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector },
      // Never fewer ready servers than asked for during a rollout.
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: k8s.IntOrString.fromNumber(1), maxUnavailable: k8s.IntOrString.fromNumber(0) },
      },
      template: {
        metadata: this.podMetadata(configText),
        spec: {
          ...scheduling(props),
          ...(affinity ? { affinity } : {}),
          serviceAccountName: access.serviceAccountName,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext(props, SERVER_DEFAULTS.identity),
          // The grace period includes the drain: after it the server still has Kubernetes's default 30 s.
          terminationGracePeriodSeconds: Math.max(drainMaxSeconds, drainSeconds) + 30,
          containers: [
            this.runtimeContainer({
              command: 'server',
              env: sortedEnv({
                ETCDNS_POD_IP: { fieldPath: 'status.podIP' },
                ETCDNS_POD_NAMESPACE: { fieldPath: 'metadata.namespace' },
              }),
              ports: [
                { name: DNS_PORT_NAMES.tcp, containerPort: SERVER_DEFAULTS.dnsPort, protocol: 'TCP' },
                { name: DNS_PORT_NAMES.udp, containerPort: SERVER_DEFAULTS.dnsPort, protocol: 'UDP' },
              ],
              readinessFailureThreshold: 1,
              resources: SERVER_DEFAULTS.resources,
              mounts: [
                KUBE_API_ACCESS_MOUNT,
                ...etcd.mounts,
                ...(snapshot ? [SNAPSHOT_MOUNT] : []),
                ...transfer.mounts,
              ],
            }),
          ],
          volumes: this.runtimeVolumes([
            KUBE_API_ACCESS_VOLUME,
            ...etcd.volumes,
            ...(snapshot
              ? [
                  {
                    name: SNAPSHOT_MOUNT.name,
                    emptyDir: {
                      sizeLimit: k8s.Quantity.fromString(props.snapshotSizeLimit ?? SERVER_DEFAULTS.snapshotSizeLimit),
                    },
                  },
                ]
              : []),
            ...transfer.volumes,
          ]),
        },
      },
    };
    new k8s.KubeDeployment(this, 'deployment', { metadata: this.meta(this.name), spec });
    if (props.autoscaling) {
      const { minReplicas, maxReplicas, targetCpuUtilization } = props.autoscaling;
      new k8s.KubeHorizontalPodAutoscalerV2(this, 'hpa', {
        metadata: this.meta(this.name),
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          minReplicas: minReplicas ?? props.replicas ?? SERVER_DEFAULTS.replicas,
          maxReplicas,
          metrics: [
            {
              type: 'Resource',
              resource: {
                name: 'cpu',
                target: {
                  type: 'Utilization',
                  averageUtilization: targetCpuUtilization ?? SERVER_DEFAULTS.targetCpuUtilization,
                },
              },
            },
          ],
        },
      });
    }

    const service = new DnsService(this, 'service', {
      ...props.service,
      stack,
      name,
      component,
      version: image.tag,
      selector,
      labels: props.labels,
    });
    this.serviceNames = service.serviceNames;
    this.addMetricsService({ ...props.labels, [VIEW_SERVICE_LABEL]: props.view });
  }
}

export function serverProblems(p: ServerProps, path: string): string[] {
  const problems = [
    ...workloadProblems(p, path),
    ...intProblem(p.replicas, `${path}.replicas`, 1, 100),
    ...replicaSpreadProblems(p, path),
    ...settingProblems(serverEntries.lookup, p.lookup, `${path}.lookup`),
    ...settingProblems(serverEntries.logLevel, p.logLevel, `${path}.logLevel`),
    ...settingProblems(serverEntries.workers, p.workers, `${path}.workers`),
    ...settingProblems(serverEntries.forward, p.forward, `${path}.forward`),
    ...settingProblems(serverEntries.rateLimit, p.rateLimit, `${path}.rateLimit`),
    ...settingProblems(serverEntries.queryLogEvery, p.queryLogEvery, `${path}.queryLogEvery`),
    ...settingProblems(serverEntries.identity, p.identity, `${path}.identity`),
    ...settingProblems(serverEntries.answerOrder, p.answerOrder, `${path}.answerOrder`),
    ...settingProblems(serverEntries.maxTcpConnections, p.maxTcpConnections, `${path}.maxTcpConnections`),
    ...transferProblems(p.transfer, `${path}.transfer`),
    ...settingProblems(serverEntries.catalog, p.catalog, `${path}.catalog`),
    ...intProblem(p.drainSeconds, `${path}.drainSeconds`, 0, 120, 'a number of seconds'),
    ...intProblem(p.drainMaxSeconds, `${path}.drainMaxSeconds`, 1, 600, 'a number of seconds'),
    ...sizeProblems(p.tmpSizeLimit, `${path}.tmpSizeLimit`),
    ...sizeProblems(p.snapshotSizeLimit, `${path}.snapshotSizeLimit`),
    ...dnsServiceProblems(p.service, `${path}.service`),
  ];
  const hpa = p.autoscaling;
  if (hpa) {
    const min = hpa.minReplicas ?? p.replicas ?? 1;
    problems.push(
      ...intProblem(hpa.minReplicas, `${path}.autoscaling.minReplicas`, 1, 100),
      ...intProblem(hpa.maxReplicas, `${path}.autoscaling.maxReplicas`, 1, 100),
      ...intProblem(hpa.targetCpuUtilization, `${path}.autoscaling.targetCpuUtilization`, 1, 100, 'a percentage'),
    );
    if (typeof hpa.maxReplicas === 'number' && hpa.maxReplicas < min)
      problems.push(`${path}.autoscaling.maxReplicas: must be at least minReplicas (${min}) (got ${hpa.maxReplicas})`);
  }
  return problems;
}
