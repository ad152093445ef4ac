// EtcdCluster: the record store, an N-member etcd StatefulSet built on the low-level API objects
// (cdk8s-plus's StatefulSet has no volume claim templates and starts members one by one).
// Members bootstrap together (Parallel) and find each other through a headless peer Service that
// publishes not-ready addresses; other constructs consume `clientAccess`, never hand-wired URLs.
// Every address is namespace-relative (resolved through the pod's DNS search path), so a kustomize
// `namespace:` overlay or Flux's targetNamespace moves the stack without breaking it.
import type { Construct } from 'constructs';
import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import { EtcdCertificates, type CertManagerProps } from './etcd-certificates.ts';
import {
  EtcdSpokeService,
  spokeServiceNames,
  spokeServiceProblems,
  type EtcdSpokeServiceProps,
} from './etcd-spoke-service.ts';
import { MemberHelperAccess, memberHelperPod, type MemberHelperSpec } from './etcd-member-helper.ts';
import type { EtcdClientAccess } from './etcd-client-access.ts';
import type { SecretKeyRef } from '../base/secret-key-ref.ts';
import { externalSecret, type ExternalSecretProps } from '../base/external-secret.ts';
import { dataClaimTemplate, statefulSetSpecJson } from '../base/data-claim.ts';
import { DEFAULT_IMAGES, imageReference, type ImageRef } from '../base/image.ts';
import { COMPONENT, podTemplateLabels, selectorLabels } from '../base/labels.ts';
import { metricsService } from '../base/metrics-service.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';
import {
  MEMORY,
  SECRET_KEY,
  assertNoProblems,
  intProblem,
  isInt,
  k8sName,
  oneOf,
  show,
} from '../base/kubernetes-rules.ts';
import {
  NONROOT_IDENTITY,
  RESTRICTED_CONTAINER,
  imagePullPolicy,
  nodeAntiAffinity,
  podSecurityContext,
  resourceRequirements,
  scheduling,
  type AntiAffinity,
  type WorkloadProps,
  workloadProblems,
} from '../base/workload.ts';

export interface EtcdTlsProps {
  /**
   * Existing Secret with the certificate etcd serves to clients; its CA also verifies client
   * certificates (client-cert auth is on with TLS). Its SANs must cover `<stack>-etcd` (what the
   * DNS server and the controller dial), `*.<stack>-etcd-peer` (the members) and
   * `*.<stack>-etcd-peer.<ns>.svc.<clusterDomain>` (etcd checks a member's client certificate
   * against the name a reverse lookup of its address gives), plus `*.<stack>-etcd-peer.<ns>.svc`
   * while members bootstrapped by etcdns 0.1.0 keep those peer URLs (`certManager` issues exactly
   * these). Moved to another namespace, the certificates must name that one. A hub's
   * `spokeService` adds what the spokes dial (its `names` and load-balancer addresses).
   */
  readonly serverSecret: string;
  /**
   * Existing Secret with the peer certificate (SANs as serverSecret's for peers).
   * @default - serverSecret
   */
  readonly peerSecret?: string;
  /** Existing Secret with the client certificate the DNS server and the controller present. */
  readonly clientSecret: string;
  /**
   * Key of the CA bundle in each Secret.
   * @default "ca.crt" (cert-manager's layout)
   */
  readonly caKey?: string;
  /**
   * Key of the certificate.
   * @default "tls.crt"
   */
  readonly certKey?: string;
  /**
   * Key of the private key.
   * @default "tls.key"
   */
  readonly keyKey?: string;
  /**
   * Have cert-manager issue the Secrets above (opt-in: needs cert-manager). With it, the key names are
   * cert-manager's (the defaults).
   * @default - off, the Secrets exist already
   */
  readonly certManager?: CertManagerProps;
}

export interface EtcdAuthProps {
  /**
   * etcd user the DNS server and the controller log in as. Authentication is switched on in etcd by an
   * operator (`etcdctl user add`, `etcdctl auth enable`), not by synth.
   * @default "etcdns"
   */
  readonly username?: string;
  /** Secret key holding that user's password (an existing Secret unless externalSecret is set). */
  readonly password: SecretKeyRef;
  /**
   * Have the External Secrets Operator create that Secret from an external store (opt-in: needs the
   * operator).
   * @default - off, the Secret exists
   */
  readonly externalSecret?: ExternalSecretProps;
}

export interface EtcdProps extends WorkloadProps {
  /**
   * Members; odd so a majority survives a failure. Changing it later adds or removes members in
   * order (`etcdns etcd-member` in each pod does the member add and remove), without rolling the
   * members that stay. With `auth` and no `etcdRoles`, member add and remove need root, which the
   * pods do not have: change the membership by hand then.
   * @default 3; 1 for development
   */
  readonly replicas?: number;
  /**
   * Per-member volume.
   * @default - see the fields below
   */
  readonly storage?: {
    /**
     * Volume size per member.
     * @default "8Gi"
     */
    readonly size?: string;
    /**
     * Storage class.
     * @default - the cluster's default class
     */
    readonly storageClassName?: string;
  };
  /**
   * History compaction.
   * @default - see the fields below
   */
  readonly compaction?: {
    /**
     * etcd --auto-compaction-mode.
     * @default "periodic"
     */
    readonly mode?: 'periodic' | 'revision';
    /**
     * etcd --auto-compaction-retention.
     * @default "1h" (periodic) or "1000" (revision)
     */
    readonly retention?: string;
  };
  /**
   * etcd --quota-backend-bytes.
   * @default 2 GiB (etcd's own default), at most 8 GiB
   */
  readonly quotaBackendBytes?: number;
  /**
   * TLS on client and peer ports, from existing Secrets.
   * @default - off (plain HTTP inside the cluster)
   */
  readonly tls?: EtcdTlsProps;
  /**
   * Password authentication of the clients.
   * @default - off
   */
  readonly auth?: EtcdAuthProps;
  /**
   * PodDisruptionBudget keeping a quorum available.
   * @default - on when replicas > 1
   */
  readonly podDisruptionBudget?: boolean;
  /**
   * Spread members across nodes.
   * @default "preferred" ("required" needs a node per member)
   */
  readonly antiAffinity?: AntiAffinity;
  /**
   * A hub's etcd client port for its spokes (`clusters`): a Service of its own,
   * `<stack>-etcd-spokes`, of type LoadBalancer or NodePort; its names go into the server
   * certificate and the clusters' `etcdClientCidrs` into etcd's NetworkPolicy. The peer port
   * stays inside the cluster. Needs `clusters`.
   * @default - none: etcd is reached inside the cluster only
   */
  readonly spokeService?: EtcdSpokeServiceProps;
}

export interface EtcdClusterProps extends EtcdProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /**
   * DNS domain of the cluster (the kubelet's clusterDomain), in the certificates' full names.
   * @default "cluster.local"
   */
  readonly clusterDomain?: string;
  /**
   * Emit a metrics Service for a ServiceMonitor.
   * @default false
   */
  readonly metricsService?: boolean;
  /**
   * The etcdns image whose `etcd-member` command runs beside etcd in each pod.
   * @default - the etcdns image of this version
   */
  readonly helperImage?: ImageRef;
  /**
   * Pull policy of the helper image.
   * @default "IfNotPresent"
   */
  readonly helperImagePullPolicy?: string;
  /**
   * root's password, when etcd authentication is on (member add and remove need root).
   * @default - none
   */
  readonly rootPassword?: SecretKeyRef;
}

export const ETCD_DEFAULTS = {
  replicas: 3,
  storageSize: '8Gi',
  compaction: { periodic: '1h', revision: '1000' },
  quotaBackendBytes: 2 * 1024 ** 3,
  antiAffinity: 'preferred',
  username: 'etcdns',
  clusterDomain: 'cluster.local',
  // Ephemeral storage: the logs (the kubelet keeps up to 50Mi); the data is on the claim.
  resources: {
    requests: { cpu: '100m', memory: '256Mi', ephemeralStorage: '64Mi' },
    limits: { memory: '1Gi', ephemeralStorage: '256Mi' },
  },
  identity: NONROOT_IDENTITY,
} as const;

/** etcd's ports in its pods (the NetworkPolicies' egress to etcd names them by number). */
export const ETCD_PORTS = { client: 2379, peer: 2380, metrics: 2381 } as const;
const DATA_DIR = '/var/lib/etcd';
const SERVER_TLS_DIR = '/etc/etcd/tls/server';
const PEER_TLS_DIR = '/etc/etcd/tls/peer';

/** What the construction steps share: the names, image, labels and TLS key names of one cluster. */
interface Layout {
  name: string;
  peerService: string;
  replicas: number;
  image: ImageRef;
  scheme: 'http' | 'https';
  selector: Record<string, string>;
  /** Every member's pod name. */
  members: string[];
  /** Key names in the TLS Secrets, when TLS is on. */
  tls: { ca: string; cert: string; key: string } | undefined;
  /** A member's host name, namespace-relative (see memberHost below). */
  memberHost(member: string): string;
}

/** etcd's command line and what its container mounts. */
interface MemberConfig {
  flags: Record<string, string>;
  volumes: k8s.Volume[];
  dataMount: k8s.VolumeMount;
  tlsMounts: k8s.VolumeMount[];
}

export class EtcdCluster extends StackPart {
  /** Endpoints and credentials references for the DNS server and the controller. */
  readonly clientAccess: EtcdClientAccess;
  /** Name of the client Service (ClusterIP, port 2379). */
  readonly clientServiceName: string;
  readonly replicas: number;

  constructor(scope: Construct, id: string, props: EtcdClusterProps) {
    assertNoProblems([
      ...etcdProblems(props, 'etcd'),
      ...k8sName(props.clusterDomain, 'clusterDomain', 'subdomain', 253),
    ]);
    const layout = EtcdCluster.layout(props);
    super(scope, id, props.stack, {
      component: COMPONENT.etcd,
      version: layout.image.tag,
      wave: SYNC_WAVE.etcd,
      labels: props.labels,
    });
    this.replicas = layout.replicas;
    this.clientServiceName = layout.name;
    this.clientAccess = EtcdCluster.clientAccessOf(props, layout);
    const member = EtcdCluster.memberConfig(props, layout);
    const helper = this.memberHelper(props, layout, member);
    this.services(layout);
    if (props.spokeService)
      new EtcdSpokeService(this, 'spoke-service', {
        stack: props.stack,
        version: layout.image.tag,
        labels: props.labels,
        service: props.spokeService,
        name: `${layout.name}-spokes`,
        selector: layout.selector,
        port: ETCD_PORTS.client,
      });
    this.statefulSet(props, layout, member, helper);
    this.certificates(props, layout);
    this.passwordSecret(props);
    this.disruptionBudget(props, layout);
    this.metricsService(props, layout);
  }

  private static layout(props: EtcdClusterProps): Layout {
    const { stack } = props;
    const name = `${stack.name}-etcd`;
    const peerService = `${name}-peer`;
    const replicas = props.replicas ?? ETCD_DEFAULTS.replicas;
    const image = props.image ?? DEFAULT_IMAGES.etcd;
    return {
      name,
      peerService,
      replicas,
      image,
      scheme: props.tls ? 'https' : 'http',
      selector: selectorLabels(stack.name, COMPONENT.etcd),
      members: Array.from({ length: replicas }, (_, i) => `${name}-${i}`),
      tls: props.tls && {
        ca: props.tls.caKey ?? 'ca.crt',
        cert: props.tls.certKey ?? 'tls.crt',
        key: props.tls.keyKey ?? 'tls.key',
      },
      // No namespace: the search path of the pod's resolv.conf completes the name in whatever
      // namespace the objects end up in. Advertised and initial-cluster URLs are the same strings,
      // so etcd's bootstrap check (it resolves and compares them) holds.
      memberHost: (member: string) => `${member}.${peerService}`,
    };
  }

  private static clientAccessOf(props: EtcdClusterProps, l: Layout): EtcdClientAccess {
    return {
      // The client Service by its short name: namespace-relative, only ready members (readiness is
      // a linearizable read), and one certificate name (Node's TLS check refuses a wildcard over a
      // single label such as *.etcdns-etcd-peer, so per-member URLs would need a SAN per member).
      endpoints: [`${l.scheme}://${l.name}:${ETCD_PORTS.client}`],
      ...(props.tls && l.tls
        ? { tls: { secretName: props.tls.clientSecret, caKey: l.tls.ca, certKey: l.tls.cert, keyKey: l.tls.key } }
        : {}),
      ...(props.auth
        ? { auth: { username: props.auth.username ?? ETCD_DEFAULTS.username, password: props.auth.password } }
        : {}),
    };
  }

  /** etcd's flags, and the data and TLS volumes its container mounts. */
  private static memberConfig(props: EtcdClusterProps, l: Layout): MemberConfig {
    const { scheme, tls } = l;
    const compactionMode = props.compaction?.mode ?? 'periodic';
    const flags: Record<string, string> = {
      'advertise-client-urls': `${scheme}://${l.memberHost('$(POD_NAME)')}:${ETCD_PORTS.client}`,
      'auto-compaction-mode': compactionMode,
      'auto-compaction-retention': props.compaction?.retention ?? ETCD_DEFAULTS.compaction[compactionMode],
      'data-dir': `${DATA_DIR}/data`,
      'initial-advertise-peer-urls': `${scheme}://${l.memberHost('$(POD_NAME)')}:${ETCD_PORTS.peer}`,
      // Fixed by the stack name: a namespace overlay cannot follow into a flag value.
      'initial-cluster-token': l.name,
      'listen-client-urls': `${scheme}://0.0.0.0:${ETCD_PORTS.client}`,
      'listen-metrics-urls': `http://0.0.0.0:${ETCD_PORTS.metrics}`,
      'listen-peer-urls': `${scheme}://0.0.0.0:${ETCD_PORTS.peer}`,
      name: '$(POD_NAME)',
      'quota-backend-bytes': String(props.quotaBackendBytes ?? ETCD_DEFAULTS.quotaBackendBytes),
    };
    const volumes: k8s.Volume[] = [];
    const dataMount: k8s.VolumeMount = { name: 'data', mountPath: DATA_DIR };
    const tlsMounts: k8s.VolumeMount[] = [];
    if (props.tls && tls) {
      Object.assign(flags, {
        'cert-file': `${SERVER_TLS_DIR}/${tls.cert}`,
        'client-cert-auth': 'true',
        'key-file': `${SERVER_TLS_DIR}/${tls.key}`,
        'peer-cert-file': `${PEER_TLS_DIR}/${tls.cert}`,
        'peer-client-cert-auth': 'true',
        'peer-key-file': `${PEER_TLS_DIR}/${tls.key}`,
        'peer-trusted-ca-file': `${PEER_TLS_DIR}/${tls.ca}`,
        'trusted-ca-file': `${SERVER_TLS_DIR}/${tls.ca}`,
      });
      volumes.push(
        {
          name: 'tls-peer',
          secret: { secretName: props.tls.peerSecret ?? props.tls.serverSecret, defaultMode: 0o440 },
        },
        { name: 'tls-server', secret: { secretName: props.tls.serverSecret, defaultMode: 0o440 } },
      );
      tlsMounts.push(
        { name: 'tls-peer', mountPath: PEER_TLS_DIR, readOnly: true },
        { name: 'tls-server', mountPath: SERVER_TLS_DIR, readOnly: true },
      );
    }
    return { flags, volumes, dataMount, tlsMounts };
  }

  /** The `etcdns etcd-member` helper beside etcd in each pod, and its access to the API. */
  private memberHelper(props: EtcdClusterProps, l: Layout, m: MemberConfig) {
    const { tls } = l;
    const helperProps: MemberHelperSpec = {
      stack: props.stack,
      component: COMPONENT.etcd,
      version: l.image.tag,
      labels: props.labels,
      statefulSet: l.name,
      image: props.helperImage ?? DEFAULT_IMAGES.etcdns,
      imagePullPolicy: props.helperImagePullPolicy ?? 'IfNotPresent',
      peerUrl: m.flags['initial-advertise-peer-urls']!,
      clientUrl: this.clientAccess.endpoints[0]!,
      dataDir: m.flags['data-dir']!,
      dataMount: m.dataMount,
      tlsMounts: m.tlsMounts,
      ...(tls
        ? {
            tls: {
              caFile: `${SERVER_TLS_DIR}/${tls.ca}`,
              certFile: `${SERVER_TLS_DIR}/${tls.cert}`,
              keyFile: `${SERVER_TLS_DIR}/${tls.key}`,
            },
          }
        : {}),
      ...(props.rootPassword ? { rootPassword: props.rootPassword } : {}),
      etcdFlags: Object.keys(m.flags)
        .sort()
        .map((flag) => `--${flag}=${m.flags[flag]}`),
    };
    const helper = memberHelperPod(helperProps);
    new MemberHelperAccess(this, 'member-helper', {
      ...helperProps,
      initialCluster: l.members
        .map((member) => `${member}=${l.scheme}://${l.memberHost(member)}:${ETCD_PORTS.peer}`)
        .join(','),
    });
    return helper;
  }

  /** The headless peer Service (publishing not-ready members, for bootstrap) and the client Service. */
  private services(l: Layout): void {
    new k8s.KubeService(this, 'peer-service', {
      metadata: this.meta(l.peerService),
      spec: {
        clusterIp: 'None',
        publishNotReadyAddresses: true,
        selector: l.selector,
        ports: [
          {
            name: 'client',
            port: ETCD_PORTS.client,
            targetPort: k8s.IntOrString.fromString('client'),
            protocol: 'TCP',
          },
          { name: 'peer', port: ETCD_PORTS.peer, targetPort: k8s.IntOrString.fromString('peer'), protocol: 'TCP' },
        ],
      },
    });
    new k8s.KubeService(this, 'client-service', {
      metadata: this.meta(l.name),
      spec: {
        type: 'ClusterIP',
        selector: l.selector,
        ports: [
          {
            name: 'client',
            port: ETCD_PORTS.client,
            targetPort: k8s.IntOrString.fromString('client'),
            protocol: 'TCP',
          },
        ],
      },
    });
  }

  private statefulSet(
    props: EtcdClusterProps,
    l: Layout,
    m: MemberConfig,
    helper: ReturnType<typeof memberHelperPod>,
  ): void {
    const health = (query: string, failureThreshold: number): k8s.Probe => ({
      httpGet: { path: `/health?${query}`, port: k8s.IntOrString.fromString('metrics'), scheme: 'HTTP' },
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold,
    });
    const affinity = nodeAntiAffinity(props.antiAffinity ?? ETCD_DEFAULTS.antiAffinity, l.selector);
    const spec: k8s.StatefulSetSpec = {
      replicas: l.replicas,
      serviceName: l.peerService,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: l.selector },
      updateStrategy: { type: 'RollingUpdate' },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: {
        metadata: {
          labels: podTemplateLabels(this.meta(l.name).labels),
          ...(props.podAnnotations ? { annotations: props.podAnnotations } : {}),
        },
        spec: {
          ...scheduling(props),
          ...(affinity ? { affinity } : {}),
          serviceAccountName: helper.serviceAccountName,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext(props, ETCD_DEFAULTS.identity),
          terminationGracePeriodSeconds: 30,
          initContainers: helper.initContainers,
          containers: [
            {
              name: 'etcd',
              image: imageReference(l.image),
              imagePullPolicy: imagePullPolicy(props),
              command: ['etcd'],
              args: helper.etcdArgs,
              ports: [
                { name: 'client', containerPort: ETCD_PORTS.client, protocol: 'TCP' },
                { name: 'metrics', containerPort: ETCD_PORTS.metrics, protocol: 'TCP' },
                { name: 'peer', containerPort: ETCD_PORTS.peer, protocol: 'TCP' },
              ],
              // Liveness asks only this member (a lost quorum is not cured by restarts);
              // readiness asks for a linearizable read, so clients are sent to a working cluster.
              startupProbe: health('serializable=true&exclude=NOSPACE', 30),
              livenessProbe: health('serializable=true&exclude=NOSPACE', 6),
              readinessProbe: health('serializable=false', 3),
              resources: resourceRequirements(props, ETCD_DEFAULTS.resources),
              securityContext: RESTRICTED_CONTAINER,
              volumeMounts: [m.dataMount, ...m.tlsMounts, helper.etcdMount].sort((a, b) =>
                a.name.localeCompare(b.name),
              ),
            },
          ],
          volumes: [...m.volumes, ...helper.volumes].sort((a, b) => a.name.localeCompare(b.name)),
        },
      },
      volumeClaimTemplates: [dataClaimTemplate(l.selector, props.storage, ETCD_DEFAULTS.storageSize)],
    };
    const specJson = statefulSetSpecJson(spec);
    helper.nativeSidecar((specJson.template as { spec: { initContainers?: Record<string, unknown>[] } }).spec);
    new ApiObject(this, 'statefulset', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: this.meta(l.name),
      spec: specJson,
    });
  }

  /** cert-manager Certificates for the TLS Secrets, when asked for. */
  private certificates(props: EtcdClusterProps, l: Layout): void {
    if (!props.tls?.certManager) return;
    new EtcdCertificates(this, 'certificates', {
      stack: props.stack,
      version: l.image.tag,
      clientService: l.name,
      peerService: l.peerService,
      clusterDomain: props.clusterDomain ?? ETCD_DEFAULTS.clusterDomain,
      secrets: {
        server: props.tls.serverSecret,
        peer: props.tls.peerSecret ?? props.tls.serverSecret,
        client: props.tls.clientSecret,
      },
      clientCommonName: props.auth?.username ?? ETCD_DEFAULTS.username,
      ...(props.spokeService ? { spokeNames: spokeServiceNames(props.spokeService) } : {}),
      issuer: props.tls.certManager,
      labels: props.labels,
    });
  }

  /** The clients' password Secret from an external store, when asked for. */
  private passwordSecret(props: EtcdClusterProps): void {
    if (!props.auth?.externalSecret) return;
    // Before the DNS server and the controller mount it.
    externalSecret(this, 'password', props.auth.password, props.auth.externalSecret, SYNC_WAVE.secrets);
  }

  /** A quorum stays available through voluntary disruptions (more than one member). */
  private disruptionBudget(props: EtcdClusterProps, l: Layout): void {
    if (l.replicas <= 1 || props.podDisruptionBudget === false) return;
    new k8s.KubePodDisruptionBudget(this, 'pdb', {
      metadata: this.meta(l.name),
      spec: {
        minAvailable: k8s.IntOrString.fromNumber(Math.floor(l.replicas / 2) + 1),
        selector: { matchLabels: l.selector },
      },
    });
  }

  private metricsService(props: EtcdClusterProps, l: Layout): void {
    if (!props.metricsService) return;
    metricsService(this, 'metrics-service', {
      name: `${l.name}-metrics`,
      selector: l.selector,
      port: ETCD_PORTS.metrics,
      targetPort: 'metrics',
      labels: props.labels,
    });
  }
}

export function etcdProblems(p: EtcdProps, path: string): string[] {
  const problems = [...workloadProblems(p, path)];
  if (p.replicas !== undefined && !(isInt(p.replicas, 1, 9) && p.replicas % 2 === 1))
    problems.push(`${path}.replicas: must be an odd number of members: 1, 3, 5, 7 or 9 (got ${show(p.replicas)})`);
  if (p.storage?.size !== undefined && !MEMORY.test(p.storage.size))
    problems.push(`${path}.storage.size: must be a storage quantity such as "8Gi" (got ${show(p.storage.size)})`);
  problems.push(...k8sName(p.storage?.storageClassName, `${path}.storage.storageClassName`, 'subdomain', 253));
  problems.push(...oneOf(p.compaction?.mode, `${path}.compaction.mode`, ['periodic', 'revision']));
  const retention = p.compaction?.retention;
  if (retention !== undefined) {
    const revision = p.compaction?.mode === 'revision';
    if (revision ? !/^[1-9]\d*$/.test(retention) : !/^(?:[1-9]\d*|\d+(?:s|m|h))$/.test(retention))
      problems.push(
        `${path}.compaction.retention: must be ${revision ? 'a number of revisions such as "1000"' : 'a duration such as "1h" or "30m"'} (got ${show(retention)})`,
      );
  }
  problems.push(...intProblem(p.quotaBackendBytes, `${path}.quotaBackendBytes`, 2 ** 20, 8 * 2 ** 30, 'a byte count'));
  problems.push(...oneOf(p.antiAffinity, `${path}.antiAffinity`, ['required', 'preferred', 'none']));
  problems.push(...spokeServiceProblems(p.spokeService, `${path}.spokeService`));
  if (p.tls) {
    if (p.tls.serverSecret === undefined)
      problems.push(`${path}.tls.serverSecret: required with tls (an existing Secret name)`);
    if (p.tls.clientSecret === undefined)
      problems.push(`${path}.tls.clientSecret: required with tls (an existing Secret name)`);
    for (const field of ['serverSecret', 'peerSecret', 'clientSecret'] as const)
      problems.push(...k8sName(p.tls[field], `${path}.tls.${field}`, 'subdomain', 253));
    for (const field of ['caKey', 'certKey', 'keyKey'] as const) {
      const key = p.tls[field];
      if (key !== undefined && !SECRET_KEY.test(key))
        problems.push(
          `${path}.tls.${field}: must be a Secret key of letters, digits, "-", "_" and "." (got ${show(key)})`,
        );
      if (key !== undefined && p.tls.certManager)
        problems.push(
          `${path}.tls.${field}: must be left out with certManager (cert-manager writes ca.crt, tls.crt, tls.key)`,
        );
    }
    const cm = p.tls.certManager;
    if (cm) {
      if (cm.issuerName === undefined)
        problems.push(`${path}.tls.certManager.issuerName: required (a cert-manager issuer)`);
      problems.push(
        ...k8sName(cm.issuerName, `${path}.tls.certManager.issuerName`, 'subdomain', 253),
        ...oneOf(cm.issuerKind, `${path}.tls.certManager.issuerKind`, ['Issuer', 'ClusterIssuer']),
      );
      for (const field of ['duration', 'renewBefore'] as const) {
        const value = cm[field];
        if (value !== undefined && (value === '' || !/^(?:\d+h)?(?:\d+m)?(?:\d+s)?$/.test(value)))
          problems.push(
            `${path}.tls.certManager.${field}: must be a duration such as "2160h" or "720h30m" (got ${show(value)})`,
          );
      }
    }
  }
  if (p.auth) {
    const u = p.auth.username;
    if (u !== undefined && (typeof u !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(u)))
      problems.push(`${path}.auth.username: must be 1-64 letters, digits, ".", "_" or "-" (got ${show(u)})`);
    problems.push(...k8sName(p.auth.password?.name, `${path}.auth.password.name`, 'subdomain', 253));
    if (!p.auth.password?.name || !p.auth.password.key || !SECRET_KEY.test(p.auth.password.key))
      problems.push(`${path}.auth.password: must reference an existing Secret key, { name: "...", key: "..." }`);
    const es = p.auth.externalSecret;
    if (es) {
      const at = `${path}.auth.externalSecret`;
      problems.push(
        ...k8sName(es.storeName, `${at}.storeName`, 'subdomain', 253),
        ...oneOf(es.storeKind, `${at}.storeKind`, ['SecretStore', 'ClusterSecretStore']),
      );
      if (es.storeName === undefined) problems.push(`${at}.storeName: required (a SecretStore or ClusterSecretStore)`);
      if (typeof es.remoteKey !== 'string' || es.remoteKey === '')
        problems.push(`${at}.remoteKey: required, the key of the password in the external store`);
      if (es.refreshInterval !== undefined && !/^(?:\d+h)?(?:\d+m)?(?:\d+s)?$/.test(es.refreshInterval))
        problems.push(
          `${at}.refreshInterval: must be a duration such as "1h" or "15m" (got ${show(es.refreshInterval)})`,
        );
    }
  }
  return problems;
}
