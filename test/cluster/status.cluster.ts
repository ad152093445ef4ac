// `etcdns status` against a real single-node cluster (test/support/cluster.ts), run as a person
// runs it: the command with the admin's kubeconfig, reading everything through the API server.
// The stack is dist/dev's props with zone transfers to a real Knot on the node (NOTIFY from the
// server pod, TSIG key from a Secret), so the screen has etcd, a DNS server replica with its zone
// serial, a secondary's acknowledged serial and the controller. It exits 0 while nothing needs a
// person, 1 once an object has a problem, and 0 again when the object is fixed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { assertLocalRoute, GATEWAY, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { dig } from '../support/dig.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from '../support/knot-secondary.ts';
import { freePort } from '../support/ports.ts';
import { waitFor } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../support/tools.ts';
import {
  applyStack,
  component,
  HOSTNAME,
  NAMESPACE,
  neverPull,
  prepareStack,
  waitPodsReady,
  ZONE,
} from './stack-support.ts';
import { startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';
import { keyStatement } from '../support/tsig-key.ts';

const KEY = {
  name: 'xfr.dev.example.org',
  algorithm: 'hmac-sha256',
  secret: 'c3RhdHVzLWNsdXN0ZXItdGVzdC10c2lnLWtleQ==',
};
const run = promisify(execFile);

let cluster: Cluster;
let images: ClusterImages;
let knot: KnotSecondaryHandle;
const figures: string[] = [];

/** `etcdns status` (with `args`) as a person runs it; its exit code and screen. */
async function etcdnsStatus(...args: string[]): Promise<{ code: number; out: string }> {
  const t0 = performance.now();
  const result = await run(nodeBin, [etcdnsBin, 'status', '--kubeconfig', cluster.kubeconfigFile, ...args], {
    timeout: 60_000,
  }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
  );
  figures.push(
    `etcdns status${args.map((a) => ` ${a}`).join('')} ${Math.round(performance.now() - t0)} ms (exit ${result.code})`,
  );
  return result;
}

describe('etcdns status on a real single-node cluster', { timeout: 1_200_000 }, () => {
  before(async () => ({ cluster, images } = await startSuiteCluster(figures)));
  after(() => stopSuiteCluster(cluster, figures, () => knot?.stop()));

  test('(s1) the stack with a secondary: etcdns status shows every part and exits 0', async () => {
    assertLocalRoute(GATEWAY);
    const knotPort = await freePort();
    const dir = tempDir('status-stack');
    writeManifests(
      join(dir, 'dev'),
      synthStack(
        neverPull({
          ...dev,
          server: {
            ...dev.server,
            transfer: { allowCidrs: [`${GATEWAY}/32`], notify: [`${GATEWAY}:${knotPort}`], keySecret: { name: 'xfr' } },
          },
        }),
      ),
    );
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: {
        metadata: { name: 'xfr' },
        stringData: { 'tsig.key': keyStatement(KEY) },
      },
    });
    await prepareStack(cluster);
    await applyStack(cluster, images, { dir: join(dir, 'dev'), patches: [] });
    await untilStackUp(
      cluster,
      'every pod Ready',
      async () => {
        const all = await Promise.all(
          ['etcd', 'server-internal', 'controller'].map((c) =>
            waitPodsReady(cluster.admin, component(c), 1, 1000).catch(() => undefined),
          ),
        );
        return all.every(Boolean);
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    const serverIp = (await waitPodsReady(cluster.admin, component('server-internal'), 1))[0]!.ip!;
    assertLocalRoute(serverIp);
    knot = await startKnotSecondary({
      zone: `${ZONE}.`,
      primaryPort: 5353,
      primaryAddress: serverIp,
      listen: GATEWAY,
      port: knotPort,
      key: KEY,
    });
    // A change after knotd is up: the server NOTIFYs it, knotd acknowledges and transfers.
    await createLoadBalancerService(cluster.admin, {
      name: 'web',
      annotations: { [HOSTNAME]: `web.${ZONE}` },
      addresses: [{ ip: '10.213.200.80' }],
    });
    await waitFor(
      'web on knotd',
      async () => {
        const r = await dig({ server: GATEWAY, port: knotPort, name: `web.${ZONE}`, timeoutSeconds: 1 });
        return r.answer.length > 0 ? true : undefined;
      },
      60_000,
      250,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${knot.process.logs().slice(-3000)}`, { cause: e });
    });

    const { code, out } = await waitFor(
      'the acknowledged serial is the current one',
      async () => {
        const r = await etcdnsStatus();
        return / current /.test(r.out) ? r : undefined;
      },
      30_000,
      1000,
    );
    console.log(`# etcdns status (healthy):\n${out.replace(/^/gm, '#   ')}`);
    assert.equal(code, 0, out);
    assert.match(out, /etcd: 1 of 1 members ready/);
    assert.match(out, /etcdns-etcd-0 +ready +leader +healthy +db \S+ \S+ of 2\.0 GiB/);
    assert.match(out, /DNS servers, view internal: 1 of 1 ready/);
    assert.match(
      out,
      /etcdns-server-internal-\S+ +ready +synced +revision \d+ +behind etcd <= \d+ +\d+ records? +dev\.example\.org serial \d+/,
    );
    const serial = /dev\.example\.org serial (\d+)/.exec(out)![1];
    assert.match(
      out,
      new RegExp(
        `dev\\.example\\.org -> ${GATEWAY.replace(/\./g, '\\.')}:${knotPort} +acknowledged ${serial} .* current`,
      ),
    );
    assert.match(out, /controller: 1 of 1 ready; no Lease \(one replica\)/);
    assert.match(
      out,
      /etcdns-controller-\S+ +ready +leader +last sync .* last completed \d+ s ago +internal: \d+ names?/,
    );
    assert.match(out, /objects with problems: 0/);
    assert.match(out, /nothing needs a person/);

    // One name explained: this server is no hub (one line, the query through the pod proxy), exit 0.
    const explained = await etcdnsStatus('--explain', `web.${ZONE}`);
    console.log(`# etcdns status --explain web.${ZONE}:\n${explained.out.replace(/^/gm, '#   ')}`);
    assert.equal(explained.code, 0, explained.out);
    assert.match(explained.out, /who answers web\.dev\.example\.org\n\nview internal:\n/);
    assert.match(
      explained.out,
      /\n {2}etcdns-server-internal-\S+: not a hub \(only a hub merges member clusters, and explains their names\)\n/,
    );

    // The controller's status page through the API server's pod proxy (a path prefix): the name
    // found by a search, the form posting relative to where the page is.
    const [controllerPod] = await waitPodsReady(cluster.admin, component('controller'), 1);
    const page = cluster.kubectl([
      'get',
      '--raw',
      `/api/v1/namespaces/${NAMESPACE}/pods/${controllerPod!.name}:8080/proxy/status?q=web`,
    ]);
    assert.match(page, /<td class="name">web\.dev\.example\.org<\/td>/);
    assert.match(page, /<form method="get" action="status"/);
  });

  test('(s2) an object with a problem: listed, exit 1; fixed: exit 0 again', async () => {
    await createLoadBalancerService(cluster.admin, {
      name: 'broken',
      annotations: { [HOSTNAME]: `bad_name!.${ZONE}` },
      addresses: [{ ip: '10.213.200.81' }],
    });
    const broken = await waitFor(
      'the problem on the screen',
      async () => {
        const r = await etcdnsStatus();
        return r.code === 1 && /InvalidHostname/.test(r.out) ? r : undefined;
      },
      30_000,
      1000,
    );
    console.log(`# etcdns status (a problem):\n${broken.out.replace(/^/gm, '#   ')}`);
    assert.match(broken.out, /objects with problems: 1/);
    assert.match(broken.out, /InvalidHostname +service\/default\/broken +bad_name!\.dev\.example\.org/);
    assert.match(broken.out, /needs a person:\n {2}- 1 object with problems/);
    await cluster.admin.makeApiClient(k8s.CoreV1Api).deleteNamespacedService({ name: 'broken', namespace: 'default' });
    await waitFor('exit 0 again', async () => ((await etcdnsStatus()).code === 0 ? true : undefined), 30_000, 1000);
  });
});
