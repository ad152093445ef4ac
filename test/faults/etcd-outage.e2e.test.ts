// Fault suite, scenario 2 (short): every etcd member down, the DNS server restarted in the
// middle. With its snapshot it comes back ready ("stale ... from snapshot") and answers every
// name that existed; a server without one answers SERVFAIL and is not ready.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { stopAll } from '../support/process.ts';
import { etcdOutageWithRestart } from './scenarios.ts';

after(stopAll);

test('etcd down 20 s, server restarted in the middle: answers from its snapshot, no NXDOMAIN, no change lost', async (t) => {
  const r = await etcdOutageWithRestart({ rate: 2000, churnRate: 10 }, 20);
  const info = JSON.stringify(r, null, 1);
  t.diagnostic(info);
  assert.match(String(r.extra.readyzAfterRestart), /^ready: stale: .* from snapshot at revision \d+/, info);
  assert.match(String(r.extra.withoutSnapshot), /^readyz 503, SERVFAIL$/, info);
  assert.equal(r.check.wrong, 0, info);
  assert.equal(r.dnsperf.notNoerror, 0, info);
  assert.equal(r.lost, 0, info);
  assert.deepEqual(r.etcdMismatched, [], info);
  assert.deepEqual(r.foreignTouched, [], info);
  assert.equal(r.duplicates, 0, info);
});
