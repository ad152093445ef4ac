// The networks a view answers (allowQueryFrom, as CoreDNS's acl) end to end: a real etcdns server
// on a real etcd, dig as clients with different source addresses (127.0.0.2 inside the list,
// 127.0.0.3 outside). The outside client is REFUSED over UDP and TCP, also for a name whose
// answer is in the cache and for CHAOS names, each refusal counted; zone transfers keep their
// own allow list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dig } from '../../support/dig.ts';
import { digAxfr } from '../../support/dig-axfr.ts';
import { startEtcd } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { stopAll } from '../../support/process.ts';

const INSIDE = '127.0.0.2';
const OUTSIDE = '127.0.0.3';

let server: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  await etcd
    .client()
    .put('/skydns/org/example/www')
    .value(JSON.stringify({ host: '192.0.2.1' }));
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org'],
    args: ['--allow-query-from', `${INSIDE}/32,10.0.0.0/8`, '--transfer-allow-cidr', `${OUTSIDE}/32`],
  });
});
after(stopAll);

const refusals = async () => metricSum((await server.http('/metrics')).body, 'etcdns_dns_acl_refused_total');
const ask = (from: string, name: string, type: string, tcp: boolean, extra: string[] = []) =>
  dig({ port: server.port, name, type, tcp, extra: ['-b', from, ...extra] });

// [case, name, type, dig options, the inside client's status]
const cases: [string, string, string, string[], string][] = [
  ['a name with records', 'www.example.org.', 'A', [], 'NOERROR'],
  ['a name that does not exist', 'nothing.example.org.', 'A', [], 'NXDOMAIN'],
  ['a name outside our zones', 'www.elsewhere.test.', 'A', [], 'REFUSED'],
  ['CHAOS id.server.', 'id.server.', 'TXT', ['-c', 'CH'], 'NOERROR'],
];

for (const [name, qname, type, extra, inside] of cases) {
  for (const tcp of [false, true]) {
    test(`${name}: answered inside, REFUSED and counted outside, cached or not (${tcp ? 'TCP' : 'UDP'})`, async () => {
      const before = await refusals();
      // Outside first (nothing cached), then inside (cached), then outside again (a cached answer exists).
      const first = await ask(OUTSIDE, qname, type, tcp, extra);
      const answered = await ask(INSIDE, qname, type, tcp, extra);
      const again = await ask(OUTSIDE, qname, type, tcp, extra);
      assert.equal(answered.status, inside, answered.raw);
      for (const r of [first, again]) {
        assert.equal(r.status, 'REFUSED', r.raw);
        assert.deepEqual(r.answer, [], r.raw);
      }
      assert.equal((await refusals()) - before, 2);
    });
  }
}

test('a zone transfer is governed by its own allow list, not by allowQueryFrom', async () => {
  const before = await refusals();
  const axfr = await digAxfr({ port: server.port, zone: 'example.org.', source: OUTSIDE });
  assert.deepEqual(
    axfr.records.filter((r) => r.type === 'A').map((r) => r.data),
    ['192.0.2.1'],
    axfr.raw,
  );
  assert.equal(await refusals(), before);
});
