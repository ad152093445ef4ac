// End to end for the sources of today: the real kube-apiserver with the Gateway API CRDs
// (v1.6.3) and the DNSEndpoint CRD etcdns synthesizes, etcd, our DNS server and `etcdns
// controller` running as a ServiceAccount with exactly the RBAC the construct synthesizes for
// these sources; Gateways and routes get their status through /status as a Gateway controller
// would set it. Checked with dig, and by reading back the DNSEndpoints' status and Events.
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { SourceKind } from '../../../../src/config/source-kinds.ts';
import { answerData, dig, type DigResult } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import {
  acceptRoute,
  createDnsEndpoint,
  createGateway,
  createRoute,
  deleteDnsEndpoint,
  deleteRoute,
  installDnsEndpointCrd,
  installGatewayApiCrds,
  readDnsEndpoint,
  type RouteSpec,
} from '../../../support/gateway-api.ts';
import { startKubeApiserver, type KubeHandle } from '../../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { controllerKubeconfig, runPlan, startController, type ControllerHandle } from '../controller-harness.ts';

const SOURCES: SourceKind[] = [
  'service',
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
  'crd',
];
const N = 'external-dns.kubernetes.io/';
/** What the issue asks: an answer within 1 s of the object's creation. */
const GOAL_MS = 1000;

let kube: KubeHandle;
let etcd: EtcdHandle;
let server: EtcdnsServerHandle;
let controller: ControllerHandle;
let kubeconfig: string;
const figures: string[] = [];
const ARGS = [...SOURCES.flatMap((s) => ['--source', s]), '--domain-filter', 'example.org,176.9.10.in-addr.arpa'];

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org', '176.9.10.in-addr.arpa'],
  });
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  for (const name of ['infra', 'apps', 'dns']) await core.createNamespace({ body: { metadata: { name } } });
  await installGatewayApiCrds(kube.admin);
  kubeconfig = await controllerKubeconfig(kube, SOURCES);
  controller = await startController({
    kubeconfigFile: kubeconfig,
    etcdEndpoints: etcd.endpoints,
    ownerId: 'e2e',
    args: ARGS,
    waitReady: false,
  });
});
after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

const q = (name: string, type = 'A') => dig({ port: server.port, name, type });
/** Milliseconds from `since` until `check` holds for the answer to (name, type). */
async function answeredAfter(
  since: number,
  name: string,
  type: string,
  check: (r: DigResult) => boolean,
  timeoutMs = 10_000,
): Promise<number> {
  await waitFor(`${type} ${name}`, async () => (check(await q(name, type)) ? true : undefined), timeoutMs, 20).catch(
    async (e: Error) => {
      const last = await q(name, type);
      throw new Error(
        `${e.message}; last: ${last.status} ${JSON.stringify(last.answer)}\n${controller.process.logs().slice(-3000)}`,
      );
    },
  );
  return Math.round(performance.now() - since);
}
const data = (type: string, want: string[]) => (r: DigResult) =>
  r.status === 'NOERROR' && JSON.stringify(answerData(r, type)) === JSON.stringify([...want].sort());
const nx = (r: DigResult) => r.status === 'NXDOMAIN';

test('a source whose CRD is not installed holds back nothing else: the other kinds are published, /readyz names what to install; installed, it syncs', async () => {
  await createLoadBalancerService(kube.admin, {
    name: 'before-crd',
    namespace: 'infra',
    annotations: { [`${N}hostname`]: 'before-crd.example.org' },
    addresses: [{ ip: '10.0.0.40' }],
  });
  const started = performance.now();
  await answeredAfter(started, 'before-crd.example.org', 'A', data('A', ['10.0.0.40']));
  const readyz = await controller.http('/readyz');
  assert.equal(readyz.status, 200, readyz.body);
  assert.match(
    readyz.body,
    /records kept as they are for what is not served: DNSEndpoint \(not served by the API server .*install its CRD, or take crd out of the sources/,
  );
  const notServed = async () =>
    (await controller.http('/metrics')).body.match(
      /^etcdns_controller_kind_not_served\{kind="DNSEndpoint"\} (\d)$/m,
    )?.[1];
  assert.equal(await notServed(), '1');
  await installDnsEndpointCrd(kube.admin);
  const installed = performance.now();
  await waitFor(
    'readyz no longer names DNSEndpoint',
    async () => (!(await controller.http('/readyz')).body.includes('DNSEndpoint') ? true : undefined),
    60_000,
  );
  await waitFor('the metric says served', async () => ((await notServed()) === '0' ? true : undefined));
  figures.push(`CRD installed -> read ${Math.round(performance.now() - installed)} ms`);
});

const routes: (RouteSpec & { listener: string; host: string })[] = [
  {
    kind: 'HTTPRoute',
    name: 'web',
    namespace: 'apps',
    hostnames: ['web.example.org'],
    parents: [],
    listener: 'http',
    host: 'web.example.org',
  },
  {
    kind: 'GRPCRoute',
    name: 'rpc',
    namespace: 'apps',
    hostnames: ['rpc.example.org'],
    parents: [],
    listener: 'https',
    host: 'rpc.example.org',
  },
  {
    kind: 'TLSRoute',
    name: 'tls',
    namespace: 'apps',
    hostnames: ['tls.example.org'],
    parents: [],
    listener: 'tls',
    host: 'tls.example.org',
  },
  {
    kind: 'TCPRoute',
    name: 'db',
    namespace: 'apps',
    parents: [],
    annotations: { [`${N}hostname`]: 'db.example.org' },
    listener: 'tcp',
    host: 'db.example.org',
  },
  { kind: 'UDPRoute', name: 'game', namespace: 'apps', parents: [], listener: 'udp', host: 'game.example.org' },
];

test('each route kind: through its listener, at the Gateway address, within 1 s of its status', async () => {
  await createGateway(kube.admin, {
    name: 'gw',
    namespace: 'infra',
    addresses: ['10.9.176.80'],
    listeners: [
      {
        name: 'http',
        protocol: 'HTTP',
        port: 80,
        hostname: '*.example.org',
        allowedRoutes: { namespaces: { from: 'All' } },
      },
      { name: 'https', protocol: 'HTTPS', port: 443, allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'tls', protocol: 'TLS', port: 8443, allowedRoutes: { namespaces: { from: 'All' } } },
      { name: 'tcp', protocol: 'TCP', port: 5432, allowedRoutes: { namespaces: { from: 'All' } } },
      {
        name: 'udp',
        protocol: 'UDP',
        port: 7777,
        hostname: 'game.example.org',
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  });
  // Every kind is tried, so one slow kind does not hide how the others did.
  const slow: string[] = [];
  for (const r of routes) {
    const route = { ...r, parents: [{ name: 'gw', namespace: 'infra', sectionName: r.listener }] };
    // The clock starts at the status, as a Gateway controller writes it. The create before it is
    // the API server's alone: the first create of a Gateway API kind took 2,012 ms at times here
    // (ConfigMaps' never did), and the route is not published before its status anyway.
    const creating = performance.now();
    await createRoute(kube.admin, { ...route, accepted: false });
    const createMs = Math.round(performance.now() - creating);
    const started = performance.now();
    await acceptRoute(kube.admin, route);
    const ms = await answeredAfter(started, r.host, 'A', data('A', ['10.9.176.80']));
    figures.push(`${r.kind} -> answer ${ms} ms (its create ${createMs} ms)`);
    if (ms >= GOAL_MS) slow.push(`${r.kind}: ${ms} ms`);
  }
  // Where a slow one waited: the controller's log (a watch renewed, a list retried), etcd's
  // warnings (a slow fsync, an apply that took too long).
  const why = () =>
    `\n--- controller ---\n${controller.process.logs().slice(-3000)}\n--- etcd ---\n${etcd.members[0]!.process!.logs().slice(-3000)}`;
  assert.deepEqual(slow, [], `route kinds over ${GOAL_MS} ms${slow.length ? why() : ''}`);
});

test('a route its Gateway has not accepted publishes nothing; accepted, it answers', async () => {
  const route: RouteSpec = {
    kind: 'HTTPRoute',
    name: 'pending',
    namespace: 'apps',
    hostnames: ['pending.example.org'],
    parents: [{ name: 'gw', namespace: 'infra', sectionName: 'http' }],
    accepted: false,
  };
  await createRoute(kube.admin, route);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await q('pending.example.org')).status, 'NXDOMAIN');
  const started = performance.now();
  await acceptRoute(kube.admin, route);
  const ms = await answeredAfter(started, 'pending.example.org', 'A', data('A', ['10.9.176.80']));
  figures.push(`route accepted -> answer ${ms} ms`);
});

test("the Gateway's address changes: every attached route's name follows", async () => {
  const started = performance.now();
  await kube.admin.makeApiClient(k8s.CustomObjectsApi).patchNamespacedCustomObjectStatus(
    {
      group: 'gateway.networking.k8s.io',
      version: 'v1',
      namespace: 'infra',
      plural: 'gateways',
      name: 'gw',
      body: { status: { addresses: [{ type: 'IPAddress', value: '10.9.176.81' }] } },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  const slowest = Math.max(
    ...(await Promise.all(routes.map((r) => answeredAfter(started, r.host, 'A', data('A', ['10.9.176.81']))))),
  );
  figures.push(`Gateway address change -> ${routes.length} routes answer ${slowest} ms`);
  assert.ok(slowest < GOAL_MS, `${slowest} ms`);
});

test('a route deleted: NXDOMAIN within 1 s', async () => {
  const started = performance.now();
  await deleteRoute(kube.admin, { kind: 'UDPRoute', name: 'game', namespace: 'apps' });
  const ms = await answeredAfter(started, 'game.example.org', 'A', nx);
  figures.push(`route deleted -> NXDOMAIN ${ms} ms`);
  assert.ok(ms < GOAL_MS, `${ms} ms`);
});

test('etcdns plan, as the controller reads the routes, finds nothing left to change', async () => {
  const plan = await runPlan({ kubeconfigFile: kubeconfig, etcdEndpoints: etcd.endpoints, ownerId: 'e2e', args: ARGS });
  assert.equal(plan.code, 0, `${plan.stdout}\n${plan.stderr}`);
  assert.match(plan.stdout, /^0 to create, 0 to update, 0 to delete, 0 conflicts$/m);
});

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}
const conditions = async (name: string) =>
  ((await readDnsEndpoint(kube.admin, 'dns', name)).status?.conditions ?? []) as Condition[];
const summary = (cs: Condition[]) => cs.map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

test('a DNSEndpoint of every type answers; an invalid endpoint is refused with its reason, the others publish', async () => {
  await createDnsEndpoint(kube.admin, {
    name: 'static',
    namespace: 'dns',
    endpoints: [
      { dnsName: 'Static.Example.org', recordType: 'A', targets: ['192.0.2.10', '192.0.2.11'], recordTTL: 120 },
      { dnsName: 'static.example.org', recordType: 'AAAA', targets: ['2001:db8::10'] },
      { dnsName: 'alias.example.org', recordType: 'CNAME', targets: ['static.example.org'] },
      { dnsName: 'example.org', recordType: 'TXT', targets: ['v=spf1 -all', 'verify=abc'] },
      { dnsName: 'example.org', recordType: 'MX', targets: ['10 mail.example.org', '20 backup.example.org'] },
      { dnsName: '_sip._tcp.example.org', recordType: 'SRV', targets: ['10 60 5060 sip.example.org'] },
      { dnsName: 'sub.example.org', recordType: 'NS', targets: ['ns1.other.net', 'ns2.other.net'] },
      { dnsName: '10.176.9.10.in-addr.arpa', recordType: 'PTR', targets: ['static.example.org'] },
      {
        dnsName: 'bad.example.org',
        recordType: 'NAPTR',
        targets: ['100 10 "u" "E2U+sip" "!^.*$!sip:x@example.org!" .'],
      },
      { dnsName: 'worse.example.org', recordType: 'A', targets: ['not-an-ip'] },
    ],
  });
  // From the moment the API server holds the object: the first create of a kind after its CRD
  // was installed takes the API server itself about 2 s here.
  const started = performance.now();
  const wanted: [string, string, string[]][] = [
    ['static.example.org', 'A', ['192.0.2.10', '192.0.2.11']],
    ['static.example.org', 'AAAA', ['2001:db8::10']],
    ['alias.example.org', 'CNAME', ['static.example.org.']],
    ['example.org', 'TXT', ['"v=spf1 -all"', '"verify=abc"']],
    ['example.org', 'MX', ['10 mail.example.org.', '20 backup.example.org.']],
    ['_sip._tcp.example.org', 'SRV', ['10 100 5060 sip.example.org.']],
    ['10.176.9.10.in-addr.arpa', 'PTR', ['static.example.org.']],
  ];
  // Each name polled on its own: one's time does not include waiting on the others' answers.
  const times = await Promise.all(
    wanted.map(([name, type, want]) => answeredAfter(started, name, type, data(type, want))),
  );
  const slowest = Math.max(...times);
  figures.push(`DNSEndpoint of ${wanted.length} record sets -> all answer ${slowest} ms`);
  assert.ok(slowest < GOAL_MS, `${slowest} ms`);
  const a = await q('static.example.org');
  assert.ok(
    a.answer.every((r) => r.ttl === 120),
    JSON.stringify(a.answer),
  );
  // The delegation: a referral to the name servers, not an answer.
  const referral = await q('www.sub.example.org');
  assert.equal(referral.status, 'NOERROR');
  assert.ok(!referral.flags.includes('aa'), 'a referral is not authoritative');
  assert.deepEqual(
    referral.authority
      .filter((r) => r.type === 'NS')
      .map((r) => r.data)
      .sort(),
    ['ns1.other.net.', 'ns2.other.net.'],
  );
  for (const name of ['bad.example.org', 'worse.example.org']) assert.equal((await q(name)).status, 'NXDOMAIN');

  const status = await waitFor('status written', async () => {
    const cs = await conditions('static');
    return cs.length === 2 ? cs : undefined;
  });
  assert.equal(summary(status), 'Accepted=False/Invalid Ready=True/Programmed');
  assert.match(
    status[0]!.message,
    /2 of 10 endpoint\(s\) refused: endpoints\[8\] \(NAPTR bad\.example\.org\): recordType NAPTR cannot be expressed/,
  );
  assert.match(
    status[0]!.message,
    /endpoints\[9\] \(A worse\.example\.org\): target "not-an-ip" is not an IPv4 address/,
  );
  const object = await readDnsEndpoint(kube.admin, 'dns', 'static');
  assert.equal(object.status.observedGeneration, object.metadata.generation);
  // Each problem an Event on the object.
  const events = await waitFor('InvalidEndpoint Events', async () => {
    const list = await kube.admin.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({ namespace: 'dns' });
    const ours = list.items.filter((e) => e.involvedObject.name === 'static' && e.reason === 'InvalidEndpoint');
    return ours.length === 2 ? ours : undefined;
  });
  assert.ok(events.every((e) => e.involvedObject.kind === 'DNSEndpoint' && e.type === 'Warning'));
});

test('kubectl get dnsendpoints shows whether each object is live (the printer columns, as the API server renders them)', async () => {
  const table = await fetchTable('/apis/externaldns.k8s.io/v1alpha1/namespaces/dns/dnsendpoints');
  const columns = table.columnDefinitions.map((c: { name: string }) => c.name);
  assert.deepEqual(columns, ['Name', 'Accepted', 'Ready', 'Reason', 'Age']);
  const row = table.rows.find((r: { cells: string[] }) => r.cells[0] === 'static');
  assert.deepEqual(row?.cells.slice(0, 4), ['static', 'False', 'True', 'Programmed']);
});

test('a DNSEndpoint losing to a Service at its name says Conflict; fixed, it is Programmed', async () => {
  await createLoadBalancerService(kube.admin, {
    name: 'shop',
    annotations: { [`${N}hostname`]: 'shop.example.org' },
    addresses: [{ ip: '10.9.176.90' }],
  });
  await answeredAfter(performance.now(), 'shop.example.org', 'A', data('A', ['10.9.176.90']));
  await createDnsEndpoint(kube.admin, {
    name: 'shop-alias',
    namespace: 'dns',
    endpoints: [{ dnsName: 'shop.example.org', recordType: 'CNAME', targets: ['elsewhere.example.net'] }],
  });
  const status = await waitFor('Conflict', async () => {
    const cs = await conditions('shop-alias');
    return summary(cs) === 'Accepted=True/Accepted Ready=False/Conflict' ? cs : undefined;
  });
  assert.match(status[1]!.message, /CNAME shop\.example\.org\. cannot coexist with its other records \(A\)/);
  assert.deepEqual(answerData(await q('shop.example.org'), 'A'), ['10.9.176.90']);
  await kube.admin.makeApiClient(k8s.CoreV1Api).deleteNamespacedService({ name: 'shop', namespace: 'default' });
  await waitFor('Programmed', async () =>
    summary(await conditions('shop-alias')) === 'Accepted=True/Accepted Ready=True/Programmed' ? true : undefined,
  ).catch(async (e: Error) => {
    throw new Error(
      `${e.message}: ${JSON.stringify(await conditions('shop-alias'))}\n${controller.process.logs().slice(-3000)}`,
    );
  });
  await answeredAfter(performance.now(), 'shop.example.org', 'CNAME', data('CNAME', ['elsewhere.example.net.']));
});

test('a DNSEndpoint deleted: its names answer NXDOMAIN within 1 s', async () => {
  const started = performance.now();
  await deleteDnsEndpoint(kube.admin, 'dns', 'static');
  const ms = await answeredAfter(started, 'static.example.org', 'A', nx);
  figures.push(`DNSEndpoint deleted -> NXDOMAIN ${ms} ms`);
  assert.ok(ms < GOAL_MS, `${ms} ms`);
  assert.deepEqual(answerData(await q('example.org', 'TXT'), 'TXT'), []);
});

/** A list as `kubectl get` asks for it: the server renders the CRD's printer columns. */
async function fetchTable(
  path: string,
): Promise<{ columnDefinitions: { name: string }[]; rows: { cells: string[] }[] }> {
  const options: https.RequestOptions = { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };
  await kube.admin.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, kube.server), options, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${res.statusCode} ${body}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
