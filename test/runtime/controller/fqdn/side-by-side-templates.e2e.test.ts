// The template flags and the unstructured source side by side with the real external-dns v0.22:
// the same ConfigMaps (unstructured, --unstructured-resource=configmaps.v1), Services and an
// Ingress in one kube-apiserver, the same --fqdn-template, --target-template and
// --fqdn-target-template; external-dns (CoreDNS provider, TXT registry) writes one etcd, our
// controller (as its ServiceAccount, with the constructs' ClusterRole for exactly these sources
// and resources) another, each read by our DNS server. Every name is asked of both, every type:
// the answers must be the same except for the differences listed, each with its reason
// (docs/sources.md, "Templates and the unstructured source").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { answerData, dig } from '../../../support/dig.ts';
import { answerDifferences, comparable } from '../../../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { keyToName } from '../../../../src/skydns/skydns-key.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { runExternalDns } from '../../../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { createIngress, createLoadBalancerService } from '../../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { controllerKubeconfig, runOnce, startController } from '../controller-harness.ts';

const H = 'external-dns.kubernetes.io/';
const TYPES = ['A', 'AAAA', 'CNAME', 'TXT'];
const SOURCES = ['service', 'ingress', 'unstructured'] as const;
const RESOURCES = ['configmaps.v1'];

/** The flags both run with: one template for every source, as a team writes it. */
const TEMPLATE_FLAGS = [
  '--fqdn-template={{ if eq .Kind "ConfigMap" }}{{ with index .Object.data "hostname" }}{{ . }}{{ end }}{{ else }}{{ .Name }}.{{ .Namespace }}.example.org{{ end }}',
  '--target-template={{ with index .Object.data "target" }}{{ . }}{{ end }}',
  '--fqdn-target-template={{ if eq .Kind "ConfigMap" }}{{ with index .Object.data "pairs" }}{{ . }}{{ end }}{{ end }}',
];

/** name -> type -> targets, as both must answer. */
const SAME: Record<string, Record<string, string[]>> = {
  'api.example.org.': { A: ['10.0.0.100'] },
  'entry1.example.org.': { A: ['10.0.0.101'] },
  'entry2.example.org.': { A: ['10.0.0.101'] },
  'cdn.example.org.': { CNAME: ['bucket.s3.example.net.'] },
  'v6.example.org.': { AAAA: ['2001:db8::7'] },
  'ann-cm.example.org.': { A: ['10.0.0.102'] },
  'p1.example.org.': { A: ['10.0.0.110'] },
  'p2.example.org.': { A: ['10.0.0.111', '10.0.0.112'] },
  'web.apps.example.org.': { A: ['10.1.0.1'] },
  'own.example.org.': { A: ['10.1.0.2'] },
  'site.apps.example.org.': { A: ['10.1.0.3'] },
};
/** Names neither publishes: the annotated ConfigMap's and Service's template names (own names win). */
const ABSENT = ['tmpl-cm.example.org.', 'own-svc.apps.example.org.'];

/**
 * Why the answers differ, by name. Each reason is in docs/sources.md ("Templates and the
 * unstructured source").
 */
const EXPECTED_DIFFERENCES: Record<string, string> = {
  // external-dns keeps the template's case in the etcd key, where no query finds it.
  'mixed.example.org.': 'a template name with capitals',
};
const REGISTRY = 'TXT registry (ownership published in the zone)';

let kube: KubeHandle;
let ours: EtcdnsServerHandle;
let theirs: EtcdnsServerHandle;
let theirsEtcd: EtcdHandle;
let controllerLog = '';
let oursEtcd: EtcdHandle;
let saKubeconfig = '';
const figures: string[] = [];

before(async () => {
  kube = await startKubeApiserver();
  const [etcdOurs, etcdTheirs] = await Promise.all([startEtcd(), startEtcd()]);
  theirsEtcd = etcdTheirs;
  oursEtcd = etcdOurs;
  const zones = ['example.org'];
  [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcdOurs.endpoints, zones }),
    startEtcdnsServer({ etcdEndpoints: etcdTheirs.endpoints, zones }),
  ]);
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'apps' } } });
  const cm = (name: string, data: Record<string, string>, annotations: Record<string, string> = {}) =>
    core.createNamespacedConfigMap({ namespace: 'apps', body: { metadata: { name, annotations }, data } });
  await cm('api-dns', { hostname: 'api.example.org', target: '10.0.0.100' });
  await cm('multi-dns', { hostname: 'entry1.example.org,entry2.example.org', target: '10.0.0.101' });
  await cm('cdn', { hostname: 'cdn.example.org', target: 'bucket.s3.example.net' });
  await cm('v6', { hostname: 'v6.example.org', target: '2001:db8::7' });
  await cm(
    'annotated',
    { hostname: 'tmpl-cm.example.org', target: '10.0.0.103' },
    { [`${H}hostname`]: 'ann-cm.example.org', [`${H}target`]: '10.0.0.102' },
  );
  await cm('pairs', { pairs: 'p1.example.org:10.0.0.110,p2.example.org:10.0.0.111,p2.example.org:10.0.0.112' });
  await cm('mixed', { hostname: 'Mixed.Example.org', target: '10.0.0.120' });
  await createLoadBalancerService(kube.admin, { name: 'web', namespace: 'apps', addresses: [{ ip: '10.1.0.1' }] });
  await createLoadBalancerService(kube.admin, {
    name: 'own-svc',
    namespace: 'apps',
    annotations: { [`${H}hostname`]: 'own.example.org' },
    addresses: [{ ip: '10.1.0.2' }],
  });
  await createIngress(kube.admin, {
    name: 'site',
    namespace: 'apps',
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    addresses: [{ ip: '10.1.0.3' }],
  });

  let started = performance.now();
  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: etcdTheirs.endpoints,
    args: [
      ...SOURCES.map((s) => `--source=${s}`),
      ...RESOURCES.map((r) => `--unstructured-resource=${r}`),
      ...TEMPLATE_FLAGS,
      '--domain-filter=example.org',
      ...TYPES.map((t) => `--managed-record-types=${t}`),
      '--txt-owner-id=theirs',
      '--registry=txt',
      '--policy=sync',
    ],
  });
  figures.push(`external-dns --once ${Math.round(performance.now() - started)} ms`);
  started = performance.now();
  saKubeconfig = await controllerKubeconfig(kube, [...SOURCES], false, RESOURCES);
  const once = await runOnce({
    kubeconfigFile: saKubeconfig,
    etcdEndpoints: [etcdOurs.endpoint],
    ownerId: 'ours',
    args: [
      ...SOURCES.flatMap((s) => ['--source', s]),
      ...RESOURCES.flatMap((r) => ['--unstructured-resource', r]),
      ...TEMPLATE_FLAGS,
      '--domain-filter',
      'example.org',
    ],
  });
  controllerLog = once.stdout + once.stderr;
  assert.equal(once.code, 0, controllerLog);
  figures.push(`etcdns controller --once ${Math.round(performance.now() - started)} ms`);
  await new Promise((r) => setTimeout(r, 500));
});
after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

test('every name external-dns publishes from the templates, etcdns publishes with the same targets', async () => {
  for (const [name, types] of Object.entries(SAME))
    for (const [type, want] of Object.entries(types))
      for (const [who, server] of [
        ['etcdns', ours],
        ['external-dns', theirs],
      ] as const)
        assert.deepEqual(
          answerData(await dig({ port: server.port, name, type }), type),
          [...want].sort(),
          `${who}: ${name} ${type}`,
        );
  for (const name of ABSENT)
    for (const server of [ours, theirs])
      assert.equal((await dig({ port: server.port, name })).status, 'NXDOMAIN', name);
});

test('a capitalised template name answers from etcdns (lower-cased), not from external-dns', async () => {
  assert.deepEqual(answerData(await dig({ port: ours.port, name: 'mixed.example.org', type: 'A' }), 'A'), [
    '10.0.0.120',
  ]);
  assert.equal((await dig({ port: theirs.port, name: 'mixed.example.org', type: 'A' })).status, 'NXDOMAIN');
});

test("ConfigMaps without the template's keys are that object's problem in etcdns, nothing more", () => {
  // kube-root-ca.crt has no hostname: the template writes nothing for it, no problem either.
  assert.doesNotMatch(controllerLog, /kube-root-ca\.crt.*TemplateFailed/);
});

test('every name, every type: the same answers as external-dns except the listed differences', async () => {
  const registry = new Set<string>();
  for (const [key, value] of Object.entries(await theirsEtcd.client().getAll().prefix('/skydns/').strings()))
    if (value.includes('heritage=external-dns'))
      registry.add(keyToName(key.slice(0, key.lastIndexOf('/')), '/skydns')!);
  assert.ok(registry.size >= Object.keys(SAME).length, `external-dns's registry names: ${[...registry].join(', ')}`);
  const names = [...new Set([...Object.keys(SAME), ...ABSENT, ...Object.keys(EXPECTED_DIFFERENCES), ...registry])];
  const why = (name: string) => (registry.has(name) ? REGISTRY : EXPECTED_DIFFERENCES[name]);
  const unexpected: Record<string, string[]> = {};
  let same = 0;
  const justified = new Map<string, number>();
  for (const name of names)
    for (const type of TYPES) {
      const [a, b] = await Promise.all([dig({ port: ours.port, name, type }), dig({ port: theirs.port, name, type })]);
      const d = answerDifferences(comparable(a), comparable(b), ['etcdns', 'external-dns']);
      if (d.length === 0) {
        same += 1;
        continue;
      }
      const reason = why(name);
      if (!reason) unexpected[`${name} ${type}`] = d;
      else justified.set(reason, (justified.get(reason) ?? 0) + 1);
    }
  const total = names.length * TYPES.length;
  figures.push(
    `templates: ${total} questions, ${same} same, ${total - same - Object.keys(unexpected).length} justified (${[...justified].map(([r, n]) => `${r}: ${n}`).join('; ')}), ${Object.keys(unexpected).length} differing`,
  );
  assert.deepEqual(unexpected, {}, JSON.stringify(unexpected, null, 2));
});

test('the ClusterRole reads exactly the resources named: ConfigMaps, and still no Secret', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(saKubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.listConfigMapForAllNamespaces();
  await assert.rejects(core.listSecretForAllNamespaces(), (e: { code?: number }) => e.code === 403);
});

test('a running controller follows ConfigMaps as they come, change and go', async () => {
  const controller = await startController({
    kubeconfigFile: saKubeconfig,
    etcdEndpoints: [oursEtcd.endpoint],
    ownerId: 'ours',
    identity: 'templates',
    args: [
      ...SOURCES.flatMap((s) => ['--source', s]),
      ...RESOURCES.flatMap((r) => ['--unstructured-resource', r]),
      ...TEMPLATE_FLAGS,
      '--domain-filter',
      'example.org',
    ],
  });
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const answer = async () => answerData(await dig({ port: ours.port, name: 'live.example.org', type: 'A' }), 'A');
  const until = (label: string, want: string[]) =>
    waitFor(label, async () => (JSON.stringify(await answer()) === JSON.stringify(want) ? true : undefined), 10_000);
  const started = performance.now();
  await core.createNamespacedConfigMap({
    namespace: 'apps',
    body: { metadata: { name: 'live' }, data: { hostname: 'live.example.org', target: '10.0.0.200' } },
  });
  await until('live.example.org published', ['10.0.0.200']);
  figures.push(`a new ConfigMap answered after ${Math.round(performance.now() - started)} ms`);
  await core.patchNamespacedConfigMap(
    { name: 'live', namespace: 'apps', body: { data: { target: '10.0.0.201' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  await until('live.example.org changed', ['10.0.0.201']);
  await core.deleteNamespacedConfigMap({ name: 'live', namespace: 'apps' });
  await until('live.example.org gone', []);
  await controller.stop();
});
