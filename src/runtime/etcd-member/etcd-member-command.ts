// `etcdns etcd-member`: run before etcd in each etcd pod (an init container). It looks at the
// data directory and asks the other members for the member list, adds this member to a running
// cluster (replacing an old entry of the same name whose volume was lost) or bootstraps the
// static cluster, and writes etcd's configuration file: the etcd flags given after `--`, with
// --initial-cluster and --initial-cluster-state as the situation needs. etcd then starts with
// `etcd --config-file FILE`. No shell, no etcdctl.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { dump } from 'js-yaml';
import type { Subcommand } from '../subcommand.ts';
import { joinedCluster, parseCluster, planMember, type ClusterMember, type MemberPlan } from './member-plan.ts';
import { etcdConfig } from './etcd-config.ts';
import { openCluster, type MemberApi } from './member-api.ts';

export const USAGE = `Usage: etcdns etcd-member --name NAME --peer-url URL --data-dir DIR --initial-cluster N=URL,...
       --endpoints URL,... --config-out FILE [--cacert F --cert F --key F] [--timeout SECONDS] -- ETCD-FLAGS...

Prepares one etcd member before etcd starts (an init container) and writes etcd's config file:
  data directory present          restart from it
  no cluster answers              bootstrap the static --initial-cluster (state new)
  a cluster answers               member add (after member remove of a same-named member whose
                                  volume was lost); state existing with the cluster add returned

Options:
  --name NAME             this member's name (the pod name)
  --peer-url URL          this member's peer URL
  --data-dir DIR          etcd's data directory (a member exists when DIR/member/wal does)
  --initial-cluster LIST  the static bootstrap cluster, name=peer-url,...
  --endpoints LIST        client URLs of the other members, asked for the member list
  --cacert, --cert, --key TLS files for the client connection (etcd's client-cert auth)
  --config-out FILE       where etcd's configuration file goes
  --timeout SECONDS       give up after this long (default 300)
`;

export interface EtcdMemberOptions {
  name: string;
  peerUrl: string;
  dataDir: string;
  initialCluster: string;
  endpoints: string[];
  configOut: string;
  tls?: { caFile: string; certFile?: string; keyFile?: string };
  timeoutMs: number;
  etcdFlags: string[];
}

export function parseEtcdMemberArgs(args: string[]): EtcdMemberOptions | 'help' {
  const dash = args.indexOf('--');
  const own = dash >= 0 ? args.slice(0, dash) : args;
  const etcdFlags = dash >= 0 ? args.slice(dash + 1) : [];
  const { values } = parseArgs({
    args: own,
    options: {
      name: { type: 'string' },
      'peer-url': { type: 'string' },
      'data-dir': { type: 'string' },
      'initial-cluster': { type: 'string' },
      endpoints: { type: 'string' },
      'config-out': { type: 'string' },
      cacert: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const required = ['name', 'peer-url', 'data-dir', 'initial-cluster', 'endpoints', 'config-out'] as const;
  const missing = required.filter((k) => !values[k]);
  if (missing.length) throw new Error(`missing ${missing.map((k) => `--${k}`).join(', ')}`);
  const timeout = Number(values.timeout ?? 300);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error(`--timeout: a positive number of seconds`);
  return {
    name: values.name!,
    peerUrl: values['peer-url']!,
    dataDir: values['data-dir']!,
    initialCluster: values['initial-cluster']!,
    endpoints: values.endpoints!.split(',').filter(Boolean),
    configOut: values['config-out']!,
    ...(values.cacert ? { tls: { caFile: values.cacert, certFile: values.cert, keyFile: values.key } } : {}),
    timeoutMs: timeout * 1000,
    etcdFlags,
  };
}

const log = (msg: string) => process.stderr.write(`etcd-member: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface MemberOutcome {
  /** The plan of the attempt that succeeded (a retry plans again from the member list). */
  plan: MemberPlan;
  /** The member ID removed as a lost member's, in any attempt. */
  removed?: string;
}

/** Decides, changes the membership if needed, and writes the config file. */
export async function prepareMember(o: EtcdMemberOptions, open = openCluster): Promise<MemberOutcome> {
  let removed: string | undefined;
  const deadline = Date.now() + o.timeoutMs;
  const bootstrap = parseCluster(o.initialCluster);
  const hasData = existsSync(join(o.dataDir, 'member', 'wal'));
  const others = o.endpoints;
  for (let attempt = 0; ; attempt++) {
    let api: MemberApi | undefined;
    try {
      const members = hasData ? undefined : await (api = open(others, o.tls)).members();
      const plan = planMember({ name: o.name, peerUrl: o.peerUrl, hasData, bootstrap, members });
      log(`${plan.action}${'reason' in plan ? `: ${plan.reason}` : ''}`);
      if (plan.action === 'wait') throw new Error(plan.reason);
      let initialCluster: string | undefined;
      let state: 'new' | 'existing' = 'existing';
      if (plan.action === 'bootstrap') {
        initialCluster = plan.initialCluster;
        state = 'new';
      } else if (plan.action === 'existing') {
        initialCluster = plan.initialCluster;
      } else if (plan.action === 'join') {
        if (plan.removeId) {
          await api!.remove(plan.removeId);
          removed = plan.removeId;
          log(`removed member ${plan.removeId}`);
        }
        const after: ClusterMember[] = await api!.add(o.peerUrl);
        log(`added ${o.name} (${o.peerUrl})`);
        initialCluster = joinedCluster(after, o.name, o.peerUrl);
      }
      writeConfig(o, initialCluster, state);
      return { plan, ...(removed ? { removed } : {}) };
    } catch (e) {
      if (Date.now() > deadline) throw e;
      log(`not yet (attempt ${attempt + 1}): ${(e as Error).message}`);
      await sleep(2000);
    } finally {
      api?.close();
    }
  }
}

function writeConfig(o: EtcdMemberOptions, initialCluster: string | undefined, state: 'new' | 'existing'): void {
  const config = etcdConfig(o.etcdFlags, {
    ...(initialCluster ? { 'initial-cluster': initialCluster } : {}),
    'initial-cluster-state': state,
  });
  mkdirSync(dirname(o.configOut), { recursive: true });
  writeFileSync(o.configOut, dump(config, { lineWidth: -1 }));
}

const command: Subcommand = {
  async run(args) {
    let options: EtcdMemberOptions | 'help';
    try {
      options = parseEtcdMemberArgs(args);
    } catch (e) {
      process.stderr.write(`etcdns etcd-member: ${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (options === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    let code = 0;
    try {
      await prepareMember(options);
    } catch (e) {
      process.stderr.write(`etcdns etcd-member: ${(e as Error).message}\n`);
      code = 1;
    }
    // A one-shot init container ends here: the etcd3 client keeps retrying a member list that
    // nobody answered in the background after close() (seen: the init container stayed up for
    // two and a half minutes after writing the config at bootstrap).
    process.exit(code);
  },
};
export default command;
