// A hub's merged zones transferred to real secondaries (issue 34, "one zone out"): a real etcd
// holding the hub's view (the apexes' name servers) and two member clusters' records under
// /skydns-clusters/<cluster>/ with each cluster's lease key, the real etcdns server as the hub,
// and the real BIND 9 and Knot as its TSIG-signed secondaries (NOTIFY to both). Each round of the
// property writes random content (random-zone.ts) into both clusters, so names meet across
// clusters, and every question is asked of the hub and both secondaries (peer-answers.ts): the
// secondaries answer as the hub. Then one change in one cluster reaches both by NOTIFY and IXFR,
// and a cluster that stops counting moves the serial and leaves both secondaries' answers.
// The entries are written straight into each cluster's prefix: the controllers' path to them
// (their own etcd users, their lease keys) is hub-merge.e2e.test.ts's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Lease } from 'etcd3';
import fc from 'fast-check';
import { clusterLeaseKey } from '../../../../src/skydns/cluster-prefix.ts';
import { dig } from '../../../support/dig.ts';
import { digAxfr } from '../../../support/dig-axfr.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { serial, startTransferPeers, type TransferPeers } from '../../../support/transfer-peers.ts';
import { askAll, compareWith, KEY, unknownDisagreements } from './peer-answers.ts';
import { RANDOM_ZONES, randomZone } from './random-zone.ts';

after(stopAll);

const CLUSTERS = ['dc1', 'dc2'] as const;
type Cluster = (typeof CLUSTERS)[number];
/** example.com answers dc2's records while dc2 counts, else dc1's; the other zones both. */
const HUB = {
  clusters: CLUSTERS.map((name) => ({ name })),
  graceSeconds: 1,
  zones: [{ zone: 'example.com', policy: 'failover', order: ['dc2', 'dc1'] }],
};
/** The first key segment of each zone's keys, and the zone. */
const TOPS: [string, string][] = [
  ['org', 'example.org.'],
  ['com', 'example.com.'],
  ['arpa', '2.0.192.in-addr.arpa.'],
];
const zoneOfKey = (key: string) => TOPS.find(([top]) => key.startsWith(`${top}/`))![1];
/** An apex's name servers: the hub's view's, never a cluster's. */
const isApexNs = (key: string) =>
  RANDOM_ZONES.some((z) => key === `${z.slice(0, -1).split('.').reverse().join('/')}/dns/ns/ns1`);

let etcd: EtcdHandle;
let peers: TransferPeers;
const leases = {} as Record<Cluster, Lease>;

/** Replaces each cluster's records (not its lease key); per zone, the etcd revision of its last change. */
async function writeClusters(content: Record<Cluster, Record<string, object>>): Promise<Map<string, number>> {
  const kv = etcd.client();
  const revisions = new Map<string, number>();
  const touched = (zone: string, revision: number) => revisions.set(zone, Math.max(revisions.get(zone) ?? 0, revision));
  for (const cluster of CLUSTERS) {
    for (const [top, zone] of TOPS) {
      const gone = await kv.delete().prefix(`/skydns-clusters/${cluster}/${top}/`);
      if (Number(gone.deleted) > 0) touched(zone, Number(gone.header.revision));
    }
    for (const [key, value] of Object.entries(content[cluster])) {
      const put = await kv.put(`/skydns-clusters/${cluster}/${key}`).value(JSON.stringify(value));
      touched(zoneOfKey(key), Number(put.header.revision));
    }
  }
  return revisions;
}

/** Waits until the hub serves each zone at or past its last change, and both secondaries at the hub's serial. */
async function synced(revisions: ReadonlyMap<string, number>): Promise<void> {
  for (const [zone, revision] of revisions)
    await waitFor(
      `the hub's ${zone} at revision ${revision}`,
      async () => ((await serial(peers.etcdns.port, zone)) ?? 0) >= revision || undefined,
      20_000,
    );
  await peers.synced();
}

/** Every question asked of the hub and both secondaries: what differs (nothing, when the secondaries answer as the hub). */
async function failures(): Promise<string[]> {
  const { questions, answers } = await askAll(peers, RANDOM_ZONES);
  return [
    ...unknownDisagreements(questions, answers).map((u) => `BIND and Knot disagree: ${u}`),
    ...compareWith('bind', questions, answers).diffs.map((d) => `named: ${d}`),
    ...compareWith('knot', questions, answers).diffs.map((d) => `knotd: ${d}`),
  ];
}

const served = async (form: string, zone: string) =>
  metricSum(
    (await peers.etcdns.http('/metrics')).body,
    'etcdns_dns_transfers_served_total',
    `form="${form}",zone="${zone}"`,
  );

/** Whole zones served: AXFR, and IXFR answered with the whole zone (the test's own askAll asks AXFR too). */
const fullTransfers = async (zone: string) => (await served('axfr', zone)) + (await served('ixfr_full', zone));

async function addresses(port: number, name: string): Promise<string[]> {
  const r = await dig({ port, name, type: 'A' });
  return r.answer
    .filter((a) => a.type === 'A')
    .map((a) => a.data)
    .sort();
}

/** Waits until the hub, BIND and Knot all answer `name` with `want`. */
async function answeredEverywhere(name: string, want: string[]): Promise<void> {
  const ports = { hub: peers.etcdns.port, named: peers.bind.port, knotd: peers.knot.port };
  await waitFor(
    `${name} A ${want.join(', ')} on the hub, BIND and Knot`,
    async () => {
      for (const port of Object.values(ports))
        if ((await addresses(port, name)).join() !== want.join()) return undefined;
      return true;
    },
    20_000,
  ).catch(async (e: Error) => {
    const got = await Promise.all(
      Object.entries(ports).map(async ([who, port]) => `${who}: ${await addresses(port, name)}`),
    );
    throw new Error(`${e.message}\n${got.join('\n')}`);
  });
}

before(async () => {
  etcd = await startEtcd();
  const kv = etcd.client();
  for (const zone of RANDOM_ZONES)
    await kv
      .put(`/skydns/${zone.slice(0, -1).split('.').reverse().join('/')}/dns/ns/ns1`)
      .value(JSON.stringify({ host: '10.0.0.53' }));
  for (const cluster of CLUSTERS) {
    leases[cluster] = kv.lease(60);
    await leases[cluster].put(clusterLeaseKey(cluster)).value(JSON.stringify({ holder: cluster }));
  }
  const config = join(tempDir('hub-transfer'), 'config.json');
  writeFileSync(config, JSON.stringify({ hub: HUB }));
  peers = await startTransferPeers({
    etcdEndpoints: etcd.endpoints,
    prefix: '/skydns',
    zones: RANDOM_ZONES,
    args: ['--config', config],
  });
});
after(async () => {
  for (const cluster of CLUSTERS) await leases[cluster]?.revoke().catch(() => undefined);
  await peers?.stop();
});

/** Random content for one cluster: random-zone.ts's entries but the apexes' name servers (the view's). */
const clusterContent = randomZone.map((entries) =>
  Object.fromEntries(Object.entries(entries).filter(([key]) => !isApexNs(key))),
);

describe('a hub: BIND and Knot answer its merged zones as the hub does', () => {
  test('random content in both clusters (property)', async () => {
    const rounds = Number(process.env.ETCDNS_RANDOM_ZONES ?? 3);
    const seed = Number(process.env.ETCDNS_RANDOM_SEED ?? Date.now() % 1_000_000);
    await fc.assert(
      fc.asyncProperty(fc.record({ dc1: clusterContent, dc2: clusterContent }), async (content) => {
        await synced(await writeClusters(content));
        const found = await failures();
        assert.deepEqual(found, [], `${JSON.stringify(content, null, 1)}\n${found.join('\n')}`);
      }),
      { numRuns: rounds, seed, endOnFailure: true },
    );
    console.log(`hub (seed ${seed}): ${rounds} rounds, each answered alike by the hub, BIND and Knot`);
  });

  test('a change in one cluster reaches both secondaries by NOTIFY and IXFR', async () => {
    const zone = 'example.org.';
    const kv = etcd.client();
    // Both clusters publish www; dc1 alone the name added.
    await synced(
      await writeClusters({
        dc1: { 'org/example/www': { host: '10.9.0.1' } },
        dc2: { 'org/example/www': { host: '10.9.0.2' } },
      }),
    );
    const before = {
      ixfr: await served('ixfr', zone),
      full: await fullTransfers(zone),
    };
    const previous = (await serial(peers.etcdns.port, zone))!;
    const namedLogs = peers.bind.logs().length;
    const knotLogs = peers.knot.process.logs().length;
    await kv.put('/skydns-clusters/dc1/org/example/added').value(JSON.stringify({ host: '10.9.0.3' }));
    await answeredEverywhere('added.example.org', ['10.9.0.3']);
    await peers.synced();
    // Each secondary got the change as an IXFR; no whole zone went.
    assert.ok((await served('ixfr', zone)) >= before.ixfr + 2, `ixfr served: ${await served('ixfr', zone)}`);
    assert.equal(await fullTransfers(zone), before.full);
    const knot = peers.knot.process.logs().slice(knotLogs);
    assert.match(knot, /\[example\.org\.\] IXFR, incoming, .*finished/, knot);
    assert.doesNotMatch(knot, /AXFR-style IXFR|\[example\.org\.\] AXFR, incoming/, knot);
    // named logs no form; an IXFR of one added record is 5 records (SOA, old SOA, new SOA, the record, SOA).
    const named = peers.bind.logs().slice(namedLogs);
    assert.match(named, /transfer of 'example\.org\/IN' .*Transfer completed: 1 messages, 5 records/, named);
    // The previous version is kept, but no secondary at this address holds it any more (Knot
    // moved on): another replica's zone at that serial may differ, so the whole zone goes.
    const wholeIxfrs = await served('ixfr_full', zone);
    const asked = await digAxfr({
      port: peers.etcdns.port,
      zone,
      key: KEY,
      source: '127.0.0.2',
      type: `IXFR=${previous}`,
    });
    assert.ok(
      asked.records.some((r) => r.name === 'www.example.org.'),
      asked.raw,
    );
    assert.equal(await served('ixfr_full', zone), wholeIxfrs + 1);
    assert.deepEqual(await failures(), []);
  });

  test('a cluster that stops counting moves the serial, and both secondaries drop its records', async () => {
    const kv = etcd.client();
    await synced(
      await writeClusters({
        dc1: { 'org/example/www': { host: '10.9.0.1' }, 'com/example/www': { host: '10.9.1.1' } },
        dc2: { 'org/example/www': { host: '10.9.0.2' }, 'com/example/www': { host: '10.9.1.2' } },
      }),
    );
    await answeredEverywhere('www.example.org', ['10.9.0.1', '10.9.0.2']);
    await answeredEverywhere('www.example.com', ['10.9.1.2']);
    const serials = await Promise.all(RANDOM_ZONES.map((z) => serial(peers.etcdns.port, z)));
    let full = await fullTransfers('example.org.');
    // The lease key goes: dc2 stops counting one grace period later, with no change of any record.
    await kv.delete().key(clusterLeaseKey('dc2'));
    await answeredEverywhere('www.example.org', ['10.9.0.1']);
    await answeredEverywhere('www.example.com', ['10.9.1.1']);
    await peers.synced();
    const moved = await Promise.all(RANDOM_ZONES.map((z) => serial(peers.etcdns.port, z)));
    for (const [i, zone] of RANDOM_ZONES.entries())
      assert.ok(moved[i]! > serials[i]!, `${zone}: serial ${serials[i]} -> ${moved[i]}`);
    assert.equal(await fullTransfers('example.org.'), full);
    assert.deepEqual(await failures(), []);
    // Back: its records return, by IXFR too (failures() itself asked an AXFR of each zone).
    full = await fullTransfers('example.org.');
    await leases.dc2.put(clusterLeaseKey('dc2')).value(JSON.stringify({ holder: 'dc2' }));
    await answeredEverywhere('www.example.org', ['10.9.0.1', '10.9.0.2']);
    await answeredEverywhere('www.example.com', ['10.9.1.2']);
    assert.equal(await fullTransfers('example.org.'), full);
  });
});
