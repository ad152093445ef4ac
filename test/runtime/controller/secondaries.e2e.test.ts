// End to end (issue 14): a Service created in the real kube-apiserver is published by
// `etcdns controller` into etcd, served by `etcdns server`, and reaches the real BIND 9 and Knot,
// each a TSIG-authenticated secondary of the forward and the reverse zone, by NOTIFY and IXFR:
// its A, PTR and SRV within 2 s, its deletion (NXDOMAIN) within 2 s. Also: one change among
// 10,000 records goes as IXFR (its bytes reported), and compacted etcd history between two
// changes still brings both secondaries to the new state (the whole zone instead).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startBindSecondary, type BindSecondaryHandle } from '../../support/bind-secondary.ts';
import { answerData, dig } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from '../../support/knot-secondary.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { freePort } from '../../support/ports.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { tool } from '../../support/tools.ts';
import { controllerKubeconfig, startController } from './controller-harness.ts';
import { writeKeyFile } from '../../support/tsig-key.ts';

const run = promisify(execFile);
after(stopAll);

const SECRET = Buffer.from('etcdns secondaries e2e tsig secret').toString('base64');
const KEY = { name: 'xfr.example.org', algorithm: 'hmac-sha256', secret: SECRET };
const HOST = 'external-dns.alpha.kubernetes.io/hostname';
const FORWARD = 'example.org';
const REVERSE = '176.9.10.in-addr.arpa';
/** 10,000 records, written straight to etcd; Knot only. */
const BIG = 'big.example.net';
const BIG_COUNT = 10_000;
/** No NOTIFY: the secondaries learn of changes when told to refresh. */
const QUIET = 'quiet.example.net';
/** Propagation goal of the issue, per secondary. */
const GOAL_MS = 2000;

let kube: KubeHandle;
let etcd: EtcdHandle;
let server: EtcdnsServerHandle;
let knot: KnotSecondaryHandle;
let bind: BindSecondaryHandle;
let core: k8s.CoreV1Api;

before(async () => {
  [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
  const kv = etcd.client();
  for (let i = 0; i < BIG_COUNT; i += 128) {
    const txn = kv.if('/skydns/net/example/big', 'Create', '==', 0);
    const puts = Array.from({ length: Math.min(128, BIG_COUNT - i) }, (_, j) =>
      kv
        .put(`/skydns/net/example/big/h${i + j}`)
        .value(JSON.stringify({ host: `10.1.${(i + j) >> 8}.${(i + j) & 255}` })),
    );
    await txn.then(...puts).commit();
  }
  await kv.put('/skydns/net/example/quiet/one').value(JSON.stringify({ host: '10.2.0.1' }));
  const [knotPort, bindPort] = [await freePort(), await freePort()];
  const dir = tempDir('secondaries');
  const keyFile = writeKeyFile(dir, KEY);
  const transfer = (notify: string[]) => ({
    allowCidrs: ['127.0.0.1/32'],
    keyFile,
    ...(notify.length ? { notify } : {}),
  });
  const both = [`127.0.0.1:${knotPort}`, `127.0.0.1:${bindPort}`];
  const nameServers = [{ name: 'ns1.example.org', addresses: ['127.0.0.1'] }];
  const config = join(dir, 'server.json');
  writeFileSync(
    config,
    JSON.stringify({
      zones: [
        { name: FORWARD, nameServers, transfer: transfer(both) },
        { name: REVERSE, nameServers, transfer: transfer(both) },
        { name: BIG, nameServers, transfer: transfer([`127.0.0.1:${knotPort}`]) },
        { name: QUIET, nameServers, transfer: transfer([]) },
      ],
    }),
  );
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [], args: ['--config', config] });
  [knot, bind] = await Promise.all([
    startKnotSecondary({
      zone: [`${FORWARD}.`, `${REVERSE}.`, `${BIG}.`, `${QUIET}.`],
      primaryPort: server.port,
      port: knotPort,
      key: KEY,
    }),
    startBindSecondary({ zone: [FORWARD, REVERSE, QUIET], primaryPort: server.port, port: bindPort, key: KEY }),
  ]);
  core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const controllerConfig = join(dir, 'controller.json');
  writeFileSync(controllerConfig, JSON.stringify({ reverseZones: [{ network: '10.9.176.0/24' }], srv: true }));
  await startController({
    kubeconfigFile: await controllerKubeconfig(kube),
    etcdEndpoints: etcd.endpoints,
    ownerId: 'e2e',
    args: ['--config', controllerConfig, '--domain-filter', FORWARD],
  });
  // Both secondaries hold every zone before the tests start.
  for (const [who, port, zones] of [
    ['knotd', knotPort, [FORWARD, REVERSE, BIG, QUIET]],
    ['named', bindPort, [FORWARD, REVERSE, QUIET]],
  ] as const)
    for (const zone of zones)
      await waitFor(
        `${zone} on ${who}`,
        async () =>
          (await dig({ port, name: zone, type: 'SOA', timeoutSeconds: 1 })).answer.length > 0 ? true : undefined,
        30_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${(who === 'knotd' ? knot.process.logs() : bind.logs()).slice(-3000)}`);
      });
});

const secondaries = () => [
  { who: 'knotd', port: knot.port, logs: () => knot.process.logs() },
  { who: 'named', port: bind.port, logs: () => bind.logs() },
];

/** Milliseconds from `since` until `port` answers `want` for name/type (SRV: port and target). */
async function answeredAfter(since: number, port: number, name: string, type: string, want: string[] | 'NXDOMAIN') {
  let last = '';
  await waitFor(
    `${type} ${name} = ${JSON.stringify(want)} from port ${port}`,
    async () => {
      const r = await dig({ port, name, type, timeoutSeconds: 1 });
      const data = answerData(r, type)
        .map((d) => (type === 'SRV' ? d.split(' ').slice(2).join(' ') : d))
        .sort();
      last = `${r.status} ${JSON.stringify(data)}`;
      if (want === 'NXDOMAIN') return r.status === 'NXDOMAIN' ? true : undefined;
      return JSON.stringify(data) === JSON.stringify([...want].sort()) ? true : undefined;
    },
    15_000,
    20,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last: ${last}`);
  });
  return Math.round(performance.now() - since);
}

async function createLoadBalancer(name: string, ip: string) {
  await core.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name, namespace: 'default', annotations: { [HOST]: `${name}.${FORWARD}` } },
      spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
    },
  });
  const svc = await core.readNamespacedService({ name, namespace: 'default' });
  svc.status = { loadBalancer: { ingress: [{ ip }] } };
  await core.replaceNamespacedServiceStatus({ name, namespace: 'default', body: svc });
}

describe('BIND and Knot as TSIG secondaries of an etcdns zone, fed by the controller', () => {
  const figures: string[] = [];
  after(() => console.log(`# figures: ${figures.join('; ')}`));

  test(`a Service created: both secondaries answer its A, PTR and SRV within ${GOAL_MS} ms`, async () => {
    const started = performance.now();
    await createLoadBalancer('web', '10.9.176.5');
    for (const s of secondaries()) {
      const ms = Math.max(
        await answeredAfter(started, s.port, `web.${FORWARD}`, 'A', ['10.9.176.5']),
        await answeredAfter(started, s.port, `5.${REVERSE}`, 'PTR', [`web.${FORWARD}.`]),
        await answeredAfter(started, s.port, `_http._tcp.web.${FORWARD}`, 'SRV', [`80 web.${FORWARD}.`]),
      );
      figures.push(`create -> ${s.who} A+PTR+SRV ${ms} ms`);
      assert.ok(ms < GOAL_MS, `${s.who}: ${ms} ms\n${s.logs().slice(-2000)}`);
    }
    // Both asked IXFR for each zone (a zone this small gets its whole content back: ixfr_full).
    const page = (await server.http('/metrics')).body;
    for (const zone of [FORWARD, REVERSE]) {
      const asked = ['ixfr', 'ixfr_full'].reduce(
        (n, form) => n + metricSum(page, 'etcdns_dns_transfers_served_total', `form="${form}",zone="${zone}."`),
        0,
      );
      assert.ok(asked >= 2, `${zone}: ${asked} IXFR\n${page}`);
    }
  });

  test(`the Service deleted: both secondaries answer NXDOMAIN within ${GOAL_MS} ms`, async () => {
    const started = performance.now();
    await core.deleteNamespacedService({ name: 'web', namespace: 'default' });
    for (const s of secondaries()) {
      const ms = Math.max(
        await answeredAfter(started, s.port, `web.${FORWARD}`, 'A', 'NXDOMAIN'),
        await answeredAfter(started, s.port, `5.${REVERSE}`, 'PTR', 'NXDOMAIN'),
        await answeredAfter(started, s.port, `_http._tcp.web.${FORWARD}`, 'SRV', 'NXDOMAIN'),
      );
      figures.push(`delete -> ${s.who} NXDOMAIN ${ms} ms`);
      assert.ok(ms < GOAL_MS, `${s.who}: ${ms} ms`);
    }
  });

  test(`one change among ${BIG_COUNT} records goes to knotd as IXFR`, async () => {
    const bytes = async (form: string) => {
      const page = (await server.http('/metrics')).body;
      const labels = `form="${form}",zone="${BIG}."`;
      return {
        bytes: metricSum(page, 'etcdns_dns_transfer_bytes_total', labels),
        count: metricSum(page, 'etcdns_dns_transfers_served_total', labels),
      };
    };
    const axfr = await bytes('axfr');
    assert.ok(axfr.count >= 1, 'the first transfer of the big zone was an AXFR');
    const before = await bytes('ixfr');
    const started = performance.now();
    await etcd
      .client()
      .put('/skydns/net/example/big/h42')
      .value(JSON.stringify({ host: '10.99.0.42' }));
    const ms = await answeredAfter(started, knot.port, `h42.${BIG}`, 'A', ['10.99.0.42']).catch((e: Error) => {
      throw new Error(`${e.message}\n${knot.process.logs().slice(-3000)}\n${server.process.logs().slice(-3000)}`);
    });
    const afterChange = await bytes('ixfr');
    assert.equal(afterChange.count - before.count, 1, 'one IXFR');
    const ixfrBytes = afterChange.bytes - before.bytes;
    const axfrBytes = Math.round(axfr.bytes / axfr.count);
    figures.push(`1 of ${BIG_COUNT} changed -> knotd ${ms} ms, IXFR ${ixfrBytes} bytes (AXFR ${axfrBytes} bytes)`);
    assert.ok(ixfrBytes < 1000, `IXFR of one change: ${ixfrBytes} bytes`);
    assert.ok(axfrBytes > 100 * ixfrBytes, `AXFR ${axfrBytes} bytes`);
  });

  test('etcd history compacted between two changes: both secondaries still converge (whole zone)', async () => {
    const kv = etcd.client();
    const fullBefore = metricSum(
      (await server.http('/metrics')).body,
      'etcdns_dns_transfers_served_total',
      `form="ixfr_full",zone="${QUIET}."`,
    );
    await kv.put('/skydns/net/example/quiet/two').value(JSON.stringify({ host: '10.2.0.2' }));
    const second = await kv.delete().key('/skydns/net/example/quiet/one').exec();
    await kv.kv.compact({ revision: second.header.revision, physical: true });
    await waitFor('etcdns serves both changes', async () =>
      (await dig({ port: server.port, name: `one.${QUIET}`, type: 'A' })).status === 'NXDOMAIN' ? true : undefined,
    );
    const started = performance.now();
    // No NOTIFY for this zone: the secondaries are told to look, and ask IXFR from their old serial.
    await run(tool('knotc'), ['-c', knot.config, 'zone-refresh', `${QUIET}.`]);
    await bind.refresh();
    for (const s of secondaries()) {
      const ms = Math.max(
        await answeredAfter(started, s.port, `two.${QUIET}`, 'A', ['10.2.0.2']),
        await answeredAfter(started, s.port, `one.${QUIET}`, 'A', 'NXDOMAIN'),
      );
      figures.push(`compacted history -> ${s.who} converged ${ms} ms after refresh`);
    }
    const fullAfter = metricSum(
      (await server.http('/metrics')).body,
      'etcdns_dns_transfers_served_total',
      `form="ixfr_full",zone="${QUIET}."`,
    );
    assert.equal(fullAfter - fullBefore, 2, 'each secondary got the whole zone for its IXFR');
  });
});
