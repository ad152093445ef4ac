// A 3-member etcd in the prod shape on a real single-node Kubernetes (test/support/cluster.ts):
// TLS on client and peer ports from the Secrets the constructs expect (made here with openssl,
// with exactly the SANs the constructs document), the cluster formed from the StatefulSet alone; deleting one member's
// pod under a steady dig load loses no query and the member rejoins with its data; the
// PodDisruptionBudget lets one eviction through and refuses a second.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { writeManifests } from '../../src/constructs/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { startCluster, type Cluster } from '../support/cluster.ts';
import { clusterImages, type ClusterImages } from '../support/cluster-images.ts';
import { answerData } from '../support/dig.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { stopAll } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
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
import { digLoad, ETCD_TLS_PROPS as TLS, etcdTls, members, STS, type EtcdTls } from './etcd-support.ts';

const ZONE = 'dev.example.org';

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
let tls: EtcdTls;
const figures: string[] = [];

describe('a 3-member etcd with TLS (the prod shape) on a real single-node cluster', { timeout: 1_200_000 }, () => {
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

  test('(3a) the StatefulSet alone forms a 3-member cluster over TLS; the DNS server reads it with its client certificate', async () => {
    const dir = tempDir('dist-etcd3');
    writeManifests(
      join(dir, 'etcd3'),
      synthStack(
        neverPull({ ...dev, etcd: { replicas: 3, storage: { size: '1Gi' }, antiAffinity: 'preferred', tls: TLS } }),
      ),
    );
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    tls = etcdTls();
    for (const body of tls.secrets) await core.createNamespacedSecret({ namespace: NAMESPACE, body });
    await createEtcdVolumes(cluster, { statefulSet: STS, ordinals: [0, 1, 2], size: '1Gi' });
    const t0 = performance.now();
    applyKustomization(cluster, writeOverlay(join(dir, 'etcd3'), images));
    dns = await dnsService(cluster.admin, 'etcdns-server-internal');
    try {
      await timeUntil(
        'the first SOA answer through the ClusterIP',
        async () => {
          await failOnCrashLoop(cluster);
          const r = await digAt(dns.clusterIp, 53, ZONE, 'SOA');
          return r.status === 'NOERROR' && r.flags.includes('aa');
        },
        300_000,
        200,
      );
      figures.push(`apply -> first answer ${Math.round(performance.now() - t0)} ms`);
      const etcdPods = await waitPodsReady(cluster.admin, component('etcd'), 3, 240_000);
      figures.push(`apply -> 3 members Ready ${Math.round(performance.now() - t0)} ms`);
      for (const p of etcdPods) assert.equal(p.restarts, 0, `${p.name} restarted`);
      const list = await members(tls, etcdPods[0]!.ip!);
      assert.deepEqual(
        list.map((m) => m.name),
        [`${STS}-0`, `${STS}-1`, `${STS}-2`],
      );
      await waitPodsReady(cluster.admin, component('server-internal'), 1);
      await waitPodsReady(cluster.admin, component('controller'), 1);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}`, { cause: e });
    }
  });

  test('(3b) deleting one member pod under a steady dig load loses no query; the member rejoins with its data', async () => {
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
    const [first] = await pods(cluster.admin, `${component('etcd')},statefulset.kubernetes.io/pod-name=${STS}-1`);
    const before = await members(tls, first!.ip!);
    const load = digLoad(dns, `steady.${ZONE}`, '10.213.200.70');
    const t0 = performance.now();
    cluster.kubectl(['delete', 'pod', '-n', NAMESPACE, `${STS}-1`, '--wait=false']);
    await new Promise((r) => setTimeout(r, 2000));
    const back = await waitPodsReady(cluster.admin, component('etcd'), 3, 180_000);
    const rejoinMs = Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 3000));
    const { queries, failures } = await load.stop();
    figures.push(`member pod deleted -> Ready again ${rejoinMs} ms; ${queries} queries, ${failures.length} failed`);
    assert.deepEqual(failures, [], `${failures.length} of ${queries} queries failed`);
    const after = await members(tls, back.find((p) => p.name === `${STS}-0`)!.ip!);
    assert.deepEqual(after, before, 'the same three members (same IDs): the member rejoined with its data');
    const restarted = back.find((p) => p.name === `${STS}-1`)!;
    assert.equal(restarted.restarts, 0);
  });

  test('(3c) the PodDisruptionBudget lets one eviction through and refuses a second', async () => {
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const evict = (name: string) =>
      core.createNamespacedPodEviction({
        name,
        namespace: NAMESPACE,
        body: { metadata: { name, namespace: NAMESPACE } },
      });
    await evict(`${STS}-2`);
    const refused = await evict(`${STS}-0`).then(
      () => undefined,
      (e: { code?: number; body?: string }) => e,
    );
    assert.ok(refused, 'the second eviction went through');
    assert.equal(refused.code, 429, `refused with ${refused.code}: ${refused.body}`);
    assert.match(String(refused.body), /disruption budget/i);
    await waitPodsReady(cluster.admin, component('etcd'), 3, 180_000);
  });
});
