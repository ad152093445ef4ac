// What an etcd member must do before etcd starts, decided from what it finds: its data directory
// and the cluster's member list (when a cluster answers). Pure: the command does the I/O.
//
//   data directory present        -> restart: etcd resumes from its data (flags about the initial
//                                    cluster are ignored by etcd then)
//   no data, no cluster answers   -> bootstrap with the static initial cluster, when this member is
//                                    one of it (the command asks again for a grace period first);
//                                    otherwise wait (a member beyond the bootstrap set cannot start
//                                    a cluster of its own)
//   no data, a cluster answers    -> join: `member add` this member (after `member remove` of an
//                                    old entry of the same name that has run: its volume was
//                                    lost), then start with state "existing" and the cluster the
//                                    add returned; an entry that never ran is started as it is

export interface ClusterMember {
  /** Member ID as etcd prints it (decimal string). */
  id: string;
  /** Empty for a member that was added but has not started yet. */
  name: string;
  peerUrls: string[];
  /** Empty until the member has started once (it publishes them then). */
  clientUrls: string[];
}

export interface MemberSituation {
  name: string;
  peerUrl: string;
  /** The data directory holds a member (member/wal exists). */
  hasData: boolean;
  /** The static bootstrap cluster, name -> peer URL (the synthesized --initial-cluster). */
  bootstrap: Map<string, string>;
  /** The member list of a cluster that answered, or undefined when none did. */
  members: ClusterMember[] | undefined;
}

export type MemberPlan =
  | { action: 'restart' }
  | { action: 'bootstrap'; initialCluster: string }
  | { action: 'join'; removeId?: string; reason: string }
  | { action: 'existing'; initialCluster: string; reason: string }
  | { action: 'wait'; reason: string };

export function planMember(s: MemberSituation): MemberPlan {
  if (s.hasData) return { action: 'restart' };
  if (!s.members) {
    if (!s.bootstrap.has(s.name))
      return { action: 'wait', reason: `no cluster answers and ${s.name} is not in the bootstrap cluster` };
    return { action: 'bootstrap', initialCluster: formatCluster([...s.bootstrap]) };
  }
  const same = s.members.find((m) => m.name === s.name || m.peerUrls.includes(s.peerUrl));
  if (!same) return { action: 'join', reason: `${s.name} is not a member yet` };
  if (same.clientUrls.length === 0) {
    // Listed but never started: a bootstrap member the others formed the cluster without (it
    // joins with the same static cluster), or one added earlier whose etcd never ran.
    if (s.bootstrap.has(s.name)) return { action: 'bootstrap', initialCluster: formatCluster([...s.bootstrap]) };
    return {
      action: 'existing',
      initialCluster: joinedCluster(s.members, s.name, s.peerUrl),
      reason: `${s.name} was added as member ${same.id} but never started`,
    };
  }
  return {
    action: 'join',
    removeId: same.id,
    reason: `${s.name} is member ${same.id} but its data directory is empty (a lost volume): replace it`,
  };
}

/** The --initial-cluster value after `member add`: every member, the new one under its own name. */
export function joinedCluster(members: ClusterMember[], name: string, peerUrl: string): string {
  const entries: [string, string][] = [];
  for (const m of members) {
    // Another member added but not started yet has no name: it stays in as "=url", as
    // `etcdctl member add` prints it (etcd compares the peer URLs with the cluster's).
    const memberName = m.peerUrls.includes(peerUrl) ? name : m.name;
    for (const url of m.peerUrls) entries.push([memberName, url]);
  }
  if (!entries.some(([n]) => n === name)) entries.push([name, peerUrl]);
  return formatCluster(entries);
}

export function parseCluster(value: string): Map<string, string> {
  const cluster = new Map<string, string>();
  for (const part of value.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`initial cluster entry "${part}" is not name=peer-url`);
    cluster.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return cluster;
}

function formatCluster(entries: [string, string][]): string {
  return entries.map(([n, u]) => `${n}=${u}`).join(',');
}
