// etcd roles: one etcd user per component, each allowed only its own key prefixes (a DNS server
// reads its view's prefix, and writes it when it takes ACME updates, the controller reads and writes every view's prefix), and the Job that
// creates them with `etcdns etcd-roles`. The passwords stay in a Secret the user provides; the
// output names its keys, never a value.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import { configHash } from '../base/config-file.ts';
import { etcdClientMounts, type EtcdClientAccess } from './etcd-client-access.ts';
import { DEFAULT_IMAGES, imageReference, type ImageRef } from '../base/image.ts';
import { COMPONENT, podTemplateLabels } from '../base/labels.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';
import { assertNoProblems, k8sName, show } from '../base/kubernetes-rules.ts';
import { HELPER_RESOURCES, RESTRICTED_CONTAINER, TMP_MOUNT, podSecurityContext, tmpVolume } from '../base/workload.ts';

export interface EtcdRolesProps {
  /**
   * Existing Secret with one password per etcd user, under these keys: `controller`, `server-<view>`
   * for every view, `cluster-<name>` for every member cluster (`clusters`), and `root` (root's password: the Job logs in as root once authentication is on,
   * and creates root with it before). Each pod mounts only its own key.
   */
  readonly passwordSecret: string;
  /**
   * Render a Job running `etcdns etcd-roles`, which creates the roles and users (idempotent; it sets
   * the passwords again on every run). Off: run the command yourself (docs/security.md, "Least privilege").
   * @default true
   */
  readonly job?: boolean;
  /**
   * Let the Job switch etcd's authentication on (creating root from the Secret's `root` key when it is
   * missing). Off: the roles and users are prepared and an operator runs `etcdctl auth enable`.
   * @default true
   */
  readonly enableAuth?: boolean;
}

/** One etcd user of the stack: its name (also its role's), its Secret key and its permissions. */
export interface EtcdUser {
  name: string;
  secretKey: string;
  access: 'read' | 'readwrite';
  /** Key prefixes, each ending in "/" (the view prefix and everything below it). */
  prefixes: string[];
  /** Further prefixes it only reads, whatever its `access` (a hub's servers: the member clusters'). */
  reads?: string[];
  /** Further prefixes it reads and writes (a hub's servers: the key that moves their serials). */
  writes?: string[];
}

/** The Secret key of root's password. */
export const ROOT_PASSWORD_KEY = 'root';

/**
 * The controller's user first, then one per view's servers: readers, or writers of their own view
 * when `serversWrite` (DNS UPDATE for ACME challenges, docs/acme.md).
 */
export function etcdUsers(
  stackName: string,
  views: { name: string; prefix: string }[],
  serversWrite = false,
): EtcdUser[] {
  const under = (prefix: string) => `${prefix}/`;
  return [
    {
      name: `${stackName}-controller`,
      secretKey: 'controller',
      access: 'readwrite',
      prefixes: [...new Set(views.map((v) => under(v.prefix)))].sort(),
    },
    ...views.map((v) => ({
      name: `${stackName}-server-${v.name}`,
      secretKey: `server-${v.name}`,
      access: serversWrite ? ('readwrite' as const) : ('read' as const),
      prefixes: [under(v.prefix)],
    })),
  ];
}

/** The client access of one user: the stack's endpoints and TLS, its own name and password key. */
export function accessAs(access: EtcdClientAccess, user: EtcdUser, passwordSecret: string): EtcdClientAccess {
  return { ...access, auth: { username: user.name, password: { name: passwordSecret, key: user.secretKey } } };
}

const SECRET_DIR = '/etc/etcdns/etcd-users';

/** The `etcdns etcd-roles` arguments that give etcd exactly these users (file paths into SECRET_DIR). */
export function etcdRolesArgs(users: EtcdUser[], enableAuth: boolean): string[] {
  return [
    '--root-password-file',
    `${SECRET_DIR}/${ROOT_PASSWORD_KEY}`,
    ...users.flatMap((u) => [
      '--grant',
      `${u.name}=${[
        ...u.prefixes.map((p) => `${u.access}:${p}`),
        ...(u.reads ?? []).map((p) => `read:${p}`),
        ...(u.writes ?? []).map((p) => `readwrite:${p}`),
      ].join(',')}`,
    ]),
    ...users.flatMap((u) => ['--user', `${u.name}=${SECRET_DIR}/${u.secretKey}`]),
    ...(enableAuth ? ['--enable-auth'] : []),
  ];
}

export interface EtcdRolesJobProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** The stack's etcd without credentials: endpoints and TLS. */
  readonly etcd: EtcdClientAccess;
  /** The users to create. */
  readonly users: EtcdUser[];
  /** The Secret holding their passwords and root's. */
  readonly passwordSecret: string;
  /** Switch authentication on. */
  readonly enableAuth: boolean;
  /**
   * The etcdns image.
   * @default - DEFAULT_IMAGES.etcdns
   */
  readonly image?: ImageRef;
  /**
   * Image pull policy.
   * @default "IfNotPresent"
   */
  readonly imagePullPolicy?: string;
}

/**
 * A Job whose name carries a hash of its arguments: a Job's pod template cannot change, so a
 * changed set of users gives a new Job (Argo CD and Flux prune the old one) rather than a refusal.
 */
export class EtcdRolesJob extends StackPart {
  readonly jobName: string;

  constructor(scope: Construct, id: string, props: EtcdRolesJobProps) {
    const { stack } = props;
    const image = props.image ?? DEFAULT_IMAGES.etcdns;
    // With etcd: Argo CD starts the workloads once the Job has completed.
    super(scope, id, stack, { component: COMPONENT.etcdRoles, version: image.tag, wave: SYNC_WAVE.etcd });
    assertNoProblems(k8sName(props.passwordSecret, 'etcdRoles.passwordSecret', 'subdomain', 253));
    const client = etcdClientMounts(props.etcd);
    const tlsArgs = client.connection.tls
      ? [
          '--cacert',
          client.connection.tls.caFile,
          ...(client.connection.tls.certFile
            ? ['--cert', client.connection.tls.certFile, '--key', client.connection.tls.keyFile!]
            : []),
        ]
      : [];
    const args = [
      'etcd-roles',
      '--endpoints',
      client.connection.endpoints.join(','),
      ...tlsArgs,
      ...etcdRolesArgs(props.users, props.enableAuth),
    ];
    const keys = [ROOT_PASSWORD_KEY, ...props.users.map((u) => u.secretKey)].sort();
    this.jobName = `${stack.name}-etcd-roles-${configHash(JSON.stringify([imageReference(image), args, keys])).slice(0, 8)}`;
    const meta = this.meta(this.jobName);
    new k8s.KubeJob(this, 'job', {
      metadata: meta,
      spec: {
        backoffLimit: 3,
        activeDeadlineSeconds: 900,
        template: {
          metadata: { labels: podTemplateLabels(meta.labels) },
          spec: {
            restartPolicy: 'OnFailure',
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            // The etcdns image's user, as the DNS server and the controller run it.
            securityContext: podSecurityContext({}),
            containers: [
              {
                name: 'etcd-roles',
                image: imageReference(image),
                imagePullPolicy: props.imagePullPolicy ?? 'IfNotPresent',
                args,
                resources: HELPER_RESOURCES,
                securityContext: RESTRICTED_CONTAINER,
                volumeMounts: [
                  { name: 'etcd-users', mountPath: SECRET_DIR, readOnly: true },
                  ...client.mounts,
                  TMP_MOUNT,
                ].sort((a, b) => a.name.localeCompare(b.name)),
              },
            ],
            volumes: [
              {
                name: 'etcd-users',
                secret: {
                  secretName: props.passwordSecret,
                  items: keys.map((key) => ({ key, path: key })),
                  defaultMode: 0o440,
                },
              },
              ...client.volumes,
              tmpVolume({}),
            ].sort((a, b) => a.name.localeCompare(b.name)),
          },
        },
      },
    });
  }
}

export function etcdRolesProblems(
  p: EtcdRolesProps | undefined,
  stack: { etcdAuth: boolean; views: string[]; name: string },
  path: string,
): string[] {
  if (p === undefined) return [];
  const problems: string[] = [];
  if (typeof p.passwordSecret !== 'string')
    problems.push(`${path}.passwordSecret: required, the name of an existing Secret (got ${show(p.passwordSecret)})`);
  else problems.push(...k8sName(p.passwordSecret, `${path}.passwordSecret`, 'subdomain', 253));
  for (const field of ['job', 'enableAuth'] as const)
    if (p[field] !== undefined && typeof p[field] !== 'boolean')
      problems.push(`${path}.${field}: must be true or false (got ${show(p[field])})`);
  if (stack.etcdAuth)
    problems.push(
      `${path}: leave etcd.auth out with etcdRoles (each component logs in as its own user from ${path}.passwordSecret)`,
    );
  // etcd user names: at most 64 characters here (the runtime's rule), "<name>-server-<view>" the longest.
  for (const view of stack.views)
    if (`${stack.name}-server-${view}`.length > 64)
      problems.push(
        `${path}: the etcd user "${stack.name}-server-${view}" is longer than 64 characters; shorten the view or stack name`,
      );
  return problems;
}
