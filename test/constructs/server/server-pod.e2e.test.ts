// The DNS server's pod, run as the Deployment runs it: the container's arguments and the
// ConfigMap's config file (only the etcd endpoints and the listen addresses moved to loopback,
// where the pod network is not) against a real etcd; it becomes ready on the readiness probe's
// path, and answers dig over UDP and TCP on the container's DNS port with records from etcd.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../../src/environments/index.ts';
import { dig } from '../../support/dig.ts';
import { startEtcd } from '../../support/etcd.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitReady } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
after(stopAll);

test('dev: the synthesized server pod serves its zone from etcd', async () => {
  const objects = synthObjects(ENVIRONMENTS.dev!) as Json[];
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'etcdns-server-internal')!;
  const container = deployment.spec.template.spec.containers[0];
  const config = JSON.parse(
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-server-internal')!.data['config.json'],
  );
  const zone = config.zones[0].name as string;
  const httpPort = (container.ports as Json[]).find((p) => p.name === 'http')!.containerPort as number;
  assert.equal(config.httpListen, `0.0.0.0:${httpPort}`, 'the probes reach the port the server listens on');

  const etcd = await startEtcd();
  const client = etcd.client();
  await client
    .put(`${config.prefix}/${zone.split('.').reverse().join('/')}/www/1a2b3c4d`)
    .value('{"host":"10.9.176.80"}');

  const dnsPort = await freePort();
  const localHttp = await freePort();
  const file = join(tempDir('server-pod'), 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...config,
      etcd: { ...config.etcd, endpoints: [etcd.endpoint] },
      listen: `127.0.0.1:${dnsPort}`,
      httpListen: `127.0.0.1:${localHttp}`,
    }),
  );
  const args = (container.args as string[]).map((a) => (a === '/etc/etcdns/config.json' ? file : a));
  const server = startProcess('etcdns-server-pod', nodeBin, [etcdnsBin, ...args]);
  const probe = async (path: string) =>
    (await fetch(`http://127.0.0.1:${localHttp}${path}`, { signal: AbortSignal.timeout(2000) })).status;
  await waitReady(
    server,
    'ready',
    async () => (await probe(container.readinessProbe.httpGet.path).catch(() => 0)) === 200,
  );
  assert.equal(await probe(container.livenessProbe.httpGet.path), 200);

  for (const tcp of [false, true]) {
    const answer = await dig({ port: dnsPort, name: `www.${zone}`, type: 'A', tcp });
    assert.equal(answer.status, 'NOERROR', answer.raw);
    assert.ok(answer.flags.includes('aa'), 'authoritative');
    assert.deepEqual(
      answer.answer.map((r) => r.data),
      ['10.9.176.80'],
    );
    assert.equal(
      answer.answer[0]!.ttl,
      ENVIRONMENTS.dev!.zones[0]!.defaultTtl,
      "the zone's default TTL from the props",
    );
  }
  const soa = await dig({ port: dnsPort, name: zone, type: 'SOA' });
  assert.equal(soa.answer[0]?.type, 'SOA', soa.raw);
});
