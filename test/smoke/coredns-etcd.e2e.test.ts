// Smoke test: a real etcd and the real CoreDNS etcd plugin answer a SkyDNS record through dig.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { etcdCorefile, startCoreDns, type CoreDnsHandle } from '../support/coredns.ts';
import { answerData, dig } from '../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { stopAll, waitFor } from '../support/process.ts';

let etcd: EtcdHandle;
let coredns: CoreDnsHandle;

before(async () => {
  etcd = await startEtcd();
  coredns = await startCoreDns(etcdCorefile({ zones: ['example.org.'], endpoints: etcd.endpoints }), 'example.org.');
});
after(stopAll);

test('CoreDNS answers a record put into etcd in the SkyDNS layout', async () => {
  await etcd
    .client()
    .put('/skydns/org/example/www')
    .value(JSON.stringify({ host: '10.9.176.213', ttl: 60 }));
  const result = await dig({ port: coredns.port, name: 'www.example.org', type: 'A' });
  assert.equal(result.status, 'NOERROR', result.raw);
  assert.deepEqual(answerData(result, 'A'), ['10.9.176.213']);
  assert.equal(result.answer[0]?.ttl, 60);
  assert.ok(result.flags.includes('aa'), 'authoritative');
});

test('CoreDNS follows a change in etcd and answers NXDOMAIN after a delete', async () => {
  const kv = etcd.client();
  await kv.put('/skydns/org/example/api/x1').value(JSON.stringify({ host: '192.0.2.1' }));
  assert.deepEqual(answerData(await dig({ port: coredns.port, name: 'api.example.org' }), 'A'), ['192.0.2.1']);
  await kv.put('/skydns/org/example/api/x1').value(JSON.stringify({ host: '192.0.2.2' }));
  assert.deepEqual(answerData(await dig({ port: coredns.port, name: 'api.example.org' }), 'A'), ['192.0.2.2']);
  await kv.delete().key('/skydns/org/example/api/x1');
  const gone = await waitFor('NXDOMAIN', async () => {
    const r = await dig({ port: coredns.port, name: 'api.example.org' });
    return r.status === 'NXDOMAIN' ? r : undefined;
  });
  assert.equal(gone.answer.length, 0);
});
