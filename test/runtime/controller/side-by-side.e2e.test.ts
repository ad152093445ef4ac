// Side by side with the real external-dns: the same Services and Ingresses in one
// kube-apiserver, external-dns (CoreDNS provider, TXT registry) writing one etcd, our controller
// another, each read by our DNS server. Every published name is asked on both; the answers must
// be the same except for the differences listed (and explained) in EXPECTED_DIFFERENCES.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { answerData, dig } from '../../support/dig.ts';
import { answerDifferences, comparable } from '../../support/dns-compare.ts';
import { startEtcd } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { runExternalDns } from '../../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createIngress } from '../../support/kube-objects.ts';
import { stopAll } from '../../support/process.ts';
import { runOnce } from './controller-harness.ts';

const H = 'external-dns.kubernetes.io/'; // external-dns v0.22 reads only this prefix by default
let kube: KubeHandle;
let ours: EtcdnsServerHandle;
let theirs: EtcdnsServerHandle;

/** name, type -> why the answers differ. Everything else must be identical. */
const EXPECTED_DIFFERENCES: Record<string, string> = {
  'a-web.example.org. TXT':
    'external-dns publishes its ownership (TXT registry) records in the zone; we keep ownership in the value',
  '_np._tcp.np.example.org. SRV':
    'we publish the NodePort SRV record; external-dns manages only A, AAAA and CNAME by default',
};

const QUESTIONS: [string, string][] = [
  ['web.example.org.', 'A'],
  ['a-web.example.org.', 'TXT'],
  ['lbname.example.org.', 'CNAME'],
  ['lbname.example.org.', 'A'],
  ['ext.example.org.', 'CNAME'],
  ['int.example.org.', 'A'],
  ['np.example.org.', 'A'],
  ['_np._tcp.np.example.org.', 'SRV'],
  ['site.example.org.', 'A'],
  ['secure.example.org.', 'A'],
  ['shared.example.org.', 'A'],
  ['ao-rule.example.org.', 'A'],
  ['ao-annotated.example.org.', 'A'],
  ['dh-rule.example.org.', 'A'],
  ['dh-annotated.example.org.', 'A'],
  ['both.example.org.', 'A'],
  ['both2.example.org.', 'A'],
  ['missing.example.org.', 'A'],
];

before(async () => {
  kube = await startKubeApiserver();
  const [etcdOurs, etcdTheirs] = await Promise.all([startEtcd(), startEtcd()]);
  [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcdOurs.endpoints, zones: ['example.org'] }),
    startEtcdnsServer({ etcdEndpoints: etcdTheirs.endpoints, zones: ['example.org'] }),
  ]);
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  for (const [name, ip] of [
    ['n1', '203.0.113.1'],
    ['n2', '203.0.113.2'],
  ] as const) {
    const node = await core.createNode({ body: { metadata: { name } } });
    node.status = {
      addresses: [
        { type: 'InternalIP', address: `10.0.0.${name.slice(1)}` },
        { type: 'ExternalIP', address: ip },
      ],
    };
    await core.replaceNodeStatus({ name, body: node });
  }
  const svc = async (
    name: string,
    spec: k8s.V1ServiceSpec,
    annotations: Record<string, string>,
    lb?: k8s.V1LoadBalancerIngress[],
  ) => {
    await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name, annotations }, spec: { ports: [{ port: 80, protocol: 'TCP' }], ...spec } },
    });
    if (!lb) return;
    const s = await core.readNamespacedService({ name, namespace: 'default' });
    s.status = { loadBalancer: { ingress: lb } };
    await core.replaceNamespacedServiceStatus({ name, namespace: 'default', body: s });
  };
  await svc('web', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'web.example.org', [`${H}ttl`]: '60' }, [
    { ip: '10.9.0.1' },
  ]);
  await svc('lbname', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'lbname.example.org' }, [
    { hostname: 'lb.provider.net' },
  ]);
  await svc(
    'ext',
    { type: 'ExternalName', externalName: 'upstream.example.net' },
    { [`${H}hostname`]: 'ext.example.org' },
  );
  await svc('int', { type: 'ClusterIP' }, { [`${H}internal-hostname`]: 'int.example.org' });
  await svc('np', { type: 'NodePort' }, { [`${H}hostname`]: 'np.example.org' });
  await svc('shared-a', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'shared.example.org' }, [{ ip: '10.9.5.1' }]);
  await svc('shared-b', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'shared.example.org' }, [{ ip: '10.9.5.2' }]);
  await createIngress(kube.admin, {
    name: 'site',
    spec: { rules: [{ host: 'site.example.org' }], tls: [{ hosts: ['secure.example.org'] }] },
    addresses: [{ ip: '10.9.1.1' }],
  });
  const networking = kube.admin.makeApiClient(k8s.NetworkingV1Api);
  const ingress = async (name: string, host: string, annotations: Record<string, string>, ip: string) => {
    await networking.createNamespacedIngress({
      namespace: 'default',
      body: { metadata: { name, annotations }, spec: { rules: [{ host }] } },
    });
    const ing = await networking.readNamespacedIngress({ name, namespace: 'default' });
    ing.status = { loadBalancer: { ingress: [{ ip }] } };
    await networking.replaceNamespacedIngressStatus({ name, namespace: 'default', body: ing });
  };
  // ingress-hostname-source: only the annotation's names, or only the rule hosts.
  await ingress(
    'annotation-only',
    'ao-rule.example.org',
    { [`${H}hostname`]: 'ao-annotated.example.org', [`${H}ingress-hostname-source`]: 'annotation-only' },
    '10.9.2.1',
  );
  await ingress(
    'defined-hosts-only',
    'dh-rule.example.org',
    { [`${H}hostname`]: 'dh-annotated.example.org', [`${H}ingress-hostname-source`]: 'defined-hosts-only' },
    '10.9.3.1',
  );
  // One name wanted by a Service and an Ingress: external-dns keeps one of them (the lower target
  // here), not the union; once the Service's, once the Ingress's.
  await svc('both-svc', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'both.example.org' }, [{ ip: '10.9.6.2' }]);
  await ingress('both-ing', 'both.example.org', {}, '10.9.6.1');
  await svc('both2-svc', { type: 'LoadBalancer' }, { [`${H}hostname`]: 'both2.example.org' }, [{ ip: '10.9.7.1' }]);
  await ingress('both2-ing', 'both2.example.org', {}, '10.9.7.2');

  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: etcdTheirs.endpoints,
    args: [
      '--source=service',
      '--source=ingress',
      '--domain-filter=example.org',
      '--txt-owner-id=theirs',
      '--registry=txt',
      '--policy=sync',
    ],
  });
  const once = await runOnce({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: [etcdOurs.endpoint],
    ownerId: 'ours',
    args: ['--domain-filter', 'example.org'],
  });
  assert.equal(once.code, 0, once.stderr);
  // Both servers follow their etcd through a watch; give them a moment to see the last writes.
  await new Promise((r) => setTimeout(r, 500));
});
after(stopAll);

test('the same DNS answers as external-dns for every published name, except the listed differences', async () => {
  const differences: Record<string, string[]> = {};
  for (const [name, type] of QUESTIONS) {
    const [a, b] = await Promise.all([dig({ port: ours.port, name, type }), dig({ port: theirs.port, name, type })]);
    const d = answerDifferences(comparable(a), comparable(b), ['etcdns', 'external-dns']);
    if (d.length > 0) differences[`${name} ${type}`] = d;
  }
  assert.deepEqual(
    Object.keys(differences).sort(),
    Object.keys(EXPECTED_DIFFERENCES).sort(),
    JSON.stringify(differences, null, 2),
  );
  // Not two empty zones agreeing: the names are really there.
  const present = [
    ['web.example.org.', ['10.9.0.1']],
    ['shared.example.org.', ['10.9.5.1', '10.9.5.2']],
    ['secure.example.org.', ['10.9.1.1']],
    ['ao-annotated.example.org.', ['10.9.2.1']],
    ['dh-rule.example.org.', ['10.9.3.1']],
    ['both.example.org.', ['10.9.6.1']],
    ['both2.example.org.', ['10.9.7.1']],
  ] as const;
  for (const [name, want] of present)
    assert.deepEqual(answerData(await dig({ port: ours.port, name }), 'A'), want, name);
});
