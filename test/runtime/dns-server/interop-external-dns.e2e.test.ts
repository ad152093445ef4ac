// Interoperability: records written by the real external-dns (CoreDNS provider, v0.22) from
// Services in a real kube-apiserver are answered correctly by etcdns, and follow when
// external-dns removes them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { dig, type DigResult } from '../../support/dig.ts';
import { comparable } from '../../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { runExternalDns } from '../../support/external-dns.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../support/process.ts';

let kube: KubeHandle;
let records: EtcdHandle;
let ours: EtcdnsServerHandle;
let core: k8s.CoreV1Api;

type Ingress = { ip?: string; hostname?: string };

async function loadBalancer(name: string, annotations: Record<string, string>, ingress: Ingress[]): Promise<void> {
  await createLoadBalancerService(kube.admin, { name, annotations, addresses: ingress });
}

const externalDns = () =>
  runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: records.endpoints,
    args: [
      '--source=service',
      '--domain-filter=example.org',
      '--txt-owner-id=interop',
      '--registry=txt',
      '--policy=sync',
    ],
  });

const ask = (name: string, type = 'A') => dig({ port: ours.port, name, type });
// external-dns v0.22 reads annotations under its --annotation-prefix, "external-dns.kubernetes.io/"
// by default; it ignores the older "external-dns.alpha.kubernetes.io/" spelling.
const ANNOTATION = 'external-dns.kubernetes.io/';
const hostname = `${ANNOTATION}hostname`;

before(async () => {
  [kube, records] = await Promise.all([startKubeApiserver(), startEtcd()]);
  core = kube.admin.makeApiClient(k8s.CoreV1Api);
  // The server starts on an empty prefix and picks external-dns's writes up through its watch.
  ours = await startEtcdnsServer({ etcdEndpoints: records.endpoints, zones: ['example.org.'] });
  await loadBalancer('nginx-frontend', { [hostname]: 'nginx.example.org', [`${ANNOTATION}ttl`]: '60' }, [
    { ip: '10.9.176.213' },
  ]);
  await loadBalancer('dual-stack', { [hostname]: 'dual.example.org' }, [
    { ip: '10.9.176.220' },
    { ip: '2001:db8::220' },
  ]);
  await loadBalancer('two-names', { [hostname]: 'a.multi.example.org,b.multi.example.org' }, [{ ip: '10.9.176.230' }]);
  await loadBalancer('cloud-lb', { [hostname]: 'lb.example.org' }, [{ hostname: 'lb-1234.provider.example.net' }]);
  await externalDns();
  // Ready when the last name external-dns wrote is answered.
  await waitFor('the records external-dns wrote', async () =>
    (await ask('lb.example.org', 'CNAME')).status === 'NOERROR' ? true : undefined,
  );
});
after(stopAll);

const answer = (r: DigResult) => {
  assert.ok(r.flags.includes('aa'), `authoritative\n${r.raw}`);
  return comparable(r).answer;
};

test('addresses external-dns wrote in its child-entry layout, with the annotated TTL', async (t) => {
  const cases = [
    { name: 'nginx.example.org', type: 'A', want: ['nginx.example.org. 60 IN A 10.9.176.213'] },
    { name: 'dual.example.org', type: 'A', want: ['dual.example.org. 300 IN A 10.9.176.220'] },
    { name: 'dual.example.org', type: 'AAAA', want: ['dual.example.org. 300 IN AAAA 2001:db8::220'] },
    { name: 'a.multi.example.org', type: 'A', want: ['a.multi.example.org. 300 IN A 10.9.176.230'] },
    { name: 'b.multi.example.org', type: 'A', want: ['b.multi.example.org. 300 IN A 10.9.176.230'] },
  ];
  for (const c of cases) {
    await t.test(`${c.name} ${c.type}`, async () => {
      const r = await ask(c.name, c.type);
      assert.equal(r.status, 'NOERROR', r.raw);
      assert.deepEqual(answer(r), c.want);
    });
  }
});

test('a load balancer with a hostname is a CNAME, also for CNAME queries (deviation 1)', async () => {
  const cname = await ask('lb.example.org', 'CNAME');
  assert.deepEqual(answer(cname), ['lb.example.org. 300 IN CNAME lb-1234.provider.example.net.']);
  // Out of our zones the chain stops at the CNAME; the client's resolver follows it.
  const a = await ask('lb.example.org', 'A');
  assert.deepEqual(answer(a), ['lb.example.org. 300 IN CNAME lb-1234.provider.example.net.']);
});

test("external-dns's TXT registry entries are answered as TXT", async () => {
  const r = await ask('a-nginx.example.org', 'TXT');
  assert.equal(r.answer.length, 1, r.raw);
  assert.match(
    r.answer[0]!.data,
    /heritage=external-dns,external-dns\/owner=interop,external-dns\/resource=service\/default\/nginx-frontend/,
  );
});

test('names without data: NODATA for the parent of two names, NXDOMAIN for a name never written', async () => {
  const parent = await ask('multi.example.org', 'A');
  assert.equal(parent.status, 'NOERROR', parent.raw);
  assert.deepEqual(answer(parent), [], 'the parent of a.multi and b.multi exists but has no address');
  const none = await ask('nginx2.example.org', 'A');
  assert.equal(none.status, 'NXDOMAIN', none.raw);
  assert.equal(none.authority[0]?.type, 'SOA');
});

test('a Service external-dns unpublishes disappears from the answers', async () => {
  await core.deleteNamespacedService({ name: 'nginx-frontend', namespace: 'default' });
  await externalDns();
  const gone = await waitFor('nginx.example.org to be gone', async () => {
    const r = await ask('nginx.example.org', 'A');
    return r.status === 'NXDOMAIN' ? r : undefined;
  });
  assert.deepEqual(gone.answer, []);
  assert.deepEqual(answer(await ask('dual.example.org', 'A')), ['dual.example.org. 300 IN A 10.9.176.220']);
});
