// SOA serials after a fresh load, against a real etcd: each must be a revision at which etcd held
// exactly the zone that is served, so that IXFR can read the secondary's state back. One row per
// history of the zone; the index is loaded as the record store loads it (one range read).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Etcd3 } from 'etcd3';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import { ZoneHistory } from '../../../../src/runtime/dns-server/store/zone-history.ts';
import { settleSerials } from '../../../../src/runtime/dns-server/store/zone-serials.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { stopAll } from '../../../support/process.ts';

after(stopAll);

const ZONE = 'example.org.';
type Step = (kv: Etcd3, prefix: string) => Promise<unknown>;
const put =
  (name: string): Step =>
  (kv, prefix) =>
    kv
      .put(`${prefix}/org/example/${name}`)
      .value(JSON.stringify({ host: '10.0.0.1' }))
      .exec();
const del =
  (name: string): Step =>
  (kv, prefix) =>
    kv.delete().key(`${prefix}/org/example/${name}`).exec();
const elsewhere: Step = (kv, prefix) =>
  kv
    .put(`${prefix}/net/other/x`)
    .value(JSON.stringify({ host: '10.0.0.2' }))
    .exec();
const compact: Step = async (kv) => {
  const { header } = await kv.get('any').exec();
  await kv.kv.compact({ revision: header.revision, physical: true });
};

const rows: { name: string; steps: Step[]; expect: 'newest key' | 'load revision' }[] = [
  {
    name: 'no deletion after the newest key: its revision',
    steps: [put('a'), put('b'), elsewhere],
    expect: 'newest key',
  },
  {
    name: 'a key deleted after the newest one: the load revision',
    steps: [put('a'), put('b'), del('a'), elsewhere],
    expect: 'load revision',
  },
  {
    name: 'a key made and deleted after the newest one: its revision (the same keys then as now)',
    steps: [put('a'), put('b'), put('c'), del('c'), put('b'), elsewhere],
    expect: 'newest key',
  },
  { name: 'every key deleted: the load revision', steps: [put('a'), del('a'), elsewhere], expect: 'load revision' },
  {
    name: "the newest key's revision compacted away: the load revision",
    steps: [put('a'), put('b'), elsewhere, compact],
    expect: 'load revision',
  },
];

describe('settleSerials on a fresh load', () => {
  let etcd: EtcdHandle;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  rows.forEach((row, i) => {
    test(row.name, async () => {
      const kv = etcd.client();
      const prefix = `/serials${i}`;
      for (const step of row.steps) await step(kv, prefix);
      const range = await kv.getAll().prefix(`${prefix}/`).exec();
      const kvs = range.kvs.map((k) => ({
        key: k.key.toString(),
        value: k.value.toString(),
        modRevision: Number(k.mod_revision),
      }));
      const revision = Number(range.header.revision);
      const index = RecordIndex.fromSnapshot(prefix, [ZONE], kvs, revision);
      const newest = index.serial(ZONE);
      await settleSerials(index, [ZONE], new ZoneHistory({ client: kv, prefix, zones: [ZONE] }));
      assert.equal(index.serial(ZONE), row.expect === 'newest key' ? newest : revision);
      assert.ok(row.expect === 'load revision' || newest < revision, 'the load revision is later than the newest key');
    });
  });
});
