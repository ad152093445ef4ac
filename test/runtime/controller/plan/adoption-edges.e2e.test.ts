// Migration from external-dns on the edges: what the real external-dns v0.22 published (CoreDNS
// provider, TXT registry) for a Traefik IngressRoute, an Istio Gateway and VirtualService, a
// Contour HTTPProxy and an OpenShift Route is taken over by etcdns started afterwards with --adopt-external-dns-owner, and the name answers
// throughout (asked with dig all the while). One test per kind, each on its own etcd.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { SourceKind } from '../../../../src/config/source-kinds.ts';
import { createTraefikRoute, installEdgeCrds } from '../../../support/crds.ts';
import { answerData, dig, waitForAnswer } from '../../../support/dig.ts';
import { createHttpProxy, createOpenShiftRoute } from '../../../support/edge-objects.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer } from '../../../support/etcdns-server.ts';
import { runExternalDns } from '../../../support/external-dns.ts';
import { createIstioObject } from '../../../support/istio.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { controllerKubeconfig, startController } from '../controller-harness.ts';

const TARGET = 'external-dns.kubernetes.io/target';

let kube: KubeHandle;
before(async () => {
  kube = await startKubeApiserver();
  await installEdgeCrds(kube.admin, 'traefik', 'istio', 'contour', 'openshift');
  await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'apps' } } });
});
after(stopAll);

const rows: {
  kind: string;
  source: SourceKind;
  name: string;
  address: string;
  /** The resource its records carry, external-dns's and ours alike. */
  resource: string;
  create: (kc: k8s.KubeConfig) => Promise<void>;
}[] = [
  {
    kind: 'IngressRoute',
    source: 'traefik-proxy',
    name: 'traefik.example.org',
    address: '192.0.2.10',
    resource: 'ingressroute/apps/web',
    create: (kc) =>
      createTraefikRoute(kc, {
        kind: 'IngressRoute',
        name: 'web',
        namespace: 'apps',
        matches: ['Host(`traefik.example.org`)'],
        annotations: { [TARGET]: '192.0.2.10' },
      }),
  },
  {
    kind: 'Istio Gateway',
    source: 'istio-gateway',
    name: 'istio.example.org',
    address: '192.0.2.20',
    resource: 'gateway/apps/edge',
    create: (kc) =>
      createIstioObject(kc, {
        apiVersion: 'networking.istio.io/v1',
        kind: 'Gateway',
        metadata: { name: 'edge', namespace: 'apps', annotations: { [TARGET]: '192.0.2.20' } },
        spec: { servers: [{ hosts: ['istio.example.org'], port: { number: 80, name: 'http', protocol: 'HTTP' } }] },
      }),
  },
  {
    kind: 'VirtualService',
    source: 'istio-virtualservice',
    name: 'mesh.example.org',
    address: '192.0.2.40',
    resource: 'virtualservice/apps/shop',
    create: async (kc) => {
      await createIstioObject(kc, {
        apiVersion: 'networking.istio.io/v1',
        kind: 'Gateway',
        metadata: { name: 'mesh-edge', namespace: 'apps', annotations: { [TARGET]: '192.0.2.40' } },
        spec: { servers: [{ hosts: ['*'], port: { number: 80, name: 'http', protocol: 'HTTP' } }] },
      });
      await createIstioObject(kc, {
        apiVersion: 'networking.istio.io/v1',
        kind: 'VirtualService',
        metadata: { name: 'shop', namespace: 'apps' },
        spec: {
          hosts: ['mesh.example.org'],
          gateways: ['apps/mesh-edge'],
          http: [{ route: [{ destination: { host: 'web.apps.svc.cluster.local' } }] }],
        },
      });
    },
  },
  {
    kind: 'HTTPProxy',
    source: 'contour-httpproxy',
    name: 'contour.example.org',
    address: '192.0.2.30',
    resource: 'HTTPProxy/apps/proxy',
    create: (kc) =>
      createHttpProxy(kc, { name: 'proxy', namespace: 'apps', fqdn: 'contour.example.org', addresses: ['192.0.2.30'] }),
  },
  {
    kind: 'OpenShift Route',
    source: 'openshift-route',
    name: 'openshift.example.org',
    address: '192.0.2.50',
    resource: 'route/apps/shop',
    create: (kc) =>
      createOpenShiftRoute(kc, {
        name: 'shop',
        namespace: 'apps',
        host: 'openshift.example.org',
        routers: [{ routerName: 'default', canonicalHostname: 'router.apps.example.net' }],
        annotations: { [TARGET]: '192.0.2.50' },
      }),
  },
];

for (const row of rows) {
  test(`${row.kind}: external-dns's records are taken over without a gap`, async () => {
    const etcd = await startEtcd();
    const kv = etcd.client();
    const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
    await row.create(kube.admin);
    await runExternalDns({
      kubeconfigFile: kube.kubeconfigFile,
      etcdEndpoints: etcd.endpoints,
      args: [
        `--source=${row.source}`,
        '--domain-filter=example.org',
        '--txt-owner-id=legacy',
        '--registry=txt',
        '--policy=sync',
      ],
    });
    const theirs = Object.values(await kv.getAll().prefix('/skydns/').strings()).map(
      (v) => JSON.parse(v) as { owner?: string; text?: string; resource?: string },
    );
    assert.ok(
      theirs.some((v) => v.text?.includes(`resource=${row.resource}`)),
      `external-dns's TXT names ${row.resource}: ${JSON.stringify(theirs)}`,
    );
    const answer = async () => JSON.stringify(answerData(await dig({ port: server.port, name: row.name }), 'A'));
    const want = JSON.stringify([row.address]);
    // external-dns --once returns when etcd has its write; the server applies it from its watch a
    // moment later, so its record is waited for before the takeover (a race in the test, not a gap).
    await waitForAnswer({ port: server.port, name: row.name }, [row.address], 30_000);

    let gaps: string[] = [];
    let asked = 0;
    let asking = true;
    const watcher = (async () => {
      while (asking) {
        const got = await answer();
        asked += 1;
        if (got !== want) gaps = [...gaps, got];
      }
    })();
    let ours: Record<string, string>;
    let controller: Awaited<ReturnType<typeof startController>> | undefined;
    try {
      controller = await startController({
        kubeconfigFile: await controllerKubeconfig(kube, [row.source]),
        etcdEndpoints: etcd.endpoints,
        ownerId: 'etcdns',
        args: ['--source', row.source, '--domain-filter', 'example.org', '--adopt-external-dns-owner', 'legacy'],
      });
      ours = await waitFor('taken over', async () => {
        const all = await kv.getAll().prefix('/skydns/').strings();
        const values = Object.values(all).map((v) => JSON.parse(v) as { owner?: string });
        return values.length === 1 && values[0]!.owner === 'etcdns' ? all : undefined;
      }).catch(async (e: Error) => {
        throw new Error(`${e.message}: ${JSON.stringify(await kv.getAll().prefix('/skydns/').strings())}`);
      });
    } finally {
      asking = false;
      await watcher;
    }
    const [key, value] = Object.entries(ours)[0]!;
    const labels = row.name.split('.').reverse().join('/');
    assert.match(key, new RegExp(`^/skydns/${labels}/[0-9a-f]{8}$`));
    assert.deepEqual(JSON.parse(value), {
      host: row.address,
      targetstrip: 1,
      owner: 'etcdns',
      resource: row.resource,
    });
    console.log(`# figures: ${row.kind}: ${asked} queries during the takeover, ${gaps.length} not answered as before`);
    assert.ok(asked > 5, `${asked} queries during the takeover`);
    assert.deepEqual(gaps, []);
    await controller!.stop();
    await server.stop();
    await etcd.stop();
  });
}
