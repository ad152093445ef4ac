// `etcdns etcd-member leave`: a sidecar of each etcd member that idles until its pod terminates,
// then removes the member when the StatefulSet was scaled below it (leave-plan.ts), through the
// members that stay; a pod that stops for any other reason stays a member. As a native sidecar
// it is stopped after etcd, so it removes a member that has already stopped: the others keep
// their quorum throughout (5 -> 3: 3 of 5 running, then 3 of 4, then 3 of 3).
import type { KubeClient } from '../kube/kube-client.ts';
import { KubeApiError } from '../kube/kube-client.ts';
import { planFromReplicas, planLeave, type LeavePlan } from './leave-plan.ts';
import { openCluster, type MemberConnection } from './member-api.ts';
import { log, sleep } from './prepare-member.ts';

export interface LeaveOptions extends MemberConnection {
  name: string;
  statefulSet: string;
  namespace: string;
  /** Give up after this long; below the pod's termination grace period. */
  timeoutMs: number;
}

/** spec.replicas of the StatefulSet, or undefined when it is gone. */
export async function statefulSetReplicas(kube: KubeClient, namespace: string, name: string) {
  try {
    const sts = await kube.request<{ spec?: { replicas?: number } }>(
      'GET',
      `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/statefulsets/${encodeURIComponent(name)}`,
    );
    // The API server defaults replicas to 1.
    return sts.spec?.replicas ?? 1;
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return undefined;
    throw e;
  }
}

/** Decides and, for a scale-down, removes the member; retried until the deadline. */
export async function leave(o: LeaveOptions, kube: KubeClient, open = openCluster): Promise<LeavePlan> {
  const deadline = Date.now() + o.timeoutMs;
  for (let attempt = 1; ; attempt++) {
    const api = open(o);
    try {
      const situation = {
        name: o.name,
        statefulSet: o.statefulSet,
        replicas: await statefulSetReplicas(kube, o.namespace, o.statefulSet),
      };
      let plan = planFromReplicas(situation);
      if (!plan) {
        const members = await api.members();
        if (!members) throw new Error('no member answers the member list');
        plan = planLeave({ ...situation, members });
      }
      log(`leave: ${plan.action}: ${plan.reason}`);
      if (plan.action === 'remove') {
        await api.remove(plan.id);
        log(`leave: removed member ${plan.id} (${o.name})`);
      }
      return plan;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      log(`leave: not yet (attempt ${attempt}): ${(e as Error).message}`);
      await sleep(1000);
    } finally {
      api.close();
    }
  }
}
