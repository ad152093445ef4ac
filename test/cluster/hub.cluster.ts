// A hub and a spoke (issue 34, docs/multi-cluster.md) on the single-node cluster: the hub stack
// (dist/dev's props with `clusters`, `hub`, etcd over TLS from the Secrets an operator provides,
// `etcdRoles` with its password Secret, and etcd's Service for spokes as a NodePort) applied and
// answering through its DNS Service. A second, real kube-apiserver on the host stands for the
// spoke cluster; the real `etcdns controller` watches it with the config the SpokeStack renders
// (its cluster, claims, TLS, the etcd user cluster-spoke1 and its password) and writes into the
// hub's etcd through the spokes' Service at the node's address. A LoadBalancer Service created
// in the spoke answers through the hub's DNS Service, its keys under /skydns-clusters/spoke1/;
// the hub's /status.json?name= and `etcdns status --explain` explain it as the spoke's; the
// spoke's user is refused under another cluster's prefix and /skydns; the Service deleted, the
// name is NXDOMAIN at the hub.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { Etcd3, EtcdPermissionDeniedError } from 'etcd3';
import type { ClusterProps } from '../../src/constructs/etcd/member-clusters.ts';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthSpokeObjects, synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import {
  controllerKubeconfig,
  startController,
  type ControllerHandle,
} from '../runtime/controller/controller-harness.ts';
import { assertLocalRoute, GATEWAY, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import type { CertFiles } from '../support/cluster-pki.ts';
import { answerData } from '../support/dig.ts';
import { installGatewayApiCrds } from '../support/gateway-api.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../support/tools.ts';
import { ETCD_TLS_PROPS, prepareTlsEtcd, type EtcdTls } from './etcd-support.ts';
import {
  applyStack,
  component,
  digAt,
  HOSTNAME,
  NAMESPACE,
  neverPull,
  pods,
  soaAnswered,
  timeUntil,
  waitPodsReady,
  ZONE,
  type DnsService,
} from './stack-support.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

const run = promisify(execFile);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The spoke's controller reaches etcd through the node's address; the hub's etcd sees it from there. */
const FROM_HOST = [`${GATEWAY}/32`];
const SPOKE: ClusterProps = { name: 'spoke1', suffixes: [`spoke1.${ZONE}`], etcdClientCidrs: FROM_HOST };
const OTHER: ClusterProps = { name: 'spoke2', suffixes: [`spoke2.${ZONE}`], etcdClientCidrs: FROM_HOST };
const PASSWORDS_SECRET = 'etcdns-etcd-users';
const PASSWORDS: Record<string, string> = {
  root: 'root-secret',
  controller: 'controller-secret',
  'server-internal': 'server-secret',
  'cluster-spoke1': 'spoke1-secret',
  'cluster-spoke2': 'spoke2-secret',
};
const NAME = `web.${SPOKE.suffixes[0]}`;
const ADDRESS = '10.213.200.90';

let cluster: Cluster;
let images: ClusterImages;
let tls: EtcdTls;
let dns: DnsService;
/** https://GATEWAY:<node port of etcd's Service for spokes> */
let hubEtcd: string;
let kube: KubeHandle;
let spoke: ControllerHandle | undefined;
let spokeCert: CertFiles;
const clients: Etcd3[] = [];
const figures: string[] = [];

/** An etcd client of the hub's etcd, from the host through the spokes' Service, as `user`. */
function etcdAs(user: string, cert: CertFiles): Etcd3 {
  const client = new Etcd3({
    hosts: [hubEtcd],
    credentials: {
      rootCertificate: readFileSync(tls.caCert),
      privateKey: readFileSync(cert.key),
      certChain: readFileSync(cert.cert),
    },
    auth: { username: user, password: PASSWORDS[user.replace(/^etcdns-/, '')]! },
    dialTimeout: 3000,
  });
  clients.push(client);
  return client;
}

/** The hub's server's /status.json through the API server's pod proxy. */
async function hubStatus(query: string): Promise<Json> {
  const [pod] = await waitPodsReady(cluster.admin, component('server-internal'), 1);
  return JSON.parse(
    cluster.kubectl([
      'get',
      '--raw',
      `/api/v1/namespaces/${NAMESPACE}/pods/${pod!.name}:8080/proxy/status.json?${query}`,
    ]),
  ) as Json;
}

/** The config the SpokeStack renders for SPOKE, dialing `endpoint`, its paths this test's files. */
function spokeConfig(endpoint: string, password: string): string {
  const objects = synthSpokeObjects({
    cluster: SPOKE,
    hub: { endpoints: [endpoint], tlsSecret: 'hub-etcd-tls', passwordSecret: 'hub-etcd' },
  }) as Json[];
  const rendered = (objects.find((o) => o.kind === 'ConfigMap')!.data['config.json'] as string)
    .replaceAll('/etc/etcdns/etcd-tls/ca.crt', tls.caCert)
    .replaceAll('/etc/etcdns/etcd-tls/tls.crt', spokeCert.cert)
    .replaceAll('/etc/etcdns/etcd-tls/tls.key', spokeCert.key)
    .replaceAll('/etc/etcdns/etcd-auth/password', password);
  const config = JSON.parse(rendered) as Json;
  assert.equal(config.etcd.auth.username, 'cluster-spoke1');
  const file = join(tempDir('spoke-config'), 'config.json');
  writeFileSync(file, rendered);
  return file;
}

describe('a hub on the single-node cluster and a spoke controller publishing into it', { timeout: 1_200_000 }, () => {
  before(async () => ({ cluster, images } = await startSuiteCluster(figures)));
  after(() =>
    stopSuiteCluster(
      cluster,
      figures,
      async () => {
        for (const c of clients) c.close();
      },
      () => spoke?.stop(),
    ),
  );

  test('(h1) the hub stack (clusters, hub, etcd TLS, etcd roles, the spokes Service) comes up and answers', async () => {
    tls = await prepareTlsEtcd(cluster, [0], [GATEWAY]);
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: PASSWORDS_SECRET }, stringData: PASSWORDS },
    });
    await installGatewayApiCrds(cluster.admin);
    const dir = join(tempDir('dist-hub'), 'hub');
    writeManifests(
      dir,
      synthStack(
        neverPull({
          ...dev,
          etcd: {
            ...dev.etcd,
            tls: ETCD_TLS_PROPS,
            spokeService: { type: 'NodePort', names: [GATEWAY] },
          },
          etcdRoles: { passwordSecret: PASSWORDS_SECRET },
          clusters: [SPOKE, OTHER],
          hub: { graceSeconds: 5, zones: [{ zone: ZONE, policy: 'all' }] },
        }),
      ),
    );
    const t0 = performance.now();
    dns = await applyStack(cluster, images, { dir, patches: [] });
    await untilStackUp(cluster, 'the first SOA answer through the ClusterIP', () => soaAnswered(dns.clusterIp, 53), {
      timeoutMs: 300_000,
      intervalMs: 250,
    });
    figures.push(`apply -> first hub answer ${Math.round(performance.now() - t0)} ms`);
    await diagnosed(cluster, async () => {
      cluster.kubectl(['wait', '-n', NAMESPACE, '--for=condition=Complete', '--timeout=180s', 'job', '--all']);
      await waitPodsReady(cluster.admin, component('server-internal'), 1);
      await waitPodsReady(cluster.admin, component('controller'), 1);
    });
    figures.push(`apply -> roles Job complete, hub Ready ${Math.round(performance.now() - t0)} ms`);
    const restarts = (await pods(cluster.admin)).reduce((n, p) => n + p.restarts, 0);
    figures.push(`hub container restarts until then ${restarts}`);
    const spokes = await core.readNamespacedService({ name: 'etcdns-etcd-spokes', namespace: NAMESPACE });
    const nodePort = spokes.spec?.ports?.find((p) => p.port === 2379)?.nodePort;
    assert.ok(nodePort, JSON.stringify(spokes.spec?.ports));
    assertLocalRoute(GATEWAY);
    hubEtcd = `https://${GATEWAY}:${nodePort}`;
    // The hub's own stack still publishes into its view: dist/dev's static record answers.
    assert.deepEqual(answerData(await digAt(dns.clusterIp, 53, `static.${ZONE}`), 'A'), ['192.0.2.10']);
  });

  test("(h2) a Service in the spoke answers through the hub's DNS Service, under the spoke's prefix, explained as the spoke's", async () => {
    spokeCert = tls.pki.issue('spoke1', { cn: 'cluster-spoke1' });
    const password = join(tempDir('spoke-auth'), 'password');
    writeFileSync(password, `${PASSWORDS['cluster-spoke1']}\n`);
    kube = await startKubeApiserver();
    const t0 = performance.now();
    spoke = await startController({
      kubeconfigFile: await controllerKubeconfig(kube),
      etcdEndpoints: [hubEtcd],
      ownerId: SPOKE.name,
      identity: 'spoke1',
      args: ['--config', spokeConfig(hubEtcd, password)],
    });
    figures.push(`spoke controller start -> ready ${Math.round(performance.now() - t0)} ms`);
    const root = etcdAs('root', tls.client);
    await timeUntil(
      "the spoke's lease key at the hub",
      async () => (await root.get(`/skydns-clusters/${SPOKE.name}/etcdns.lease`).string()) !== null,
      30_000,
      250,
    );

    const t1 = performance.now();
    await createLoadBalancerService(kube.admin, {
      name: 'web',
      annotations: { [HOSTNAME]: NAME },
      addresses: [{ ip: ADDRESS }],
    });
    await timeUntil(
      `${NAME} answered at the hub`,
      async () => answerData(await digAt(dns.clusterIp, 53, NAME), 'A').join() === ADDRESS,
      30_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n--- spoke controller ---\n${spoke!.process.logs().slice(-3000)}`, { cause: e });
    });
    figures.push(`Service create in the spoke -> answer at the hub ${Math.round(performance.now() - t1)} ms`);

    const keys = await root.getAll().prefix('/skydns-clusters/').strings();
    const records = Object.entries(keys).filter(([k]) => !k.endsWith('/etcdns.lease'));
    assert.deepEqual(
      records.map(([k]) => k.replace(/\/[0-9a-f]{8}$/, '/<hash>')),
      [`/skydns-clusters/${SPOKE.name}/org/example/dev/spoke1/web/<hash>`],
    );
    assert.match(records[0]![1], new RegExp(`"host":"${ADDRESS.replace(/\./g, '\\.')}".*"owner":"spoke1"`));
    assert.deepEqual(await root.getAll().prefix('/skydns/org/example/dev/spoke1/').keys(), []);

    const status = await hubStatus(`name=${NAME}`);
    const explain = status.explain as Json;
    assert.deepEqual(explain.answering, [SPOKE.name], JSON.stringify(explain));
    const mine = (explain.clusters as Json[]).find((c) => c.cluster === SPOKE.name)!;
    assert.equal(mine.entries, 1, JSON.stringify(mine));
    assert.equal(mine.counts, true);
    assert.equal(mine.answers, true);
    const other = (explain.clusters as Json[]).find((c) => c.cluster === OTHER.name)!;
    assert.equal(other.entries, 0, JSON.stringify(other));
    assert.equal(other.answers, false);

    // The same, as a person asks for it: `etcdns status --explain` reads the hub's replicas
    // through the API server with the admin's kubeconfig.
    const t2 = performance.now();
    const shown = await run(nodeBin, [etcdnsBin, 'status', '--explain', NAME, '--kubeconfig', cluster.kubeconfigFile], {
      timeout: 60_000,
    }).then(
      ({ stdout }) => ({ code: 0, out: stdout }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
    );
    figures.push(`etcdns status --explain ${Math.round(performance.now() - t2)} ms`);
    console.log(`# etcdns status --explain ${NAME}:\n${shown.out.replace(/^/gm, '#   ')}`);
    assert.equal(shown.code, 0, shown.out);
    assert.match(shown.out, /Zone dev\.example\.org, policy all\. Answering: spoke1\./);
    assert.match(shown.out, /spoke1 +1 entry +counts, lease held for \d+ s +answers/);
    assert.match(shown.out, /spoke2 +0 entries +.* +does not answer/);
    assert.match(shown.out, /nothing needs a person/);
  });

  test("(h3) the spoke's etcd user is refused under another cluster's prefix and /skydns", async () => {
    const asSpoke = etcdAs('cluster-spoke1', spokeCert);
    for (const key of [
      `/skydns-clusters/${OTHER.name}/org/example/dev/spoke2/web/x`,
      '/skydns/org/example/dev/web/x',
    ]) {
      const refused = await asSpoke
        .put(key)
        .value('{"host":"192.0.2.66"}')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(refused instanceof EtcdPermissionDeniedError, `put ${key}: ${String(refused)}`);
      assert.match((refused as Error).message, /permission denied/);
    }
    // Its own prefix it may write (the refusals are the role's, not a broken login).
    const own = `/skydns-clusters/${SPOKE.name}/org/example/dev/spoke1/probe/x`;
    await asSpoke.put(own).value('{"host":"192.0.2.67"}');
    await asSpoke.delete().key(own);
    const root = etcdAs('root', tls.client);
    assert.deepEqual(await root.getAll().prefix(`/skydns-clusters/${OTHER.name}/`).keys(), []);
  });

  test('(h4) the Service deleted in the spoke: NXDOMAIN at the hub', async () => {
    const t0 = performance.now();
    await kube.admin.makeApiClient(k8s.CoreV1Api).deleteNamespacedService({ name: 'web', namespace: 'default' });
    await timeUntil(
      'NXDOMAIN at the hub',
      async () => (await digAt(dns.clusterIp, 53, NAME)).status === 'NXDOMAIN',
      30_000,
    );
    figures.push(`Service delete in the spoke -> NXDOMAIN at the hub ${Math.round(performance.now() - t0)} ms`);
  });
});
