// Smoke test: the 3-member etcd cluster helper starts a real quorum that survives one member.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startEtcdCluster } from '../support/etcd.ts';
import { stopAll } from '../support/process.ts';

after(stopAll);

test('a 3-member etcd cluster keeps serving with one member down', async () => {
  const cluster = await startEtcdCluster(3);
  assert.equal(cluster.endpoints.length, 3);
  const members = await cluster.client().cluster.memberList({});
  assert.equal(members.members.length, 3);

  await cluster.client().put('/skydns/org/example/a').value('{"host":"192.0.2.1"}');
  await cluster.stopMember(0);
  const survivor = cluster.client();
  await survivor.put('/skydns/org/example/b').value('{"host":"192.0.2.2"}');
  assert.equal(await survivor.get('/skydns/org/example/a').string(), '{"host":"192.0.2.1"}');

  await cluster.startMember(0);
  assert.equal(cluster.members[0]!.process?.running(), true);
  await cluster.stop();
});
