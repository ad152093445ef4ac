// npm run demo — the whole flow in one command, on loopback: a local etcd and kube-apiserver, our
// DNS server and controller; a sample Service and Ingress get load-balancer addresses the way a
// load-balancer controller would set them; then dig shows the answers. Everything is stopped at
// the end (by PID, also on failure). Needs the test programs: `npm run setup` once.
import { controllerKubeconfig, startController } from '../test/runtime/controller/controller-harness.ts';
import { answerData, dig } from '../test/support/dig.ts';
import { startEtcd } from '../test/support/etcd.ts';
import { startEtcdnsServer } from '../test/support/etcdns-server.ts';
import { startKubeApiserver } from '../test/support/kube-apiserver.ts';
import { createIngress, createLoadBalancerService } from '../test/support/kube-objects.ts';
import { stopAll, waitFor } from '../test/support/process.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

try {
  say('starting etcd (records), kube-apiserver (with its own etcd)...');
  const [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
  say(`DNS server: 127.0.0.1 port ${server.port} (zone example.org)`);
  await startController({
    kubeconfigFile: await controllerKubeconfig(kube),
    etcdEndpoints: etcd.endpoints,
    ownerId: 'demo',
    args: ['--domain-filter', 'example.org'],
  });
  say('controller: running as its ServiceAccount with the RBAC the DnsController construct synthesizes');

  await createLoadBalancerService(kube.admin, {
    name: 'nginx-frontend',
    annotations: {
      'external-dns.alpha.kubernetes.io/hostname': 'nginx.example.org',
      'external-dns.alpha.kubernetes.io/ttl': '60',
    },
    addresses: [{ ip: '10.9.176.213' }],
  });
  say('applied Service default/nginx-frontend (LoadBalancer 10.9.176.213, hostname nginx.example.org)');

  await createIngress(kube.admin, {
    name: 'shop',
    spec: { rules: [{ host: 'shop.example.org' }] },
    addresses: [{ ip: '10.9.176.214' }],
  });
  say('applied Ingress default/shop (host shop.example.org, address 10.9.176.214)');

  for (const name of ['nginx.example.org', 'shop.example.org']) {
    await waitFor(
      `${name} in DNS`,
      async () => (answerData(await dig({ port: server.port, name }), 'A').length > 0 ? true : undefined),
      15_000,
    );
    const r = await dig({ port: server.port, name });
    say(`\n$ dig @127.0.0.1 -p ${server.port} ${name} A`);
    for (const a of r.answer) say(`${a.name}\t${a.ttl}\t${a.class}\t${a.type}\t${a.data}`);
  }
  const stored = await etcd.client().getAll().prefix('/skydns/').strings();
  say('\nwhat the controller wrote to etcd:');
  for (const [key, value] of Object.entries(stored)) say(`${key} = ${value}`);
} finally {
  await stopAll();
}
