// Fault suite, scenario 4 (short): every etcd member's data lost; the cluster starts empty and
// the controller publishes everything again, inventing nothing of other owners.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { stopAll } from '../support/process.ts';
import { etcdDataLost } from './scenarios.ts';

after(stopAll);

test('all etcd data lost: every name answers again, etcd equals the desired state, nothing of others invented', async (t) => {
  const r = await etcdDataLost({ rate: 2000, churnRate: 10 });
  const info = JSON.stringify(r, null, 1);
  t.diagnostic(info);
  assert.equal(r.lost, 0, info);
  assert.deepEqual(r.etcdMismatched, [], info);
  assert.equal(r.extra.othersInvented, 0, info);
  assert.ok(Number(r.extra.fullAnswersMs) > 0, info);
});
