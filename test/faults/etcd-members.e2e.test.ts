// Fault suite, scenario 1 (short): a 3-member etcd loses a follower, then its leader, then
// quorum, under dnsperf load and Service churn. Answers never fail or go wrong; every change
// arrives once quorum is back; etcd ends equal to the desired state.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { stopAll } from '../support/process.ts';
import { etcdMembers } from './scenarios.ts';

after(stopAll);

test('etcd: follower, leader, then quorum lost for 10 s: no failed or wrong answer, no change lost', async (t) => {
  const r = await etcdMembers({ rate: 2000, churnRate: 10 }, 4, 10);
  const info = JSON.stringify(r, null, 1);
  t.diagnostic(info);
  assert.deepEqual(r.check.failed, {}, info);
  assert.equal(r.check.wrong, 0, info);
  assert.equal(r.dnsperf.lost + r.dnsperf.notNoerror, 0, info);
  assert.equal(r.lost, 0, info);
  assert.ok(r.check.catchUpMs !== undefined, info);
  assert.deepEqual(r.etcdMismatched, [], info);
  assert.deepEqual(r.foreignTouched, [], info);
  assert.equal(r.duplicates, 0, info);
});
