// Whether a terminating etcd pod leaves the cluster: only when the StatefulSet was scaled below
// it. Every other termination (a roll, an eviction, a node drain, a crash) keeps the member, whose
// data directory brings it back. Pure: `etcdns etcd-member leave` does the I/O.
//
// Scaling down without this leaves the removed pods listed as members: 5 -> 3 keeps a quorum of
// 3 of 5 with no margin, and the next restart of any survivor loses it.
import type { ClusterMember } from './member-plan.ts';

export interface LeaveSituation {
  /** This pod's name, `<statefulSet>-<ordinal>`. */
  name: string;
  statefulSet: string;
  /** The StatefulSet's spec.replicas now, or undefined when the StatefulSet is gone. */
  replicas: number | undefined;
  members: ClusterMember[];
}

export type LeavePlan = { action: 'stay'; reason: string } | { action: 'remove'; id: string; reason: string };

/**
 * The plan the StatefulSet alone decides: every case but a pod at or above replicas (undefined),
 * so a restart, a roll or a deletion needs no member to answer: etcd has stopped before this
 * sidecar, and with one member, or every pod going at once, none is left to ask.
 */
export function planFromReplicas(s: Omit<LeaveSituation, 'members'>): LeavePlan | undefined {
  const ordinal = ordinalOf(s.name, s.statefulSet);
  if (ordinal === undefined)
    return { action: 'stay', reason: `${s.name} is not a pod of StatefulSet ${s.statefulSet}` };
  if (s.replicas === undefined)
    return { action: 'stay', reason: `StatefulSet ${s.statefulSet} is gone: the whole cluster is being deleted` };
  // Zero is a pause: every member keeps its place for the scale back up.
  if (s.replicas === 0) return { action: 'stay', reason: `StatefulSet ${s.statefulSet} is scaled to zero` };
  if (ordinal < s.replicas)
    return {
      action: 'stay',
      reason: `ordinal ${ordinal} is below replicas ${s.replicas}: a restart, not a scale-down`,
    };
  return undefined;
}

export function planLeave(s: LeaveSituation): LeavePlan {
  const decided = planFromReplicas(s);
  if (decided) return decided;
  const own = s.members.find((m) => m.name === s.name);
  if (!own) return { action: 'stay', reason: `${s.name} is not a member any more` };
  return {
    action: 'remove',
    id: own.id,
    reason: `ordinal ${ordinalOf(s.name, s.statefulSet)} is at or above replicas ${s.replicas}`,
  };
}

function ordinalOf(name: string, statefulSet: string): number | undefined {
  if (!name.startsWith(`${statefulSet}-`)) return undefined;
  const rest = name.slice(statefulSet.length + 1);
  return /^(?:0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}
