// The record store against a real etcd: a paged range read at one revision plus the watch from
// the next one lose nothing written meanwhile; a resync swaps in a complete copy, never a partial.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Etcd3 } from 'etcd3';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { RecordStore } from '../../../../src/runtime/dns-server/store/record-store.ts';
import { ServerMetrics } from '../../../../src/runtime/dns-server/server-metrics.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { stopAll, waitFor } from '../../../support/process.ts';

after(stopAll);

const key = (i: number) => `/skydns/org/example/n${i}/${i.toString(16).padStart(8, '0')}`;
const value = (i: number) => JSON.stringify({ host: `10.0.${(i >> 8) & 255}.${i & 255}` });

async function putMany(kv: Etcd3, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, to - i) }, (_, j) => kv.put(key(i + j)).value(value(i + j))));
  }
}

/** The store gets a client of its own: the etcd handle closes the ones it hands out when it stops. */
function newStore(endpoints: string[], pageSize: number) {
  const kv = new Etcd3({ hosts: endpoints });
  const logs: string[] = [];
  const metrics = new ServerMetrics().store;
  let changes = 0;
  const store = new RecordStore({
    client: kv,
    prefix: '/skydns',
    zones: ['example.org.'],
    logger: createLogger('debug', {}, (line) => logs.push(line)),
    metrics,
    onChange: () => (changes += 1),
    pageSize,
    probeIntervalMs: 200,
  });
  return {
    store,
    metrics,
    logs,
    changes: () => changes,
    stop: async () => {
      await store.stop();
      kv.close();
    },
  };
}

test('a paged load plus the watch lose nothing written while loading', async () => {
  const etcd = await startEtcd();
  const kv = etcd.client();
  const { store, stop } = newStore(etcd.endpoints, 25);
  try {
    await putMany(kv, 0, 1000);
    store.start();
    // Keep writing (new keys and deletions) while the store pages through the prefix.
    await putMany(kv, 1000, 1300);
    for (let i = 0; i < 100; i++) await kv.delete().key(key(i));
    const now = await kv.getAll().prefix('/skydns/').exec();
    assert.equal(now.kvs.length, 1200);
    const revision = Number(now.header.revision);
    await waitFor(
      "the copy to reach etcd's revision",
      () => (store.index.revision >= revision ? true : undefined),
      20_000,
    );
    assert.equal(store.index.entryCount, 1200);
    assert.equal(store.state, 'synced');
    assert.equal(store.index.find(['n5', 'example', 'org']), undefined, 'a deleted name is gone');
    assert.ok(store.index.find(['n1299', 'example', 'org']), 'a name written during the load is there');
  } finally {
    await stop();
    await etcd.stop();
  }
});

test('through an outage and a resync, the copy is never partial', async () => {
  const etcd = await startEtcd();
  let kv = etcd.client();
  const { store, metrics, changes, stop } = newStore(etcd.endpoints, 50);
  try {
    await putMany(kv, 0, 2000);
    store.start();
    await waitFor('first load', () => (store.index.entryCount === 2000 ? true : undefined), 20_000);

    let smallest = Infinity;
    const states = new Set<string>();
    let watching = true;
    const watch = async () => {
      while (watching) {
        smallest = Math.min(smallest, store.index.entryCount);
        states.add(store.state);
        await new Promise((r) => setImmediate(r));
      }
    };
    const watched = watch();

    await etcd.stop();
    await waitFor('stale', () => (store.state === 'stale' ? true : undefined), 20_000);
    assert.equal(store.readiness().ready, true, 'a stale copy still answers');
    assert.match(store.readiness().detail, /^stale: etcd unreachable, serving last good copy of 2000 records/);

    await etcd.start();
    kv = etcd.client();
    await kv.put(key(5000)).value(value(5000));
    const before = changes();
    await waitFor('catch-up', () => (store.index.entryCount === 2001 ? true : undefined), 30_000);
    watching = false;
    await watched;

    assert.ok(smallest >= 2000, `the copy shrank to ${smallest} entries during the resync`);
    assert.ok(states.has('stale'));
    assert.equal(store.state, 'synced');
    assert.ok(changes() > before, 'the swap told the cache');
    assert.ok(metrics.resyncs.get() >= 1);
  } finally {
    await stop();
    await etcd.stop();
  }
});
