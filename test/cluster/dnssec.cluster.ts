// DNSSEC on a real single-node cluster: dist/dev's props with dist/prod's split horizon (an
// internal view, and an external view of opted-in names only) and the `dnssec` signer on the
// external view, its pod running the Knot image (scripts/knot-image.sh), its keys on a
// PersistentVolume. The signer resolves the external server's Service name, takes the zone,
// signs it; `etcdns status` shows the DS for the parent; BIND's delv, given that DS as the trust
// anchor and asking the signer's Service, fully validates a published name and an NXDOMAIN; a
// Service opted into the external view is answered signed within seconds; the signer pod
// deleted, its successor signs with the same keys.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { prod } from '../../src/environments/prod.ts';
import { assertLocalRoute, POD_CIDR, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { answerData, dig } from '../support/dig.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { waitFor } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin, repoRoot } from '../support/tools.ts';
import {
  applyStack,
  component,
  createEtcdVolumes,
  digAt,
  dnsService,
  NAMESPACE,
  neverPull,
  prepareStack,
  waitPodsReady,
  ZONE,
} from './stack-support.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

const run = promisify(execFile);
const SIGNER = 'etcdns-dnssec-signer';
const external = prod.views!.find((v) => v.name === 'external')!;
const props: DnsStackProps = neverPull({
  ...dev,
  views: [{ name: 'internal' }, { ...external, zones: [ZONE], rules: [], service: { type: 'ClusterIP' } }],
  dnssec: {
    view: 'external',
    podCidrs: [POD_CIDR],
    refreshInterval: '2s',
    service: { type: 'ClusterIP' },
    image: { repository: 'localhost/knot', tag: knotVersion() },
    imagePullPolicy: 'Never',
  },
});

/** The tag scripts/knot-image.sh gives the image: this machine's Knot version. */
function knotVersion(): string {
  return /version (\S+)/.exec(execFileSync('knotd', ['-V'], { encoding: 'utf8' }))![1]!;
}

let cluster: Cluster;
let images: ClusterImages;
let signerIp: string;
let anchors: string[];
const figures: string[] = [];

/** The signer's answer with DNSSEC records (DO bit). */
async function signedAt(name: string, type: string) {
  assertLocalRoute(signerIp);
  return dig({ server: signerIp, port: 53, name, type, extra: ['+dnssec'], timeoutSeconds: 1 });
}

/** delv asking the signer, validating from `anchors` (static DS for the zone). */
async function delv(name: string, type = 'A'): Promise<string> {
  const file = join(tempDir('delv'), 'anchors.conf');
  const ds = anchors.map((a) => {
    const [owner, , , tag, alg, digestType, digest] = a.split(/\s+/);
    return `  ${owner} static-ds ${tag} ${alg} ${digestType} "${digest}";`;
  });
  writeFileSync(file, `trust-anchors {\n${ds.join('\n')}\n};\n`);
  const { stdout, stderr } = await run('delv', [`@${signerIp}`, '-a', file, `+root=${ZONE}`, name, type], {
    timeout: 20_000,
  }).catch((e: { stdout: string; stderr: string }) => e);
  return `${stdout}${stderr}`;
}

describe('DNSSEC: the signer on a real single-node cluster', { timeout: 600_000 }, () => {
  before(async () => {
    ({ cluster, images } = await startSuiteCluster(figures));
    const knotImage = (await run('bash', [join(repoRoot, 'scripts', 'knot-image.sh')])).stdout.trim();
    assert.equal(knotImage, `localhost/knot:${knotVersion()}`);
    const archive = readdirSync(join(repoRoot, '.cache', 'cluster-images')).find((f) => /^knot-.*\.oci\.tar$/.test(f))!;
    cluster.importImage(join(repoRoot, '.cache', 'cluster-images', archive));
  });
  after(() => stopSuiteCluster(cluster, figures));

  test('(d1) the external view signed: the signer takes the zone and answers it signed', async () => {
    const dir = tempDir('dnssec-stack');
    writeManifests(join(dir, 'stack'), synthStack(props));
    await cluster.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
    await prepareStack(cluster);
    await createEtcdVolumes(cluster, { statefulSet: SIGNER, ordinals: [0], size: '1Gi' });
    await applyStack(cluster, images, { dir: join(dir, 'stack'), patches: [] });
    signerIp = (await dnsService(cluster.admin, SIGNER)).clusterIp;
    const ms = await untilStackUp(
      cluster,
      'every pod Ready, the zone signed on the signer',
      async () => {
        const all = await Promise.all(
          ['etcd', 'server-internal', 'server-external', 'controller', 'dnssec-signer'].map((c) =>
            waitPodsReady(cluster.admin, component(c), 1, 1000).catch(() => undefined),
          ),
        );
        if (!all.every(Boolean)) return false;
        const r = await signedAt(ZONE, 'SOA').catch(() => undefined);
        return r?.answer.some((a) => a.type === 'RRSIG') ?? false;
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    figures.push(`apply -> zone signed on the signer ${ms} ms`);
  });

  test('(d2) etcdns status shows the DS for the parent', async () => {
    const out = await diagnosed(cluster, () =>
      waitFor(
        'the DS on the status screen',
        async () => {
          const { stdout } = await run(nodeBin, [etcdnsBin, 'status', '--kubeconfig', cluster.kubeconfigFile]).catch(
            (e: { stdout: string }) => e,
          );
          return / IN DS \d+ 13 2 [0-9A-F]{64}/.test(stdout) ? stdout : undefined;
        },
        30_000,
        1000,
      ),
    );
    console.log(`# etcdns status (signer part):\n${out.slice(out.indexOf('DNSSEC signer')).replace(/^/gm, '#   ')}`);
    assert.match(out, new RegExp(`DNSSEC signer at ${signerIp.replace(/\./g, '\\.')}:53`));
    anchors = out
      .split('\n')
      .filter((l) => / IN DS /.test(l))
      .map((l) => l.trim());
    assert.ok(
      anchors.every((a) => a.startsWith(`${ZONE}. IN DS `)),
      anchors.join('\n'),
    );
  });

  test('(d3) delv, with that DS as the trust anchor, fully validates an answer and an NXDOMAIN', async () => {
    const t0 = performance.now();
    await createLoadBalancerService(cluster.admin, {
      name: 'public-web',
      annotations: {
        'external-dns.alpha.kubernetes.io/hostname': `public-web.${ZONE}`,
        'etcdns.io/views': 'internal,external',
        // An external view publishes no private address: the public one in front of it.
        'etcdns.io/external-target': '203.0.113.90',
      },
      addresses: [{ ip: '10.213.200.90' }],
    });
    await waitFor(
      'public-web signed on the signer',
      async () => {
        const r = await signedAt(`public-web.${ZONE}`, 'A');
        return answerData(r, 'A').includes('203.0.113.90') && r.answer.some((a) => a.type === 'RRSIG')
          ? true
          : undefined;
      },
      30_000,
      100,
    );
    figures.push(
      `Service opted into the external view -> answered by the signer ${Math.round(performance.now() - t0)} ms`,
    );
    const answer = await delv(`public-web.${ZONE}`);
    assert.match(answer, /; fully validated/, answer);
    assert.match(answer, /203\.0\.113\.90/, answer);
    const negative = await delv(`nope.${ZONE}`);
    assert.match(negative, /; negative response, fully validated/, negative);
    // The control: a DS that is not the key's fails validation.
    const good = anchors;
    anchors = good.map((a) => a.replace(/[0-9A-F]$/, (d) => (d === '0' ? '1' : '0')));
    const bogus = await delv(`public-web.${ZONE}`);
    anchors = good;
    assert.doesNotMatch(bogus, /fully validated/, bogus);
  });

  test('(d4) the signer pod deleted: its successor signs with the same keys (the volume)', async () => {
    const tags = async () => {
      const r = await digAt(signerIp, 53, ZONE, 'DNSKEY', { tcp: true, timeoutSeconds: 2 });
      return r.answer
        .filter((a) => a.type === 'DNSKEY')
        .map((a) => a.data)
        .sort();
    };
    const before = await tags();
    assert.ok(before.length >= 2, before.join('\n'));
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const t0 = performance.now();
    await core.deleteNamespacedPod({ name: `${SIGNER}-0`, namespace: NAMESPACE });
    await diagnosed(cluster, () =>
      waitFor(
        'a new signer pod answering signed',
        async () => {
          const pods = await core.listNamespacedPod({
            namespace: NAMESPACE,
            labelSelector: component('dnssec-signer'),
          });
          const pod = pods.items[0];
          if (!pod || pod.metadata?.deletionTimestamp) return undefined;
          if (!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return undefined;
          return (await tags()).length > 0 ? true : undefined;
        },
        120_000,
        500,
      ),
    );
    figures.push(`signer pod deleted -> successor answering ${Math.round(performance.now() - t0)} ms`);
    assert.deepEqual(await tags(), before);
    const answer = await delv(`public-web.${ZONE}`);
    assert.match(answer, /; fully validated/, answer);
  });
});
