// End to end (issue 14): the real kube-apiserver, etcd, `etcdns controller` with reverse zones and
// SRV records configured, our DNS server and CoreDNS's etcd plugin on the same etcd, checked with
// dig: `dig -x` and `dig SRV` answers appear when a Service is created and go when it is deleted.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { answerData, dig } from '../../support/dig.ts';
import { etcdCorefile, startCoreDns, type CoreDnsHandle } from '../../support/coredns.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { controllerKubeconfig, startController } from './controller-harness.ts';

const HOST = 'external-dns.alpha.kubernetes.io/hostname';
const ZONES = ['example.org', '176.9.10.in-addr.arpa', '8.b.d.0.1.0.0.2.ip6.arpa'];
const REVERSE = '5.176.9.10.in-addr.arpa';

let kube: KubeHandle;
let etcd: EtcdHandle;
let server: EtcdnsServerHandle;
let coredns: CoreDnsHandle;
let core: k8s.CoreV1Api;

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ZONES });
  coredns = await startCoreDns(etcdCorefile({ zones: ZONES, endpoints: etcd.endpoints }), 'example.org');
  core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const config = join(tempDir('ptr-srv'), 'controller.json');
  writeFileSync(
    config,
    JSON.stringify({ reverseZones: [{ network: '10.9.176.0/24' }, { network: '2001:db8::/32' }], srv: true }),
  );
  await startController({
    kubeconfigFile: await controllerKubeconfig(kube),
    etcdEndpoints: etcd.endpoints,
    ownerId: 'e2e',
    args: ['--config', config, '--domain-filter', 'example.org'],
  });
});
after(stopAll);

/** Our server and CoreDNS give `want` for name/type (both read the same etcd). */
async function answers(name: string, type: string, want: string[], servers = () => [server.port, coredns.port]) {
  for (const port of servers()) {
    let last: string[] = [];
    await waitFor(
      `${type} ${name} = [${want.join(', ')}] from port ${port}`,
      async () => {
        // SRV: port and target (priority and weight are the server's, computed as CoreDNS does).
        last = answerData(await dig({ port, name, type }), type).map((d) =>
          type === 'SRV' ? d.split(' ').slice(2).join(' ') : d,
        );
        return JSON.stringify(last) === JSON.stringify([...want].sort()) ? true : undefined;
      },
      15_000,
      50,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last answer: ${JSON.stringify(last)}`);
    });
  }
}

async function createLoadBalancer(name: string, ips: string[], annotations: Record<string, string> = {}) {
  await core.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name, namespace: 'default', annotations: { [HOST]: `${name}.example.org`, ...annotations } },
      spec: {
        type: 'LoadBalancer',
        ports: [
          { name: 'http', port: 80, protocol: 'TCP' },
          { name: 'dns', port: 53, protocol: 'UDP' },
        ],
      },
    },
  });
  const svc = await core.readNamespacedService({ name, namespace: 'default' });
  svc.status = { loadBalancer: { ingress: ips.map((ip) => ({ ip })) } };
  await core.replaceNamespacedServiceStatus({ name, namespace: 'default', body: svc });
}
const remove = (name: string) => core.deleteNamespacedService({ name, namespace: 'default' });

test('PTR and SRV answers appear on create and go on delete, from our server and CoreDNS', async () => {
  await createLoadBalancer('web', ['10.9.176.5', '2001:db8::1', '192.0.2.7']);
  await answers('web.example.org', 'A', ['10.9.176.5', '192.0.2.7']);
  await answers(REVERSE, 'PTR', ['web.example.org.']);
  const v6 = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';
  await answers(v6, 'PTR', ['web.example.org.']);
  await answers('_http._tcp.web.example.org', 'SRV', ['80 web.example.org.']);
  await answers('_dns._udp.web.example.org', 'SRV', ['53 web.example.org.']);
  // 192.0.2.7 lies outside every reverse zone: nothing is written under its reverse name.
  const keys = Object.keys(await etcd.client().getAll().prefix('/skydns/arpa/').strings());
  assert.ok(keys.length === 2, keys.join(', '));
  assert.ok(
    keys.every((k) => k === '/skydns/arpa/in-addr/10/9/176/5' || k.startsWith('/skydns/arpa/ip6/')),
    keys.join(', '),
  );

  await remove('web');
  for (const port of [server.port, coredns.port]) {
    await waitFor(`${REVERSE} gone from ${port}`, async () =>
      answerData(await dig({ port, name: REVERSE, type: 'PTR' }), 'PTR').length === 0 ? true : undefined,
    );
    await waitFor(`SRV gone from ${port}`, async () =>
      answerData(await dig({ port, name: '_http._tcp.web.example.org', type: 'SRV' }), 'SRV').length === 0
        ? true
        : undefined,
    );
  }
  assert.deepEqual(await etcd.client().getAll().prefix('/skydns/arpa/').strings(), {});
});

test('two names on one address give two PTRs; deleting one leaves the other', async () => {
  await createLoadBalancer('a', ['10.9.176.5']);
  await createLoadBalancer('b', ['10.9.176.5']);
  // CoreDNS reads only the exact key, which holds the first name's PTR.
  await answers(REVERSE, 'PTR', ['a.example.org.', 'b.example.org.'], () => [server.port]);
  await answers(REVERSE, 'PTR', ['a.example.org.'], () => [coredns.port]);
  await remove('a');
  await answers(REVERSE, 'PTR', ['b.example.org.']);
  await remove('b');
  await answers(REVERSE, 'PTR', []);
});

test('annotation etcdns.io/ptr "false" opts a Service out of PTRs, not of its A records', async () => {
  await createLoadBalancer('quiet', ['10.9.176.9'], { 'etcdns.io/ptr': 'false' });
  await answers('quiet.example.org', 'A', ['10.9.176.9']);
  await answers('_http._tcp.quiet.example.org', 'SRV', ['80 quiet.example.org.']);
  await answers('9.176.9.10.in-addr.arpa', 'PTR', []);
  await remove('quiet');
});
