// The etcd edge against a real etcd: paged reads, guarded transactions, concurrent writers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { stopAll } from '../../../support/process.ts';
import { EtcdStore } from '../../../../src/runtime/controller/store/etcd-store.ts';
import { planPrefix } from '../../../../src/runtime/controller/plan/plan.ts';
import type { DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { ref } from '../object-ref.ts';

let etcd: EtcdHandle;
let client: Etcd3;
before(async () => {
  etcd = await startEtcd();
  client = etcd.client();
});
after(stopAll);

const ME = 'store-test';
const rec = (name: string, target: string, resource = 'service/default/web'): DesiredRecord => ({
  name,
  type: 'A',
  target,
  object: ref(resource),
});

async function plan(store: EtcdStore, desired: DesiredRecord[]) {
  const { entries } = await store.read();
  return planPrefix({ prefix: store.prefix, ownerId: ME, policy: 'sync', desired, current: entries });
}

test('applies a plan in batched transactions; reading back plans nothing', async () => {
  const store = new EtcdStore(client, '/t1');
  // 300 names x 2 targets: more than one transaction's worth of operations.
  const desired = Array.from({ length: 300 }, (_, i) => [
    rec(`n${i}.example.org.`, '10.0.0.1'),
    rec(`n${i}.example.org.`, `10.1.${i >> 8}.${i & 255}`),
  ]).flat();
  const first = await plan(store, desired);
  assert.equal(first.creates.length, 600);
  const result = await store.apply(first);
  assert.deepEqual({ applied: result.applied, conflicted: result.conflicted }, { applied: 600, conflicted: [] });
  assert.ok(result.transactions >= 5, `${result.transactions} transactions`);
  const second = await plan(store, desired);
  assert.equal(second.creates.length + second.updates.length + second.deletes.length, 0);
  // The name keeps its entries in one transaction on an IP change: old and new never both missing.
  const changed = await plan(
    store,
    desired.map((r) => (r.target === '10.0.0.1' ? { ...r, target: '10.0.0.2' } : r)),
  );
  assert.equal(changed.creates.length, 300);
  assert.equal(changed.deletes.length, 300);
  assert.equal((await store.apply(changed)).applied, 600);
  const hosts = (await store.read()).entries.map((e) => (JSON.parse(e.value) as { host: string }).host);
  assert.equal(hosts.filter((h) => h === '10.0.0.2').length, 300);
  assert.equal(hosts.filter((h) => h === '10.0.0.1').length, 0);
});

test('reads more entries than one page, and only below the prefix', async () => {
  const store = new EtcdStore(client, '/t2/');
  const ops = Array.from({ length: 5200 }, (_, i) =>
    client.put(`/t2/org/example/k${i}`).value(`{"host":"10.0.0.${i % 250}"}`),
  );
  for (let i = 0; i < ops.length; i += 100)
    await client
      .if('/t2/none', 'Version', '==', 0)
      .then(...ops.slice(i, i + 100))
      .commit();
  await client.put('/t20/org/example/x').value('{"host":"10.0.0.1"}');
  await client.put('/t2').value('{"host":"10.0.0.1"}');
  const { entries } = await store.read();
  assert.equal(entries.length, 5200);
  assert.equal(new Set(entries.map((e) => e.key)).size, 5200);
  assert.ok(entries.every((e) => e.key.startsWith('/t2/')));
});

test('a concurrent writer is detected, not overwritten; other names still apply', async () => {
  const store = new EtcdStore(client, '/t3');
  await store.apply(await plan(store, [rec('a.example.org.', '10.0.0.1'), rec('b.example.org.', '10.0.0.1')]));
  const stale = await plan(store, [
    rec('a.example.org.', '10.0.0.1', 'service/default/other'),
    rec('b.example.org.', '10.0.0.9'),
    rec('c.example.org.', '10.0.0.3'),
  ]);
  assert.equal(stale.updates.length, 1);
  // Someone else rewrites a's entry and creates c's key after we planned.
  const aKey = stale.updates[0]!.key;
  await client.put(aKey).value('{"host":"192.0.2.1","owner":"intruder"}');
  const cKey = stale.creates.find((c) => c.name === 'c.example.org.')!.key;
  await client.put(cKey).value('{"host":"192.0.2.3"}');
  const result = await store.apply(stale);
  assert.deepEqual(result.conflicted.sort(), ['a.example.org.', 'c.example.org.']);
  assert.equal(await client.get(aKey).string(), '{"host":"192.0.2.1","owner":"intruder"}');
  assert.equal(await client.get(cKey).string(), '{"host":"192.0.2.3"}');
  const hosts = (await store.read()).entries.map(
    (e) => `${e.key.split('/')[4]} ${(JSON.parse(e.value) as { host: string }).host}`,
  );
  assert.ok(hosts.includes('b 10.0.0.9') && !hosts.includes('b 10.0.0.1'), hosts.join());
  // Planning again from a fresh read leaves the intruders alone.
  const again = await plan(store, [
    rec('a.example.org.', '10.0.0.1'),
    rec('b.example.org.', '10.0.0.9'),
    rec('c.example.org.', '10.0.0.3'),
  ]);
  assert.deepEqual([again.creates.length, again.updates.length, again.deletes.length], [0, 0, 0]);
  assert.deepEqual(again.conflicts.map((c) => c.name).sort(), ['a.example.org.', 'c.example.org.']);
});

test('an undecodable value under the prefix does not stop reading or planning', async () => {
  const store = new EtcdStore(client, '/t4');
  await client.put('/t4/org/example/broken').value('{"host": 12');
  await client.put('/t4/org/example/wrong').value('{"host": 12}');
  const p = await plan(store, [rec('ok.example.org.', '10.0.0.1')]);
  assert.equal(p.creates.length, 1);
  assert.equal((await store.apply(p)).applied, 1);
  assert.equal(await client.get('/t4/org/example/broken').string(), '{"host": 12');
});

test('etcd unavailable: read and apply fail with an error, then work once it is back', async () => {
  const store = new EtcdStore(client, '/t5');
  const p = await plan(store, [rec('x.example.org.', '10.0.0.1')]);
  await etcd.stop();
  await assert.rejects(store.read());
  await etcd.start();
  client = etcd.client();
  const fresh = new EtcdStore(client, '/t5');
  assert.equal((await fresh.apply(p)).applied, 1);
});
