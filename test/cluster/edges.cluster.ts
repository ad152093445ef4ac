// dist/dev with the two edges a team on Traefik and Istio adds to its environment (sources.kinds
// traefik-proxy and istio-gateway, and sources.traefikService, the etcdns extension for routes
// without a target annotation), on a real single-node cluster with the real CRDs of Traefik v3
// and istio.io/api. The props, not an overlay of the controller's args: the ClusterRole has to
// grow with the kinds, and a user declares them in the environment file. No Traefik or Istio runs
// here: their LoadBalancer Services get the status a load-balancer controller would report. An
// IngressRoute and an Istio Gateway answer through the DNS Service within 1 s of creation, and
// NXDOMAIN within 1 s of deletion.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { type Cluster, LB_CIDR } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { createTraefikRoute, installEdgeCrds } from '../support/crds.ts';
import { answerData } from '../support/dig.ts';
import { createIstioObject, deleteIstioObject } from '../support/istio.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  applyStack,
  component,
  digAt,
  neverPull,
  prepareStack,
  soaAnswered,
  timeUntil,
  waitPodsReady,
  ZONE,
  type DnsService,
} from './stack-support.ts';
import { startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

/** Load-balancer addresses as MetalLB would assign them, inside the fenced range. */
const lbIp = (last: number) => LB_CIDR.replace(/0\/24$/, String(last));
const TRAEFIK_IP = lbIp(60);
const ISTIO_IP = lbIp(61);
/** Where Traefik runs, as its Helm chart installs it. */
const TRAEFIK = { namespace: 'traefik', name: 'traefik' };
const ISTIO_SELECTOR = { istio: 'ingressgateway' };

let cluster: Cluster;
let images: ClusterImages;
let dns: DnsService;
const figures: string[] = [];

async function aRecords(name: string): Promise<{ status: string; data: string[] }> {
  const r = await digAt(dns.clusterIp, 53, name, 'A');
  return { status: r.status, data: answerData(r, 'A') };
}

/** Milliseconds from `change` until `name` answers `ip` (or, without `ip`, NXDOMAIN). */
async function untilAnswer(change: () => Promise<unknown>, name: string, ip?: string): Promise<number> {
  const t0 = performance.now();
  await change();
  await timeUntil(
    ip ? `${name} answered ${ip}` : `${name} NXDOMAIN`,
    async () => {
      const r = await aRecords(name);
      return ip ? r.data.join() === ip : r.status === 'NXDOMAIN';
    },
    10_000,
  );
  return Math.round(performance.now() - t0);
}

describe('dist/dev with traefik-proxy and istio-gateway on a real single-node cluster', { timeout: 900_000 }, () => {
  before(async () => ({ cluster, images } = await startSuiteCluster(figures)));
  after(() => stopSuiteCluster(cluster, figures));

  test('(e1) the stack with the two edges enabled comes up; their Services hold load-balancer addresses', async () => {
    const dir = tempDir('edges-stack');
    writeManifests(
      join(dir, 'dev'),
      synthStack(
        neverPull({
          ...dev,
          sources: {
            ...dev.sources,
            kinds: [...dev.sources!.kinds!, 'traefik-proxy', 'istio-gateway'],
            traefikService: `${TRAEFIK.namespace}/${TRAEFIK.name}`,
          },
        }),
      ),
    );
    // The CRDs come with Traefik's and Istio's charts, before etcdns reads them.
    await installEdgeCrds(cluster.admin, 'traefik', 'istio');
    await prepareStack(cluster);
    const t0 = performance.now();
    dns = await applyStack(cluster, images, { dir: join(dir, 'dev'), patches: [] });
    await untilStackUp(cluster, 'the first SOA answer through the ClusterIP', () => soaAnswered(dns.clusterIp, 53), {
      timeoutMs: 240_000,
      intervalMs: 100,
    });
    await waitPodsReady(cluster.admin, component('controller'), 1);
    figures.push(`apply -> first answer and controller Ready ${Math.round(performance.now() - t0)} ms`);

    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    for (const namespace of [TRAEFIK.namespace, 'istio-system'])
      await core.createNamespace({ body: { metadata: { name: namespace } } });
    await createLoadBalancerService(cluster.admin, { ...TRAEFIK, addresses: [{ ip: TRAEFIK_IP }] });
    await createLoadBalancerService(cluster.admin, {
      name: 'istio-ingressgateway',
      namespace: 'istio-system',
      selector: ISTIO_SELECTOR,
      addresses: [{ ip: ISTIO_IP }],
    });
    // Neither Service carries a hostname annotation: nothing is published for them yet.
    assert.equal((await aRecords(`route.${ZONE}`)).status, 'NXDOMAIN');
    assert.equal((await aRecords(`mesh.${ZONE}`)).status, 'NXDOMAIN');
  });

  test('(e2) a Traefik IngressRoute answers at the Traefik Service within 1 s; deleted, NXDOMAIN within 1 s', async () => {
    const name = `route.${ZONE}`;
    const created = await untilAnswer(
      () =>
        createTraefikRoute(cluster.admin, {
          kind: 'IngressRoute',
          name: 'route',
          namespace: 'default',
          matches: [`Host(\`${name}\`) && PathPrefix(\`/\`)`],
        }),
      name,
      TRAEFIK_IP,
    );
    const deleted = await untilAnswer(
      () =>
        cluster.admin.makeApiClient(k8s.CustomObjectsApi).deleteNamespacedCustomObject({
          group: 'traefik.io',
          version: 'v1alpha1',
          namespace: 'default',
          plural: 'ingressroutes',
          name: 'route',
        }),
      name,
    );
    figures.push(`IngressRoute create -> answer ${created} ms`, `IngressRoute delete -> NXDOMAIN ${deleted} ms`);
    assert.ok(created < 1000, `IngressRoute answered after ${created} ms`);
    assert.ok(deleted < 1000, `IngressRoute NXDOMAIN after ${deleted} ms`);
  });

  test('(e3) an Istio Gateway answers at the Service its selector selects within 1 s; deleted, NXDOMAIN within 1 s', async () => {
    const name = `mesh.${ZONE}`;
    const created = await untilAnswer(
      () =>
        createIstioObject(cluster.admin, {
          apiVersion: 'networking.istio.io/v1',
          kind: 'Gateway',
          metadata: { name: 'mesh', namespace: 'default' },
          spec: {
            selector: ISTIO_SELECTOR,
            servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: [name] }],
          },
        }),
      name,
      ISTIO_IP,
    );
    const deleted = await untilAnswer(() => deleteIstioObject(cluster.admin, 'Gateway', 'default', 'mesh'), name);
    figures.push(`Istio Gateway create -> answer ${created} ms`, `Istio Gateway delete -> NXDOMAIN ${deleted} ms`);
    assert.ok(created < 1000, `Istio Gateway answered after ${created} ms`);
    assert.ok(deleted < 1000, `Istio Gateway NXDOMAIN after ${deleted} ms`);
  });
});
