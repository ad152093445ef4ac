// Fault suite, scenario 5 (short; `npm run bench:faults` runs it for 30 minutes): load and churn
// with memory, sockets and etcd watches sampled. Here it shows the sampling works and that
// nothing leaks per change: sockets and watches do not grow, no answer fails or goes wrong.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { stopAll } from '../support/process.ts';
import { soak } from './scenarios.ts';

after(stopAll);

test('soak, 40 s: no failed or wrong answer, no change lost, no growth in sockets or etcd watches', async (t) => {
  const r = await soak({ rate: 2000, churnRate: 10 }, 40 / 60, 10, 10 / 60);
  const info = JSON.stringify(r, null, 1);
  t.diagnostic(info);
  assert.deepEqual(r.check.failed, {}, info);
  assert.equal(r.check.wrong, 0, info);
  assert.equal(r.dnsperf.lost + r.dnsperf.notNoerror, 0, info);
  assert.equal(r.lost, 0, info);
  assert.deepEqual(r.etcdMismatched, [], info);
  assert.ok(Number(r.extra.socketGrowth) <= 2, info);
  assert.equal(r.extra.watchGrowth, 0, info);
  assert.ok(Number(r.extra.p99LastMs) > 0, info);
});
