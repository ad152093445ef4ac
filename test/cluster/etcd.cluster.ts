// A 3-member etcd in the prod shape on a real single-node Kubernetes (test/support/cluster.ts):
// TLS on client and peer ports from the Secrets the constructs expect (made here with openssl,
// with exactly the SANs the constructs document), the cluster formed from the StatefulSet alone; deleting one member's
// pod under a steady dig load loses no query and the member rejoins with its data; the
// PodDisruptionBudget lets one eviction through and refuses a second.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import {
  component,
  dnsService,
  NAMESPACE,
  pods,
  SERVER,
  soaAnswered,
  waitPodsReady,
  type DnsService,
} from './stack-support.ts';
import { applyTlsEtcd, digLoad, members, prepareTlsEtcd, publishSteady, STS, type EtcdTls } from './etcd-support.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
let tls: EtcdTls;
const figures: string[] = [];

describe('a 3-member etcd with TLS (the prod shape) on a real single-node cluster', { timeout: 1_200_000 }, () => {
  before(async () => ({ cluster, images } = await startSuiteCluster(figures)));
  after(() => stopSuiteCluster(cluster, figures));

  test('(3a) the StatefulSet alone forms a 3-member cluster over TLS; the DNS server reads it with its client certificate', async () => {
    tls = await prepareTlsEtcd(cluster, [0, 1, 2]);
    const t0 = performance.now();
    applyTlsEtcd(cluster, images, 3);
    dns = await dnsService(cluster.admin, SERVER);
    await untilStackUp(cluster, 'the first SOA answer through the ClusterIP', () => soaAnswered(dns.clusterIp, 53), {
      timeoutMs: 300_000,
      intervalMs: 200,
    });
    figures.push(`apply -> first answer ${Math.round(performance.now() - t0)} ms`);
    const etcdPods = await diagnosed(cluster, () => waitPodsReady(cluster.admin, component('etcd'), 3, 240_000));
    figures.push(`apply -> 3 members Ready ${Math.round(performance.now() - t0)} ms`);
    for (const p of etcdPods) assert.equal(p.restarts, 0, `${p.name} restarted`);
    const list = await members(tls, etcdPods[0]!.ip!);
    assert.deepEqual(
      list.map((m) => m.name),
      [`${STS}-0`, `${STS}-1`, `${STS}-2`],
    );
    await diagnosed(cluster, async () => {
      await waitPodsReady(cluster.admin, component('server-internal'), 1);
      await waitPodsReady(cluster.admin, component('controller'), 1);
    });
  });

  test('(3b) deleting one member pod under a steady dig load loses no query; the member rejoins with its data', async () => {
    await publishSteady(cluster, dns);
    const [first] = await pods(cluster.admin, `${component('etcd')},statefulset.kubernetes.io/pod-name=${STS}-1`);
    const before = await members(tls, first!.ip!);
    const load = digLoad(dns);
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
