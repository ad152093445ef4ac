// Before etcd starts (an init container): look at the data directory and ask the other members
// for the member list; add this member to a running cluster (replacing an old entry of the same
// name whose volume was lost) or bootstrap the static cluster; then write etcd's configuration
// file: the etcd flags, with --initial-cluster and --initial-cluster-state as the situation needs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dump } from 'js-yaml';
import { etcdConfig } from './etcd-config.ts';
import { openCluster, type MemberApi, type MemberConnection } from './member-api.ts';
import { joinedCluster, parseCluster, planMember, type ClusterMember, type MemberPlan } from './member-plan.ts';

export interface PrepareOptions extends MemberConnection {
  name: string;
  peerUrl: string;
  dataDir: string;
  /** The static bootstrap cluster, name=peer-url,... (given, or read from a file). */
  initialCluster: { value: string } | { file: string };
  configOut: string;
  timeoutMs: number;
  etcdFlags: string[];
  /** With no cluster answering, keep asking this long before bootstrapping one; default 0. */
  bootstrapGraceMs?: number;
}

export interface MemberOutcome {
  /** The plan of the attempt that succeeded (a retry plans again from the member list). */
  plan: MemberPlan;
  /** The member ID removed as a lost member's, in any attempt. */
  removed?: string;
}

export const log = (msg: string) => process.stderr.write(`etcd-member: ${msg}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Decides, changes the membership if needed, and writes the config file. */
export async function prepareMember(o: PrepareOptions, open = openCluster): Promise<MemberOutcome> {
  let removed: string | undefined;
  const started = Date.now();
  const deadline = started + o.timeoutMs;
  // A file (the StatefulSet's ConfigMap) keeps the member count out of the pod template, so
  // changing it scales the StatefulSet without rolling the members that stay.
  const bootstrap = parseCluster(
    'file' in o.initialCluster ? readFileSync(o.initialCluster.file, 'utf8').trim() : o.initialCluster.value,
  );
  const hasData = existsSync(join(o.dataDir, 'member', 'wal'));
  for (let attempt = 0; ; attempt++) {
    let api: MemberApi | undefined;
    try {
      const members = hasData ? undefined : await (api = open(o)).members();
      const plan = planMember({ name: o.name, peerUrl: o.peerUrl, hasData, bootstrap, members });
      log(`${plan.action}${'reason' in plan ? `: ${plan.reason}` : ''}`);
      if (plan.action === 'wait') throw new Error(plan.reason);
      // No answer may mean "not admitted yet" (a NetworkPolicy): wait before starting a cluster.
      if (plan.action === 'bootstrap' && !members && Date.now() - started < (o.bootstrapGraceMs ?? 0))
        throw new Error('no member answers yet: bootstrapping after the grace period');
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

function writeConfig(o: PrepareOptions, initialCluster: string | undefined, state: 'new' | 'existing'): void {
  const config = etcdConfig(o.etcdFlags, {
    ...(initialCluster ? { 'initial-cluster': initialCluster } : {}),
    'initial-cluster-state': state,
  });
  mkdirSync(dirname(o.configOut), { recursive: true });
  writeFileSync(o.configOut, dump(config, { lineWidth: -1 }));
}
