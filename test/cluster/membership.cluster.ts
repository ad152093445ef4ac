// etcd membership that follows the props, with `etcdns etcd-member` as an init container in the
// etcd pods (src/runtime/etcd-member/): the constructs do not emit it yet, so an overlay patch
// adds it here the way they would (the init container gets the synthesized etcd flags and
// writes etcd's config file; etcd starts with --config-file). On a real single-node cluster with
// the 3-member TLS shape:
//   - the StatefulSet bootstraps the cluster through it;
//   - a member whose volume is lost (its claim deleted with its pod) rejoins as a new member
//     (member remove + add), under a steady dig load with no lost query;
//   - replicas 3 -> 5 in the props adds two members (member add), quorum kept, no lost query.
// Not covered: 5 -> 3 (see the last test's note).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { writeManifests } from '../../src/constructs/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { startCluster, type Cluster } from '../support/cluster.ts';
import { clusterImages, type ClusterImages } from '../support/cluster-images.ts';
import { answerData } from '../support/dig.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { stopAll, waitFor } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { digLoad, ETCD_TLS_PROPS, etcdTls, members, STS, type EtcdTls } from './etcd-support.ts';
import {
  applyKustomization,
  component,
  createEtcdVolumes,
  diagnose,
  digAt,
  dnsService,
  failOnCrashLoop,
  NAMESPACE,
  neverPull,
  pods,
  timeUntil,
  waitPodsReady,
  writeOverlay,
  type DnsService,
} from './stack-support.ts';

const ZONE = 'dev.example.org';
const CONFIG_DIR = '/run/etcd-member';
const SERVER_TLS = '/etc/etcd/tls/server';

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
let tls: EtcdTls;
const figures: string[] = [];

/** Synthesizes the 3-member TLS shape with `replicas` members and the etcd-member patch; applies it. */
function applyWithReplicas(replicas: number): void {
  const dir = tempDir(`dist-members-${replicas}`);
  writeManifests(
    join(dir, 'env'),
    synthStack(
      neverPull({
        ...dev,
        etcd: { replicas, storage: { size: '1Gi' }, antiAffinity: 'preferred', tls: ETCD_TLS_PROPS },
      }),
    ),
  );
  const sts = load(readFileSync(join(dir, 'env', `statefulset-${STS}.yaml`), 'utf8')) as k8s.V1StatefulSet;
  const etcdArgs = sts.spec!.template.spec!.containers[0]!.args!;
  const initialCluster = etcdArgs
    .find((a) => a.startsWith('--initial-cluster='))!
    .split('=')
    .slice(1)
    .join('=');
  const ops = [
    {
      op: 'add',
      path: '/spec/template/spec/initContainers',
      value: [
        {
          name: 'etcd-member',
          image: 'ghcr.io/etcdns/etcdns:0.1.0',
          imagePullPolicy: 'Never',
          args: [
            'etcd-member',
            '--name=$(POD_NAME)',
            `--peer-url=https://$(POD_NAME).${STS}-peer:2380`,
            '--data-dir=/var/lib/etcd/data',
            `--initial-cluster=${initialCluster}`,
            // The client Service: only Ready members, so nothing answers while the cluster bootstraps.
            `--endpoints=https://${STS}:2379`,
            `--cacert=${SERVER_TLS}/ca.crt`,
            `--cert=${SERVER_TLS}/tls.crt`,
            `--key=${SERVER_TLS}/tls.key`,
            `--config-out=${CONFIG_DIR}/etcd.yaml`,
            '--timeout=600',
            '--',
            ...etcdArgs,
          ],
          env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
          },
          volumeMounts: [
            { name: 'data', mountPath: '/var/lib/etcd' },
            { name: 'tls-server', mountPath: SERVER_TLS, readOnly: true },
            { name: 'member-config', mountPath: CONFIG_DIR },
          ],
        },
      ],
    },
    { op: 'replace', path: '/spec/template/spec/containers/0/args', value: [`--config-file=${CONFIG_DIR}/etcd.yaml`] },
    {
      op: 'add',
      path: '/spec/template/spec/containers/0/volumeMounts/-',
      value: { name: 'member-config', mountPath: CONFIG_DIR, readOnly: true },
    },
    { op: 'add', path: '/spec/template/spec/volumes/-', value: { name: 'member-config', emptyDir: {} } },
  ];
  applyKustomization(cluster, writeOverlay(join(dir, 'env'), images, [{ kind: 'StatefulSet', name: STS, ops }]));
}

async function memberNames(): Promise<{ name: string; id: string }[]> {
  const [p] = await pods(cluster.admin, `${component('etcd')},statefulset.kubernetes.io/pod-name=${STS}-0`);
  return members(tls, p!.ip!);
}

function initLogs(pod: string): string {
  return cluster.kubectl(['logs', '-n', NAMESPACE, pod, '-c', 'etcd-member'], undefined, true);
}

describe('etcd membership through etcdns etcd-member on a real single-node cluster', { timeout: 1_500_000 }, () => {
  before(async () => {
    images = clusterImages();
    cluster = await startCluster({ images: images.archives });
  });

  after(async () => {
    if (cluster) {
      const notes = await cluster.stop();
      console.log(`# teardown: ${notes.join('; ') || 'nothing left behind'}`);
    }
    await stopAll();
    console.log(`# figures: ${figures.join('; ')}`);
  });

  test('(7a) the StatefulSet bootstraps 3 members through the init container', async () => {
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    tls = etcdTls();
    for (const body of tls.secrets) await core.createNamespacedSecret({ namespace: NAMESPACE, body });
    await createEtcdVolumes(cluster, { statefulSet: STS, ordinals: [0, 1, 2, 3, 4], size: '1Gi' });
    const t0 = performance.now();
    applyWithReplicas(3);
    dns = await dnsService(cluster.admin, 'etcdns-server-internal');
    try {
      await timeUntil(
        'the first SOA answer',
        async () => {
          await failOnCrashLoop(cluster);
          const r = await digAt(dns.clusterIp, 53, ZONE, 'SOA');
          return r.status === 'NOERROR';
        },
        300_000,
        200,
      );
      await waitPodsReady(cluster.admin, component('etcd'), 3, 240_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}`, { cause: e });
    }
    figures.push(`apply -> 3 members Ready ${Math.round(performance.now() - t0)} ms`);
    assert.deepEqual(
      (await memberNames()).map((m) => m.name),
      [`${STS}-0`, `${STS}-1`, `${STS}-2`],
    );
    assert.match(initLogs(`${STS}-0`), /etcd-member: bootstrap/);
  });

  test('(7b) a member whose volume was lost rejoins as a new member, with no lost query', async () => {
    await createLoadBalancerService(cluster.admin, {
      name: 'steady',
      annotations: { 'external-dns.alpha.kubernetes.io/hostname': `steady.${ZONE}` },
      addresses: [{ ip: '10.213.200.70' }],
    });
    await timeUntil(
      'steady answered',
      async () => answerData(await digAt(dns.clusterIp, 53, `steady.${ZONE}`), 'A').join() === '10.213.200.70',
      30_000,
    );
    const before = await memberNames();
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const load = digLoad(dns, `steady.${ZONE}`, '10.213.200.70');
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
    const load = digLoad(dns, `steady.${ZONE}`, '10.213.200.70');
    const t0 = performance.now();
    applyWithReplicas(5);
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
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}\n${initLogs(`${STS}-3`)}`, { cause: e });
    }
    const ms = Math.round(performance.now() - t0);
    const { queries, failures } = await load.stop();
    figures.push(`3 -> 5 members ${ms} ms; ${queries} queries, ${failures.length} failed`);
    assert.deepEqual(
      (await memberNames()).map((m) => m.name),
      [0, 1, 2, 3, 4].map((i) => `${STS}-${i}`),
    );
    assert.match(initLogs(`${STS}-3`), /added etcdns-etcd-3/);
    assert.deepEqual(failures, []);
    // 5 -> 3 is not done by etcd-member: the StatefulSet deletes pods 4 and 3 while they are still
    // members (3 of 5 alive: quorum held, no margin), and the template change then restarts the
    // others one by one (2 of 5: quorum lost). The members must be removed first: see README.
  });
});
