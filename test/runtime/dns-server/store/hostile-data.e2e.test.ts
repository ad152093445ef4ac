// Hostile content in the served prefix (issue 15), on a real etcd, the server as users run it and
// the real dig: a 1 MiB value, 100,000 entries under one name, names over 255 octets and labels
// over 63, written before the server starts (the first full load) and again while it watches.
// The server stays up, answers every other name, skips the rest within the limits, logs it within
// a budget and counts it by reason; its memory is compared with a server whose limit lets all
// 100,000 entries in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { loadIntoEtcd } from '../../../../bench/dns/etcd-load.ts';
import { RecordStore } from '../../../../src/runtime/dns-server/store/record-store.ts';
import { ServerMetrics } from '../../../../src/runtime/dns-server/server-metrics.ts';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { answerData, dig, waitForAnswer } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';

after(stopAll);

const ENTRIES = 100_000;
const LIMIT = 4000; // the default maxEntriesPerName
const host = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const entryKey = (name: string, i: number) => `/skydns/org/example/${name}/${i.toString(16).padStart(8, '0')}`;
const hugeValue = (address: string, bytes = 1 << 20) => JSON.stringify({ host: address, text: 'x'.repeat(bytes) });
/** Values of 1.4 MiB (etcd takes requests up to 1.5 MiB): four in a row are more than gRPC's 4 MiB message. */
const HEAVY = 4;
const heavyValue = () => hugeValue('10.0.0.65', 1.4 * 2 ** 20);
/** 127 labels in all (125 below example.org): 263 octets on the wire. */
const manyLabels = `/skydns/org/example/${Array.from({ length: 125 }, () => 'a').join('/')}`;
/** Six 50-octet labels below example.org: 319 octets. */
const longName = `/skydns/org/example/${Array.from({ length: 6 }, (_, i) => String(i).repeat(50)).join('/')}`;
const longLabel = `/skydns/org/example/${'x'.repeat(64)}`;

/** RSS of a process, MiB, from /proc (reported, not asserted). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) / 1024;
}

async function answers(port: number, name: string, type = 'A', tcp = false): Promise<string[]> {
  return answerData(await dig({ port, name, type, tcp, timeoutSeconds: 5 }), type);
}

const skippedGauge = async (server: EtcdnsServerHandle, reason: string) =>
  metricSum((await server.http('/metrics')).body, 'etcdns_dns_skipped_values', `reason="${reason}"`);

function logLines(server: EtcdnsServerHandle): Record<string, unknown>[] {
  return server.process
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('hostile data in etcd', () => {
  let etcd: EtcdHandle;
  let kv: Etcd3;
  let server: EtcdnsServerHandle;
  const figures: Record<string, number> = {};

  before(async () => {
    etcd = await startEtcd();
    kv = etcd.client();
    await kv.put('/skydns/org/example/www').value(JSON.stringify({ host: '10.0.0.1' }));
    await kv.put('/skydns/org/example/huge').value(hugeValue('10.0.0.66'));
    for (let i = 0; i < HEAVY; i++) await kv.put(`/skydns/org/example/heavy/${i}`).value(heavyValue());
    await kv.put(manyLabels).value(JSON.stringify({ host: '10.0.0.67' }));
    await kv.put(longName).value(JSON.stringify({ host: '10.0.0.68' }));
    await kv.put(longLabel).value(JSON.stringify({ host: '10.0.0.69' }));
    const entries = Array.from(
      { length: ENTRIES },
      (_, i) => [entryKey('big', i), JSON.stringify({ host: host(i) })] as const,
    );
    await loadIntoEtcd(kv, entries);
    const started = performance.now();
    server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] }, 60_000);
    figures.readySeconds = (performance.now() - started) / 1000;
  });

  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('the first load keeps what fits, skips the rest and serves every other name', async () => {
    figures.limitedLoadRssMiB = rssMiB(server.process.pid);
    figures.limitedLoadHeapMiB =
      metricSum((await server.http('/metrics')).body, 'etcdns_dns_heap_used_bytes') / 2 ** 20;
    assert.deepEqual(await answers(server.port, 'www.example.org'), ['10.0.0.1']);
    const big = await answers(server.port, 'big.example.org', 'A', true);
    assert.equal(big.length, LIMIT, 'the first 4,000 entries in key order');
    assert.deepEqual(big, Array.from({ length: LIMIT }, (_, i) => host(i)).sort());
    assert.equal((await dig({ port: server.port, name: 'huge.example.org' })).status, 'NXDOMAIN');
    assert.equal(await skippedGauge(server, 'too_many_entries'), ENTRIES - LIMIT);
    assert.equal(await skippedGauge(server, 'value_too_large'), 1 + HEAVY);
    assert.equal((await dig({ port: server.port, name: 'heavy.example.org' })).status, 'NXDOMAIN');
    assert.equal(await skippedGauge(server, 'name_too_long'), 2);
    assert.equal(await skippedGauge(server, 'label_too_long'), 1);
    const page = (await server.http('/metrics')).body;
    assert.equal(metricSum(page, 'etcdns_dns_skipped_values_total'), ENTRIES - LIMIT + 4 + HEAVY);
    assert.equal(metricSum(page, 'etcdns_dns_records'), LIMIT + 1);
  });

  test('the log names at most 10 keys per reason and sums up the rest in one line', () => {
    const lines = logLines(server);
    const named = lines.filter((l) => l.msg === 'skipping value over a limit');
    assert.equal(named.length, 18, 'two long names, a long label, the 5 large values and 10 of the entries');
    for (const key of ['/skydns/org/example/huge', manyLabels, longName, longLabel]) {
      assert.ok(
        named.some((l) => l.key === key),
        `${key.slice(0, 60)}... is named`,
      );
    }
    const summary = lines.filter((l) => l.msg === 'more values skipped, not logged one by one');
    assert.equal(summary.length, 1);
    assert.equal(summary[0]!.count, ENTRIES - LIMIT - 10);
    assert.deepEqual(summary[0]!.byReason, { too_many_entries: ENTRIES - LIMIT - 10 });
  });

  test('the same shapes as watch events: skipped and counted, other names keep changing', async () => {
    await kv.put('/skydns/org/example/huge2').value(hugeValue('10.0.0.70'));
    await kv.put(`${manyLabels}/b`).value(JSON.stringify({ host: '10.0.0.71' }));
    await kv.put(`/skydns/org/example/${'y'.repeat(64)}`).value(JSON.stringify({ host: '10.0.0.72' }));
    const more = Array.from(
      { length: 5000 },
      (_, i) => [entryKey('big2', i), JSON.stringify({ host: host(i) })] as const,
    );
    await loadIntoEtcd(kv, more);
    await kv.put('/skydns/org/example/www').value(JSON.stringify({ host: '10.0.0.2' }));
    await waitForAnswer({ port: server.port, name: 'www.example.org', timeoutSeconds: 5 }, ['10.0.0.2'], 30_000);
    assert.equal((await answers(server.port, 'big2.example.org', 'A', true)).length, LIMIT);
    assert.equal((await dig({ port: server.port, name: 'huge2.example.org' })).status, 'NXDOMAIN');
    assert.equal(await skippedGauge(server, 'too_many_entries'), ENTRIES - LIMIT + 1000);
    assert.equal(await skippedGauge(server, 'value_too_large'), 2 + HEAVY);
    assert.equal(await skippedGauge(server, 'name_too_long'), 3);
    assert.equal(await skippedGauge(server, 'label_too_long'), 2);
    assert.ok(server.process.running());
    // A full name takes no new entry, but a deleted one makes room for the next write.
    await kv.delete().key(entryKey('big2', 0));
    await kv.put(entryKey('big2', 9999)).value(JSON.stringify({ host: '10.9.9.9' }));
    await waitFor('the freed slot to be taken', async () =>
      (await answers(server.port, 'big2.example.org', 'A', true)).includes('10.9.9.9') ? true : undefined,
    );
  });

  test('memory: 100,000 entries under one name cost what 4,000 do', async (t) => {
    figures.limitedRssMiB = rssMiB(server.process.pid);
    // The same etcd content, with a limit that lets every entry in.
    const config = join(tempDir('hostile'), 'server.json');
    writeFileSync(config, JSON.stringify({ recordLimits: { maxEntriesPerName: 1_000_000 } }));
    const started = performance.now();
    const unlimited = await startEtcdnsServer(
      { etcdEndpoints: etcd.endpoints, zones: ['example.org'], args: ['--config', config] },
      60_000,
    );
    try {
      figures.unlimitedReadySeconds = (performance.now() - started) / 1000;
      assert.equal(
        metricSum((await unlimited.http('/metrics')).body, 'etcdns_dns_records'),
        ENTRIES + 5000 + 1,
        'every entry in',
      );
      figures.unlimitedRssMiB = rssMiB(unlimited.process.pid);
      figures.unlimitedHeapMiB =
        metricSum((await unlimited.http('/metrics')).body, 'etcdns_dns_heap_used_bytes') / 2 ** 20;
    } finally {
      await unlimited.stop();
    }
    t.diagnostic(JSON.stringify(figures));
    // The V8 heap in use right after each first load (the store collects garbage then), not RSS:
    // RSS also holds the young generation the bulk load grew, whether the entries were kept or not.
    assert.ok(
      figures.limitedLoadHeapMiB! < figures.unlimitedHeapMiB! - 10,
      `heap with the limit ${figures.limitedLoadHeapMiB} MiB, without ${figures.unlimitedHeapMiB} MiB`,
    );
  });
});

test('a range page larger than the client takes: the store reads smaller pages and loads', async () => {
  const etcd = await startEtcd();
  // A client taking at most 1 MiB per message (the server's takes 64 MiB): four 300 KiB values in
  // one page are more than that.
  const client = new Etcd3({ hosts: etcd.endpoints, grpcOptions: { 'grpc.max_receive_message_length': 2 ** 20 } });
  const logs: string[] = [];
  const store = new RecordStore({
    client,
    prefix: '/skydns',
    zones: ['example.org.'],
    logger: createLogger('debug', {}, (line) => logs.push(line)),
    metrics: new ServerMetrics().store,
    onChange: () => undefined,
    pageSize: 8,
    limits: { maxValueBytes: 1_000_000, maxEntriesPerName: 4000 },
  });
  try {
    const kv = etcd.client();
    for (let i = 0; i < 4; i++) {
      await kv.put(`/skydns/org/example/txt${i}`).value(JSON.stringify({ text: 'x'.repeat(300 * 1024) }));
    }
    await kv.put('/skydns/org/example/www').value(JSON.stringify({ host: '10.0.0.1' }));
    store.start();
    await waitFor('the store to load', () => (store.state === 'synced' ? true : undefined), 30_000);
    assert.equal(store.index.entryCount, 5);
    const shrunk = logs.filter((l) => l.includes('reading smaller pages')).map((l) => JSON.parse(l).keysPerPage);
    assert.deepEqual(shrunk, [1]);
  } finally {
    await store.stop();
    client.close();
    await etcd.stop();
  }
});
