// Forwarding end to end: etcdns server on a real etcd, Knot DNS as the upstream, dig as two
// clients with different source addresses (127.0.0.1 outside the forwarding CIDRs, 127.0.0.2
// inside). Whether a name outside our zones is forwarded depends on the client, so no answer to
// one client may be served to the other from the answer cache.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { answerData, dig } from '../../../support/dig.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { startKnot } from '../../../support/knot.ts';
import { stopAll } from '../../../support/process.ts';

const OUTSIDE = '127.0.0.1';
const INSIDE = '127.0.0.2';
const UPSTREAM_ZONE = `$ORIGIN other.test.
$TTL 300
@ SOA ns.other.test. hostmaster.other.test. 1 3600 600 86400 300
@ NS ns.other.test.
ns A 192.0.2.53
@ A 192.0.2.7
`;

let server: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  await etcd
    .client()
    .put('/skydns/test/skydns/www')
    .value(JSON.stringify({ host: '10.0.0.1' }));
  const knot = await startKnot({ zones: [{ name: 'other.test.', text: UPSTREAM_ZONE }] });
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['skydns.test.'],
    args: ['--forward-upstream', `127.0.0.1:${knot.port}`, '--forward-client-cidr', `${INSIDE}/32`],
  });
});
after(stopAll);

const ask = (from: string, tcp = false) =>
  dig({ port: server.port, name: 'other.test.', type: 'A', tcp, extra: ['-b', from] });

for (const tcp of [false, true]) {
  test(`a refusal for one client is not served to another from the cache (${tcp ? 'TCP' : 'UDP'})`, async () => {
    assert.equal((await ask(OUTSIDE, tcp)).status, 'REFUSED', 'outside the CIDRs: refused');
    const inside = await ask(INSIDE, tcp);
    assert.equal(inside.status, 'NOERROR', `inside the CIDRs: forwarded\n${inside.raw}`);
    assert.deepEqual(answerData(inside, 'A'), ['192.0.2.7']);
    assert.equal((await ask(OUTSIDE, tcp)).status, 'REFUSED', 'and still refused for the first client');
  });
}

test('names in our zones are answered alike for both clients', async () => {
  for (const from of [OUTSIDE, INSIDE]) {
    const r = await dig({ port: server.port, name: 'www.skydns.test.', type: 'A', extra: ['-b', from] });
    assert.deepEqual(answerData(r, 'A'), ['10.0.0.1']);
  }
});
