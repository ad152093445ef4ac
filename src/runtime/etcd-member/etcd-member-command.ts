// `etcdns etcd-member`: the typed helper that makes etcd membership follow the StatefulSet, with
// no shell and no etcdctl. Two roles in each etcd pod:
//   etcdns etcd-member ...        the init container: join, rejoin or bootstrap, then write
//                                 etcd's config file (prepare-member.ts)
//   etcdns etcd-member leave ...  a sidecar: on termination after a scale-down, remove the
//                                 member (member-leave.ts)
import { parseArgs } from 'node:util';
import { KubeClient } from '../kube/kube-client.ts';
import { loadKubeTarget } from '../kube/kube-target.ts';
import type { Subcommand } from '../shared/subcommand.ts';
import type { MemberConnection } from './member-api.ts';
import { leave, type LeaveOptions } from './member-leave.ts';
import { log, prepareMember, type PrepareOptions } from './prepare-member.ts';

export const USAGE = `Usage: etcdns etcd-member --name NAME --peer-url URL --data-dir DIR
       (--initial-cluster N=URL,... | --initial-cluster-file FILE) --endpoints URL,... --config-out FILE
       [CONNECTION] [--timeout SECONDS] -- ETCD-FLAGS...
       etcdns etcd-member leave --name NAME --statefulset NAME --namespace NS --endpoints URL,...
       [CONNECTION] [--kubeconfig FILE] [--timeout SECONDS]

Prepares one etcd member before etcd starts (an init container) and writes etcd's config file:
  data directory present          restart from it
  no cluster answers              bootstrap the static initial cluster (state new)
  a cluster answers               member add (after member remove of a same-named member whose
                                  volume was lost); state existing with the cluster add returned

leave: a sidecar that waits for SIGTERM, then removes this member if the StatefulSet now has
fewer replicas than this pod's ordinal + 1 (a scale-down); any other termination keeps it.

Options:
  --name NAME               this member's name (the pod name)
  --peer-url URL            this member's peer URL
  --data-dir DIR            etcd's data directory (a member exists when DIR/member/wal does)
  --initial-cluster LIST    the static bootstrap cluster, name=peer-url,...
  --initial-cluster-file F  the same, read from a file (a mounted ConfigMap)
  --endpoints LIST          client URLs of the cluster, asked for the member list
  --config-out FILE         where etcd's configuration file goes
  --statefulset NAME        (leave) the StatefulSet of the members
  --namespace NS            (leave) its namespace
  --kubeconfig FILE         (leave) API server access; default: the pod's ServiceAccount
  --timeout SECONDS         give up after this long (default 300; leave: 20)
CONNECTION:
  --cacert, --cert, --key   TLS files for the client connection (etcd's client-cert auth)
  --user NAME --password-file FILE
                            log in (with etcd authentication on, member add and remove need root)
`;

const CONNECTION = {
  endpoints: { type: 'string' },
  cacert: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  user: { type: 'string' },
  'password-file': { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean' },
} as const;

type Values = Record<string, string | boolean | undefined>;

function required(values: Values, names: string[]): void {
  const missing = names.filter((k) => !values[k]);
  if (missing.length) throw new Error(`missing ${missing.map((k) => `--${k}`).join(', ')}`);
}

function connection(values: Values, defaultTimeout: number): MemberConnection & { timeoutMs: number } {
  const text = (k: string) => values[k] as string | undefined;
  const timeout = Number(text('timeout') ?? defaultTimeout);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error(`--timeout: a positive number of seconds`);
  if (!!text('user') !== !!text('password-file')) throw new Error('--user and --password-file go together');
  return {
    endpoints: text('endpoints')!.split(',').filter(Boolean),
    ...(text('cacert') ? { tls: { caFile: text('cacert')!, certFile: text('cert'), keyFile: text('key') } } : {}),
    ...(text('user') ? { auth: { username: text('user')!, passwordFile: text('password-file')! } } : {}),
    timeoutMs: timeout * 1000,
  };
}

/**
 * How long a member that finds no cluster keeps asking before it bootstraps one. A NetworkPolicy
 * engine admits a new pod's address a moment after the pod starts (kube-router: under a second);
 * a member whose volume was lost, refused by every member in that moment, would bootstrap beside
 * the running cluster and never start. Costs the first start of a cluster these seconds.
 */
const BOOTSTRAP_GRACE_MS = 10_000;

export type EtcdMemberArgs =
  { role: 'prepare'; options: PrepareOptions } | { role: 'leave'; options: LeaveOptions; kubeconfig?: string } | 'help';

export function parseEtcdMemberArgs(args: string[]): EtcdMemberArgs {
  if (args[0] === 'leave') {
    const { values } = parseArgs({
      args: args.slice(1),
      options: {
        ...CONNECTION,
        name: { type: 'string' },
        statefulset: { type: 'string' },
        namespace: { type: 'string' },
        kubeconfig: { type: 'string' },
      },
      strict: true,
    });
    if (values.help) return 'help';
    required(values, ['name', 'statefulset', 'namespace', 'endpoints']);
    return {
      role: 'leave',
      options: {
        ...connection(values, 20),
        name: values.name!,
        statefulSet: values.statefulset!,
        namespace: values.namespace!,
      },
      ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    };
  }
  const dash = args.indexOf('--');
  const { values } = parseArgs({
    args: dash >= 0 ? args.slice(0, dash) : args,
    options: {
      ...CONNECTION,
      name: { type: 'string' },
      'peer-url': { type: 'string' },
      'data-dir': { type: 'string' },
      'initial-cluster': { type: 'string' },
      'initial-cluster-file': { type: 'string' },
      'config-out': { type: 'string' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  required(values, ['name', 'peer-url', 'data-dir', 'endpoints', 'config-out']);
  if (!values['initial-cluster'] === !values['initial-cluster-file'])
    throw new Error('give one of --initial-cluster and --initial-cluster-file');
  return {
    role: 'prepare',
    options: {
      ...connection(values, 300),
      name: values.name!,
      peerUrl: values['peer-url']!,
      dataDir: values['data-dir']!,
      initialCluster: values['initial-cluster']
        ? { value: values['initial-cluster'] }
        : { file: values['initial-cluster-file']! },
      configOut: values['config-out']!,
      etcdFlags: dash >= 0 ? args.slice(dash + 1) : [],
      bootstrapGraceMs: BOOTSTRAP_GRACE_MS,
    },
  };
}

const command: Subcommand = {
  async run(args) {
    let parsed: EtcdMemberArgs;
    try {
      parsed = parseEtcdMemberArgs(args);
    } catch (e) {
      process.stderr.write(`etcdns etcd-member: ${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (parsed === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    let code = 0;
    try {
      if (parsed.role === 'prepare') await prepareMember(parsed.options);
      else {
        // Checked now, so a sidecar that could never decide fails at start-up, not at the end.
        const kube = new KubeClient(loadKubeTarget(parsed.kubeconfig));
        log(`leave: waiting for termination of ${parsed.options.name}`);
        // A signal handler alone does not keep Node's event loop alive: a timer does.
        const idle = setInterval(() => {}, 2 ** 30);
        await new Promise((resolve) => process.once('SIGTERM', resolve));
        clearInterval(idle);
        await leave(parsed.options, kube);
      }
    } catch (e) {
      process.stderr.write(`etcdns etcd-member: ${(e as Error).message}\n`);
      code = 1;
    }
    // The etcd3 client keeps retrying a member list that nobody answered in the background after
    // close() (seen: an init container stayed up for two and a half minutes after writing the
    // config at bootstrap), so the process ends here.
    process.exit(code);
  },
};
export default command;
