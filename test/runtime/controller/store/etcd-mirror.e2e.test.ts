// The watch-kept copy of a prefix against a real etcd: the first read, puts and deletes as they
// happen, the entries of a name found by key, waiting for a revision, following etcd through a
// restart, and a new read when asked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { EtcdMirror } from '../../../../src/runtime/controller/store/etcd-mirror.ts';
import { EtcdStore } from '../../../../src/runtime/controller/store/etcd-store.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { stopAll, waitFor } from '../../../support/process.ts';

let etcd: EtcdHandle;
let client: Etcd3;
before(async () => {
  etcd = await startEtcd();
  client = etcd.client();
});
after(stopAll);

const log = createLogger('error');

function mirrorOf(prefix: string, own = client) {
  let reloads = 0;
  const mirror = new EtcdMirror(new EtcdStore(own, prefix), own, { log, onReload: () => reloads++ });
  mirror.start();
  return { mirror, reloads: () => reloads };
}

const keysOf = (entries: { key: string }[]) => entries.map((e) => e.key).sort();

test('the copy starts with the prefix and follows puts and deletes', async (t) => {
  await client.put('/m1/org/example/www/aaaa0001').value('{"host":"10.0.0.1"}');
  await client.put('/m1/org/example/old').value('{"host":"10.0.0.2"}');
  await client.put('/m1x/outside').value('{"host":"10.0.0.3"}');
  const { mirror, reloads } = mirrorOf('/m1');
  t.after(() => mirror.stop());
  await waitFor('mirror synced', async () => (mirror.synced() ? true : undefined), 10_000, 10);
  assert.equal(reloads(), 1);
  assert.deepEqual(keysOf(mirror.all()), ['/m1/org/example/old', '/m1/org/example/www/aaaa0001']);

  const put = await client.put('/m1/org/example/new/bbbb0002').value('{"host":"10.0.0.4"}').exec();
  const del = await client.delete().key('/m1/org/example/old').exec();
  assert.equal(await mirror.waitFor(Number(del.header.revision), 5_000), true);
  assert.deepEqual(keysOf(mirror.all()), ['/m1/org/example/new/bbbb0002', '/m1/org/example/www/aaaa0001']);
  const created = mirror.all().find((e) => e.key === '/m1/org/example/new/bbbb0002')!;
  assert.equal(created.modRevision, put.header.revision);
  assert.equal(created.value, '{"host":"10.0.0.4"}');
  // Far ahead: nothing will bring the copy there, so the wait gives up.
  assert.equal(await mirror.waitFor(Number(del.header.revision) + 1000, 100), false);
});

test('the entries of a name: its key and everything below it, not its siblings', async (t) => {
  for (const key of [
    '/m2/org/example/a',
    '/m2/org/example/a/11111111',
    '/m2/org/example/a/pod/22222222',
    '/m2/org/example/a-b/33333333',
    '/m2/org/example/a0',
    '/m2/org/example/b/44444444',
  ])
    await client.put(key).value('{}');
  const { mirror } = mirrorOf('/m2');
  t.after(() => mirror.stop());
  await waitFor('mirror synced', async () => (mirror.synced() ? true : undefined), 10_000, 10);
  assert.deepEqual(keysOf(mirror.under(['/m2/org/example/a'])), [
    '/m2/org/example/a',
    '/m2/org/example/a/11111111',
    '/m2/org/example/a/pod/22222222',
  ]);
  assert.deepEqual(keysOf(mirror.under(['/m2/org/example/b', '/m2/org/example/c'])), ['/m2/org/example/b/44444444']);
  // A key added later sits in order among the others.
  const res = await client.put('/m2/org/example/a/00000000').value('{}').exec();
  await mirror.waitFor(Number(res.header.revision), 5_000);
  assert.deepEqual(keysOf(mirror.under(['/m2/org/example/a/00000000'])), ['/m2/org/example/a/00000000']);
  assert.equal(mirror.under(['/m2/org/example/a']).length, 4);
});

test('after an etcd restart the copy follows the new writes; reload() reads the prefix again', async (t) => {
  await client.put('/m3/org/example/x/55555555').value('{}');
  // Its own client: stopping etcd closes the clients the handle made.
  const own = new Etcd3({ hosts: etcd.endpoints });
  const { mirror, reloads } = mirrorOf('/m3', own);
  t.after(() => {
    mirror.stop();
    own.close();
  });
  await waitFor('mirror synced', async () => (mirror.synced() ? true : undefined), 10_000, 10);
  await etcd.stop();
  await etcd.start();
  client = etcd.client();
  // The watch resumes from the revision it had reached, or the copy is read again: either way,
  // nothing written after the restart is missed.
  const res = await client.put('/m3/org/example/y/66666666').value('{}').exec();
  assert.equal(await mirror.waitFor(Number(res.header.revision), 20_000), true);
  assert.deepEqual(keysOf(mirror.all()), ['/m3/org/example/x/55555555', '/m3/org/example/y/66666666']);
  const before = reloads();
  mirror.reload('test');
  await waitFor('read again', async () => (reloads() > before && mirror.synced() ? true : undefined), 10_000, 10);
  assert.deepEqual(keysOf(mirror.all()), ['/m3/org/example/x/55555555', '/m3/org/example/y/66666666']);
});
