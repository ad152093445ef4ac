// A hub's claims (issue 34), all real: the hub's etcd (TLS, client certificates, authentication
// on: the spoke logs in as cluster-dc1, whose role reaches only its prefix), a kube-apiserver with
// the DNSEndpoint CRD (cluster dc1), the real controller as dc1's spoke with its claims, and the
// real etcdns server as the hub with dc1's claims in its config, asked by dig. A DNSEndpoint
// asking for a name outside dc1's claims: the spoke refuses it with the reason on the object
// (Ready NotClaimed, an Event) and its problems metric, and publishes the rest. An entry written
// straight into dc1's prefix with dc1's credentials (no controller) for an unclaimed name: the
// hub neither answers nor transfers it, and lists it with the reason (JSON, HTML, metric).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { controllerKubeconfig, startController, type ControllerHandle } from '../controller/controller-harness.ts';
import { makeTestPki, type TestPki } from '../../support/certificates.ts';
import { dig } from '../../support/dig.ts';
import { digAxfr } from '../../support/dig-axfr.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { createDnsEndpoint, installDnsEndpointCrd, readDnsEndpoint } from '../../support/gateway-api.ts';
import { enableHubAuth, type HubEtcdUsers } from '../../support/hub-etcd-users.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';

const ZONE = 'claims.test';
const CLAIM = `dc1.${ZONE}`;
let etcd: EtcdHandle;
let pki: TestPki;
let users: HubEtcdUsers;
let kube: KubeHandle;
let spoke: ControllerHandle;
let hub: EtcdnsServerHandle;

before(async () => {
  pki = makeTestPki(tempDir('claims-pki'), 'etcdns');
  [etcd, kube] = await Promise.all([startEtcd({ tls: pki }), startKubeApiserver()]);
  users = await enableHubAuth(etcd, pki, ['dc1']);
  await installDnsEndpointCrd(kube.admin);
  await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'dns' } } });
  const dir = tempDir('claims-config');
  // The spoke's config as a SpokeStack renders it: its suffixes are its domains and its claims.
  writeFileSync(join(dir, 'spoke.json'), JSON.stringify({ claims: [{ suffix: CLAIM }] }));
  writeFileSync(
    join(dir, 'hub.json'),
    JSON.stringify({
      hub: { clusters: [{ name: 'dc1', suffixes: [CLAIM] }] },
      transfer: { allowCidrs: ['127.0.0.0/8'] },
    }),
  );
  [spoke, hub] = await Promise.all([
    startController({
      kubeconfigFile: await controllerKubeconfig(kube, ['crd']),
      etcdEndpoints: [etcd.endpoint],
      ownerId: 'dc1',
      identity: 'dc1-a',
      args: [
        '--config',
        join(dir, 'spoke.json'),
        '--cluster',
        'dc1',
        '--cluster-lease-seconds',
        '3',
        '--source',
        'crd',
        '--domain-filter',
        CLAIM,
        ...users.asUser('cluster-dc1'),
      ],
    }),
    startEtcdnsServer({
      etcdEndpoints: [etcd.endpoint],
      zones: [ZONE],
      args: ['--config', join(dir, 'hub.json'), ...users.asUser('server-hub')],
    }),
  ]);
});
after(async () => {
  users?.root.close();
  await stopAll();
});

/** The hub's answer to an A question: its status and addresses. */
async function ask(name: string): Promise<{ status: string; addresses: string[] }> {
  const result = await dig({ port: hub.port, name });
  return { status: result.status, addresses: result.answer.filter((r) => r.type === 'A').map((r) => r.data) };
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

test("a DNSEndpoint asking for a name outside the spoke's claims: refused with the reason on the object, the rest published", async () => {
  await createDnsEndpoint(kube.admin, {
    name: 'mixed',
    namespace: 'dns',
    endpoints: [
      { dnsName: `web.${CLAIM}`, recordType: 'A', targets: ['10.1.0.7'] },
      { dnsName: `web.dc2.${ZONE}`, recordType: 'A', targets: ['10.1.0.8'] },
    ],
  });
  await waitFor('the claimed name answers at the hub', async () =>
    (await ask(`web.${CLAIM}`)).addresses.includes('10.1.0.7') ? true : undefined,
  );
  assert.deepEqual(await ask(`web.dc2.${ZONE}`), { status: 'NXDOMAIN', addresses: [] });

  const ready = await waitFor('Ready condition NotClaimed', async () => {
    const conditions = ((await readDnsEndpoint(kube.admin, 'dns', 'mixed')).status?.conditions ?? []) as Condition[];
    const found = conditions.find((c) => c.type === 'Ready');
    return found?.reason === 'NotClaimed' ? found : undefined;
  });
  assert.equal(ready.status, 'False');
  assert.match(
    ready.message,
    /hostname "web\.dc2\.claims\.test\." is skipped: .* outside cluster dc1's claims \(dc1\.claims\.test\.\)/,
  );
  const events = await waitFor('a NameNotClaimed Event', async () => {
    const list = await kube.admin.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({ namespace: 'dns' });
    const ours = list.items.filter((e) => e.involvedObject.name === 'mixed' && e.reason === 'NameNotClaimed');
    return ours.length > 0 ? ours : undefined;
  });
  assert.equal(events.length, 1);
  assert.equal(events[0]!.involvedObject.kind, 'DNSEndpoint');
  assert.equal(events[0]!.type, 'Warning');
  assert.equal(await spoke.metric('etcdns_controller_problems', 'reason="NameNotClaimed"'), 1);
  assert.match(
    spoke.process.logs(),
    /web\.dc2\.claims\.test\..*NameNotClaimed|NameNotClaimed.*web\.dc2\.claims\.test\./,
  );
  // The spoke's own status page lists the problem.
  const status = JSON.parse((await spoke.http('/status.json')).body) as {
    problems: { reason: string; name?: string }[];
  };
  assert.ok(
    status.problems.some((p) => p.reason === 'NameNotClaimed' && p.name?.replace(/\.$/, '') === `web.dc2.${ZONE}`),
    JSON.stringify(status.problems),
  );
});

test("an entry written straight into the spoke's prefix for an unclaimed name: never answered nor transferred, listed at the hub", async () => {
  const dc1 = users.client('cluster-dc1');
  try {
    // The cluster's etcd role reaches its whole prefix: the hub is what keeps it to its claims.
    await dc1.put(`/skydns-clusters/dc1/test/claims/dc2/api/a0000001`).value('{"host":"10.1.0.9"}');
    await dc1.put(`/skydns-clusters/dc1/test/claims/dc1/api/a0000002`).value('{"host":"10.1.0.10"}');
  } finally {
    dc1.close();
  }
  await waitFor('the claimed entry answers', async () =>
    (await ask(`api.${CLAIM}`)).addresses.includes('10.1.0.10') ? true : undefined,
  );
  assert.deepEqual(await ask(`api.dc2.${ZONE}`), { status: 'NXDOMAIN', addresses: [] });

  const summary = await waitFor('the refused name listed', async () => {
    const s = JSON.parse((await hub.http('/status.json')).body).hub;
    return s.refused.length > 0 ? s : undefined;
  });
  assert.deepEqual(summary.refused, [
    {
      cluster: 'dc1',
      name: `api.dc2.${ZONE}.`,
      reason: `"api.dc2.${ZONE}." is outside cluster dc1's claims (${CLAIM}.)`,
    },
  ]);
  assert.equal(summary.clusters[0].refusedNames, 1);
  assert.equal(metricSum((await hub.http('/metrics')).body, 'etcdns_dns_hub_refused_names', 'cluster="dc1"'), 1);
  const page = (await hub.http('/status')).body;
  assert.match(page, /Refused: outside the cluster's claims/);
  assert.ok(page.includes(`api.dc2.${ZONE}`), 'the page names the refused name');
  // The name's explanation says the same: dc1's entries there are refused by its claims.
  const explained = JSON.parse((await hub.http(`/status.json?name=api.dc2.${ZONE}`)).body).explain;
  assert.deepEqual(explained.answering, []);
  assert.equal(explained.clusters[0].entries, 1);
  assert.equal(explained.clusters[0].answers, false);
  assert.equal(explained.clusters[0].refused, `"api.dc2.${ZONE}." is outside cluster dc1's claims (${CLAIM}.)`);
  assert.match(explained.clusters[0].why, /^refused by its claims: /);

  const { records } = await digAxfr({ port: hub.port, zone: ZONE });
  const names = new Set(records.filter((r) => r.type === 'A').map((r) => r.name));
  assert.ok(names.has(`api.${CLAIM}.`) && names.has(`web.${CLAIM}.`), [...names].join(', '));
  assert.ok(![...names].some((n) => n.includes('dc2')), `nothing of dc2's names transferred: ${[...names].join(', ')}`);

  // Gone from etcd: gone from the list.
  await users.root.delete().key(`/skydns-clusters/dc1/test/claims/dc2/api/a0000001`);
  await waitFor('the list empties', async () => {
    const s = JSON.parse((await hub.http('/status.json')).body).hub;
    return s.refused.length === 0 && s.clusters[0].refusedNames === 0 ? true : undefined;
  });
});
