// etcd membership that follows the props, as synthesized: `etcdns etcd-member` runs in each etcd
// pod as an init container (bootstrap, join, rejoin; it writes etcd's config file) and as a
// native sidecar that removes the member when a scale-down ends its pod. On a real single-node
// cluster with the 3-member TLS shape, every change made in code (the props) and applied:
//   - the StatefulSet bootstraps the cluster through it;
//   - a member whose volume is lost (its claim deleted with its pod) rejoins as a new member
//     (member remove + add), under a steady dig load with no lost query;
//   - replicas 3 -> 5 adds two members (member add), 5 -> 3 removes them (member remove), with
//     quorum kept throughout (a linearizable health check of a staying member never fails), the
//     staying members never restarted, and no lost query.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { waitFor } from '../support/process.ts';
import {
  applyTlsEtcd,
  digLoad,
  members,
  prepareTlsEtcd,
  publishSteady,
  quorumWatch,
  STS,
  type EtcdTls,
} from './etcd-support.ts';
import {
  component,
  createEtcdVolumes,
  diagnose,
  dnsService,
  NAMESPACE,
  pods,
  SERVER,
  soaAnswered,
  waitPodsReady,
  type DnsService,
} from './stack-support.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
let tls: EtcdTls;
const figures: string[] = [];

async function memberNames(): Promise<{ name: string; id: string }[]> {
  const [p] = await pods(cluster.admin, `${component('etcd')},statefulset.kubernetes.io/pod-name=${STS}-0`);
  return members(tls, p!.ip!);
}

function initLogs(pod: string): string {
  return cluster.kubectl(['logs', '-n', NAMESPACE, pod, '-c', 'etcd-member'], undefined, true);
}

describe('etcd membership through etcdns etcd-member on a real single-node cluster', { timeout: 1_500_000 }, () => {
  before(async () => ({ cluster, images } = await startSuiteCluster(figures)));
  after(() => stopSuiteCluster(cluster, figures));

  test('(7a) the StatefulSet bootstraps 3 members through the init container', async () => {
    tls = await prepareTlsEtcd(cluster, [0, 1, 2, 3, 4]);
    const t0 = performance.now();
    applyTlsEtcd(cluster, images, 3);
    dns = await dnsService(cluster.admin, SERVER);
    await untilStackUp(cluster, 'the first SOA answer', () => soaAnswered(dns.clusterIp, 53), {
      timeoutMs: 300_000,
      intervalMs: 200,
    });
    await diagnosed(cluster, () => waitPodsReady(cluster.admin, component('etcd'), 3, 240_000));
    figures.push(`apply -> 3 members Ready ${Math.round(performance.now() - t0)} ms`);
    assert.deepEqual(
      (await memberNames()).map((m) => m.name),
      [`${STS}-0`, `${STS}-1`, `${STS}-2`],
    );
    assert.match(initLogs(`${STS}-0`), /etcd-member: bootstrap/);
  });

  test('(7b) a member whose volume was lost rejoins as a new member, with no lost query', async () => {
    await publishSteady(cluster, dns);
    const before = await memberNames();
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const load = digLoad(dns);
    const t0 = performance.now();
    // The volume goes with its claim; the StatefulSet makes a new claim, bound to a new, empty volume.
    const claim = `data-${STS}-1`;
    const oldUid = (await core.readNamespacedPersistentVolumeClaim({ name: claim, namespace: NAMESPACE })).metadata
      ?.uid;
    cluster.kubectl(['delete', 'pvc', '-n', NAMESPACE, claim, '--wait=false']);
    cluster.kubectl(['delete', 'pod', '-n', NAMESPACE, `${STS}-1`, '--wait=false']);
    await waitFor(
      'the old claim gone',
      async () =>
        core
          .readNamespacedPersistentVolumeClaim({ name: claim, namespace: NAMESPACE })
          .then((c) => (c.metadata?.uid !== oldUid ? true : undefined))
          .catch((e: { code?: number }) => (e.code === 404 ? true : undefined)),
      60_000,
      250,
    );
    await createEtcdVolumes(cluster, { statefulSet: STS, ordinals: [1], size: '1Gi' });
    try {
      await waitFor(
        'three members, etcdns-etcd-1 under a new ID',
        async () => {
          const ready = (await pods(cluster.admin, component('etcd'))).filter((p) => p.ready).length;
          if (ready !== 3) return undefined;
          const now = await memberNames();
          const old = before.find((m) => m.name === `${STS}-1`)!.id;
          return now.length === 3 && now.every((m) => m.name) && !now.some((m) => m.id === old) ? now : undefined;
        },
        240_000,
        500,
      );
    } catch (e) {
      await load.stop();
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}\n${initLogs(`${STS}-1`)}`, { cause: e });
    }
    const rejoinMs = Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 2000));
    const { queries, failures } = await load.stop();
    figures.push(`lost volume -> new member Ready ${rejoinMs} ms; ${queries} queries, ${failures.length} failed`);
    assert.match(initLogs(`${STS}-1`), /a lost volume[^\n]*\n[^\n]*removed member/);
    assert.deepEqual(failures, []);
  });

  test('(7c) replicas 3 -> 5 in the props adds two members with member add, with no lost query', async () => {
    const uids = async () => (await pods(cluster.admin, component('etcd'))).map((p) => `${p.name}/${p.uid}`).sort();
    const before = await uids();
    const load = digLoad(dns);
    const t0 = performance.now();
    applyTlsEtcd(cluster, images, 5);
    try {
      await waitFor(
        'five started members',
        async () => {
          const ready = (await pods(cluster.admin, component('etcd'))).filter((p) => p.ready).length;
          if (ready !== 5) return undefined;
          const now = await memberNames();
          return now.length === 5 && now.every((m) => m.name) ? now : undefined;
        },
        480_000,
        1000,
      );
      // The template changed (the flags list five members): wait until the roll is complete.
      await waitFor(
        'the StatefulSet rolled',
        async () => {
          const s = await cluster.admin
            .makeApiClient(k8s.AppsV1Api)
            .readNamespacedStatefulSet({ name: STS, namespace: NAMESPACE });
          const st = s.status;
          return st?.updatedReplicas === 5 && st.readyReplicas === 5 && st.currentRevision === st.updateRevision
            ? true
            : undefined;
        },
        480_000,
        1000,
      );
    } catch (e) {
      await load.stop();
      const inits = [3, 4].map((i) => `--- etcd-member of ${STS}-${i} ---\n${initLogs(`${STS}-${i}`)}`);
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}\n${inits.join('\n')}`, { cause: e });
    }
    const ms = Math.round(performance.now() - t0);
    const { queries, failures } = await load.stop();
    figures.push(`3 -> 5 members ${ms} ms; ${queries} queries, ${failures.length} failed`);
    assert.deepEqual(
      (await memberNames()).map((m) => m.name),
      [0, 1, 2, 3, 4].map((i) => `${STS}-${i}`),
    );
    assert.match(initLogs(`${STS}-3`), /added etcdns-etcd-3/);
    const after = await uids();
    assert.deepEqual(
      before.filter((p) => !after.includes(p)),
      [],
      'the members there before were not restarted (the member count is not in the pod template)',
    );
    assert.deepEqual(failures, []);
  });

  test('(7d) replicas 5 -> 3 in the props removes two members with member remove: quorum kept, no member restarted', async () => {
    const staying = async () =>
      (await pods(cluster.admin, component('etcd')))
        .filter((p) => [0, 1, 2].some((i) => p.name === `${STS}-${i}`))
        .map((p) => `${p.name}/${p.uid}`)
        .sort();
    const before = await staying();
    const [first] = await pods(cluster.admin, `${component('etcd')},statefulset.kubernetes.io/pod-name=${STS}-0`);
    const quorum = quorumWatch(first!.ip!);
    const load = digLoad(dns);
    const t0 = performance.now();
    applyTlsEtcd(cluster, images, 3);
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const gone = (name: string) =>
      core.readNamespacedPod({ name, namespace: NAMESPACE }).then(
        () => false,
        (e: { code?: number }) => e.code === 404,
      );
    try {
      await waitFor(
        'three members, pods 3 and 4 gone',
        async () => {
          if (!(await gone(`${STS}-3`)) || !(await gone(`${STS}-4`))) return undefined;
          const all = await pods(cluster.admin, component('etcd'));
          if (all.length !== 3 || all.some((p) => !p.ready)) return undefined;
          const now = await memberNames();
          return now.length === 3 ? now : undefined;
        },
        300_000,
        1000,
      );
    } catch (e) {
      await load.stop();
      await quorum.stop();
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}`, { cause: e });
    }
    const ms = Math.round(performance.now() - t0);
    // Settle: a later failure would still count.
    await new Promise((r) => setTimeout(r, 3000));
    const { queries, failures } = await load.stop();
    const health = await quorum.stop();
    figures.push(
      `5 -> 3 members ${ms} ms; ${queries} queries, ${failures.length} failed; ${health.checks} quorum checks, ${health.failures.length} failed, slowest ${health.slowestMs} ms`,
    );
    assert.deepEqual(
      (await memberNames()).map((m) => m.name),
      [0, 1, 2].map((i) => `${STS}-${i}`),
    );
    assert.deepEqual(await staying(), before, 'the staying members were not restarted (no roll)');
    assert.deepEqual(health.failures, [], 'a linearizable read answered throughout');
    assert.deepEqual(failures, []);
  });
});
