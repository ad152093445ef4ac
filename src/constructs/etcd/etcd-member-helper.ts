// The `etcdns etcd-member` containers of each etcd pod, which make membership follow the
// StatefulSet without etcdctl: an init container that joins, rejoins (after a lost volume) or
// bootstraps and writes etcd's config file, and a sidecar that removes the member when a
// scale-down terminates its pod. The sidecar is a native one (an init container that keeps
// running): Kubernetes stops it after etcd, so the member is removed once it has stopped. The bootstrap cluster comes from a ConfigMap, not the pod
// template, so changing the member count scales the StatefulSet without rolling the members
// that stay (a roll during a scale-down would stop a survivor while the leaving members still
// count toward the quorum). The sidecar alone gets an API token: it reads the StatefulSet's
// replicas, which is all its Role allows.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import type { SecretKeyRef } from '../base/secret-key-ref.ts';
import { imageReference, type ImageRef } from '../base/image.ts';
import { KUBE_API_ACCESS_MOUNT, KUBE_API_ACCESS_VOLUME } from '../base/kube-api-access.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';
import { HELPER_RESOURCES, RESTRICTED_CONTAINER, sortedEnv } from '../base/workload.ts';

/** Where the init container writes etcd's config file, which etcd reads (an emptyDir). */
const CONFIG_DIR = '/run/etcd-member';
const CLUSTER_DIR = '/etc/etcd-member/cluster';
const ROOT_DIR = '/etc/etcd-member/root';
/** The ConfigMap key holding the bootstrap cluster, name=peer-url,... */
export const INITIAL_CLUSTER_KEY = 'initial-cluster';

export interface MemberHelperSpec {
  stack: StackContext;
  component: string;
  version: string;
  labels?: Record<string, string>;
  /** The StatefulSet (and its ServiceAccount, Role and ConfigMap of the bootstrap cluster). */
  statefulSet: string;
  image: ImageRef;
  imagePullPolicy: string;
  /** This member's peer URL, with $(POD_NAME). */
  peerUrl: string;
  /** The client Service URL: only ready members answer there. */
  clientUrl: string;
  dataDir: string;
  /** etcd's data volume mount: the init container looks for a member there. */
  dataMount: k8s.VolumeMount;
  /** etcd's TLS mounts, at the same paths in the helper containers. */
  tlsMounts: k8s.VolumeMount[];
  /** TLS files (paths in etcdMounts) the helper presents to etcd: the server certificate, which
   * also allows client auth. */
  tls?: { caFile: string; certFile: string; keyFile: string };
  /** With etcd authentication on: root's password (member add and remove need root). */
  rootPassword?: SecretKeyRef;
  /** etcd's flags, except the initial cluster and its state: the init container decides those. */
  etcdFlags: string[];
}

export interface MemberHelperPod {
  /** The pod's init containers: etcd-member, then the leave sidecar. */
  initContainers: k8s.Container[];
  /**
   * Makes the leave sidecar a native sidecar in the pod spec's JSON: restartPolicy Always, which
   * the Kubernetes 1.27 types of cdk8s-plus-27 do not have (native sidecars came in 1.28).
   */
  nativeSidecar(podSpec: { initContainers?: Record<string, unknown>[] }): void;
  /** etcd's arguments: everything is in the config file. */
  etcdArgs: string[];
  /** What etcd mounts besides its own: the config file's folder. */
  etcdMount: k8s.VolumeMount;
  volumes: k8s.Volume[];
  serviceAccountName: string;
}

/** The ServiceAccount, Role and RoleBinding of the sidecar: get on its StatefulSet, nothing else. */
export interface MemberHelperAccessProps extends MemberHelperSpec {
  /** The bootstrap cluster (`name=peer URL,...`), into its ConfigMap. */
  readonly initialCluster: string;
}

export class MemberHelperAccess extends StackPart {
  constructor(scope: Construct, id: string, props: MemberHelperAccessProps) {
    super(scope, id, props.stack, {
      component: props.component,
      version: props.version,
      wave: SYNC_WAVE.etcd,
      labels: props.labels,
    });
    const { initialCluster } = props;
    const meta = this.meta(props.statefulSet);
    new k8s.KubeConfigMap(this, 'initial-cluster', {
      metadata: this.meta(`${props.statefulSet}-members`),
      data: { [INITIAL_CLUSTER_KEY]: initialCluster },
    });
    new k8s.KubeServiceAccount(this, 'service-account', { metadata: meta, automountServiceAccountToken: false });
    new k8s.KubeRole(this, 'role', {
      metadata: meta,
      rules: [{ apiGroups: ['apps'], resources: ['statefulsets'], resourceNames: [props.statefulSet], verbs: ['get'] }],
    });
    new k8s.KubeRoleBinding(this, 'role-binding', {
      metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: props.statefulSet },
      // kustomize's namespace transformer rewrites the subject's namespace with the objects'.
      subjects: [{ kind: 'ServiceAccount', name: props.statefulSet, namespace: props.stack.namespace }],
    });
  }
}

export function memberHelperPod(props: MemberHelperSpec): MemberHelperPod {
  const connection = [
    `--endpoints=${props.clientUrl}`,
    ...(props.tls
      ? [`--cacert=${props.tls.caFile}`, `--cert=${props.tls.certFile}`, `--key=${props.tls.keyFile}`]
      : []),
    ...(props.rootPassword ? ['--user=root', `--password-file=${ROOT_DIR}/password`] : []),
  ];
  const rootMount: k8s.VolumeMount[] = props.rootPassword
    ? [{ name: 'etcd-root', mountPath: ROOT_DIR, readOnly: true }]
    : [];
  const helper = (
    name: string,
    args: string[],
    mounts: k8s.VolumeMount[],
    env: Record<string, { fieldPath: string }>,
  ) => ({
    name,
    image: imageReference(props.image),
    imagePullPolicy: props.imagePullPolicy,
    args,
    env: sortedEnv(env),
    resources: HELPER_RESOURCES,
    securityContext: RESTRICTED_CONTAINER,
    volumeMounts: [...mounts, ...rootMount].sort((a, b) => a.name.localeCompare(b.name)),
  });
  const initContainer = helper(
    'etcd-member',
    [
      'etcd-member',
      '--name=$(POD_NAME)',
      `--peer-url=${props.peerUrl}`,
      `--data-dir=${props.dataDir}`,
      `--initial-cluster-file=${CLUSTER_DIR}/${INITIAL_CLUSTER_KEY}`,
      ...connection,
      `--config-out=${CONFIG_DIR}/etcd.yaml`,
      // Long enough for the other members of a fresh cluster to be scheduled and pull etcd.
      '--timeout=600',
      '--',
      ...props.etcdFlags,
    ],
    [
      props.dataMount,
      ...props.tlsMounts,
      { name: 'member-config', mountPath: CONFIG_DIR },
      { name: 'initial-cluster', mountPath: CLUSTER_DIR, readOnly: true },
    ],
    { POD_NAME: { fieldPath: 'metadata.name' } },
  );
  const sidecar = helper(
    'etcd-member-leave',
    [
      'etcd-member',
      'leave',
      '--name=$(POD_NAME)',
      `--statefulset=${props.statefulSet}`,
      '--namespace=$(POD_NAMESPACE)',
      ...connection,
    ],
    [...props.tlsMounts, KUBE_API_ACCESS_MOUNT],
    { POD_NAME: { fieldPath: 'metadata.name' }, POD_NAMESPACE: { fieldPath: 'metadata.namespace' } },
  );
  const volumes: k8s.Volume[] = [
    // One config file of a few kilobytes.
    { name: 'member-config', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Mi') } },
    { name: 'initial-cluster', configMap: { name: `${props.statefulSet}-members` } },
    KUBE_API_ACCESS_VOLUME,
    ...(props.rootPassword
      ? [
          {
            name: 'etcd-root',
            secret: {
              secretName: props.rootPassword.name,
              items: [{ key: props.rootPassword.key, path: 'password' }],
              defaultMode: 0o440,
            },
          },
        ]
      : []),
  ];
  return {
    initContainers: [initContainer, sidecar],
    nativeSidecar: (podSpec) => {
      for (const c of podSpec.initContainers ?? []) if (c.name === sidecar.name) c.restartPolicy = 'Always';
    },
    etcdArgs: [`--config-file=${CONFIG_DIR}/etcd.yaml`],
    etcdMount: { name: 'member-config', mountPath: CONFIG_DIR, readOnly: true },
    volumes,
    serviceAccountName: props.statefulSet,
  };
}
