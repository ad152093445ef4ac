// Where an update's TXT goes, end to end: nsupdate adds it at one of two etcdns replicas (both on
// one real etcd, the first the primary of a real BIND 9 and a real Knot secondary, TSIG and
// NOTIFY); both replicas answer it from their watch, and both secondaries within a second (NOTIFY,
// IXFR). Its etcd lease (3 s here) ends: etcd deletes it, and every replica and secondary stops
// answering it, with nobody removing it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { dig } from '../../../support/dig.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { nsupdate, updateConfigFile } from '../../../support/nsupdate.ts';
import { stopAll } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { startTransferPeers, type TransferPeers } from '../../../support/transfer-peers.ts';
import type { TsigKeySpec } from '../../../support/tsig-key.ts';

const ZONE = 'example.org.';
const LEASE_SECONDS = 3;
const ACME: TsigKeySpec = { name: 'acme', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7).toString('base64') };

let client: Etcd3;
let peers: TransferPeers;
let replica: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  client = etcd.client();
  // The zone exists before the update (with the NS a secondary requires): they transfer it first.
  await client.put('/skydns/org/example/dns/ns/ns1').value(JSON.stringify({ host: '192.0.2.53' }));
  await client.put('/skydns/org/example/www').value(JSON.stringify({ host: '192.0.2.1' }));
  const config = updateConfigFile(tempDir('update-propagation'), [ACME], {
    keys: [{ name: 'acme', suffixes: [ZONE] }],
    leaseSeconds: LEASE_SECONDS,
  });
  const args = ['--config', config];
  peers = await startTransferPeers({ etcdEndpoints: etcd.endpoints, prefix: '/skydns', zones: [ZONE], args });
  replica = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE], args });
  await peers.synced();
});
after(stopAll);

/** The ms from `since` until the server at `port` answers `name` TXT with `want` (none: no TXT); fails after 15 s. */
async function answersAfter(port: number, name: string, want: string[], since: number): Promise<number> {
  for (;;) {
    const r = await dig({ port, name, type: 'TXT', timeoutSeconds: 1 });
    const got = r.answer.filter((a) => a.type === 'TXT').map((a) => a.data);
    if (JSON.stringify(got) === JSON.stringify(want)) return Math.round(performance.now() - since);
    if (performance.now() - since > 15_000) assert.fail(`port ${port}: ${name} TXT is ${JSON.stringify(got)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('an update reaches both replicas and both secondaries within a second; its lease ends it on all four', async () => {
  const name = '_acme-challenge.www.example.org.';
  const servers = {
    'etcdns (the replica updated)': peers.etcdns.port,
    'etcdns (another replica)': replica.port,
    'BIND secondary': peers.bind.port,
    'Knot secondary': peers.knot.port,
  };
  const r = await nsupdate({
    port: peers.etcdns.port,
    zone: ZONE,
    key: ACME,
    commands: [`update add ${name} 60 TXT "challenge-token"`],
  });
  const written = performance.now();
  assert.equal(r.rcode, 'NOERROR', r.output);
  const present = await Promise.all(
    Object.values(servers).map((port) => answersAfter(port, name, ['"challenge-token"'], written)),
  );
  const shown = Object.keys(servers).map((server, i) => `${server} ${present[i]} ms`);
  console.log(`answered after the update: ${shown.join(', ')}`);
  for (const [i, ms] of present.entries()) assert.ok(ms < 1000, shown[i]);

  // Nobody deletes it: the lease does.
  const gone = await Promise.all(Object.values(servers).map((port) => answersAfter(port, name, [], written)));
  console.log(
    `gone after the update: ${Object.keys(servers)
      .map((s, i) => `${s} ${gone[i]} ms`)
      .join(', ')}`,
  );
  for (const ms of gone) assert.ok(ms >= (LEASE_SECONDS - 1) * 1000 && ms < (LEASE_SECONDS + 5) * 1000, `${ms} ms`);
  const left = await client.getAll().prefix('/skydns/org/example/www/_acme-challenge').keys();
  assert.deepEqual(left, []);
});
