// Issue 24: in the default mode etcdns answers exactly the zone it transfers. Each zone set of
// transfer-zones.ts is loaded into a real etcd, served by etcdns and transferred (TSIG, NOTIFY) to
// the real BIND 9 and Knot; then every owner name of the transferred zones, the names between
// them and the apex (empty non-terminals), a name below each (nonexistent, or under a leaf, a
// wildcard or a delegation) and the fixture's own names are asked every type of etcdns and of
// both secondaries. rcode, AA, answer and authority (TTLs included), and a referral's glue below
// its cut, must be equal, with no list of accepted differences for etcdns. Where BIND and Knot
// disagree with each other there is no single answer to give; etcdns then gives one of theirs,
// and the test checks that each such question is one of three known disagreements
// (PEER_DISAGREEMENTS) and that etcdns answers it as that entry says.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { after, before, describe, test } from 'node:test';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { stopAll } from '../../../support/process.ts';
import { startTransferPeers, type TransferPeers } from '../../../support/transfer-peers.ts';
import { askAll, compareWith, LABEL, summary, TYPES, unknownDisagreements } from './peer-answers.ts';
import { RANDOM_ZONES, randomZone } from './random-zone.ts';
import { zoneSets } from './transfer-zones.ts';

after(stopAll);

let etcd: EtcdHandle;
before(async () => {
  etcd = await startEtcd();
});

for (const [i, set] of zoneSets().entries()) {
  describe(`${set.name}: BIND and Knot answer as etcdns does`, () => {
    let peers: TransferPeers;
    let asked: Awaited<ReturnType<typeof askAll>>;

    before(async () => {
      const prefix = `/zone-set-${i}`;
      const kv = etcd.client();
      for (const [key, value] of Object.entries(set.entries)) {
        await kv.put(`${prefix}/${key}`).value(typeof value === 'string' ? value : JSON.stringify(value));
      }
      peers = await startTransferPeers({ etcdEndpoints: etcd.endpoints, prefix, zones: set.zones });
      const ms = await peers.synced();
      asked = await askAll(peers, set.zones, set.names);
      console.log(
        `${set.name}: secondaries in sync ${ms} ms after start; ${asked.questions.length / TYPES.length} names`,
      );
    });
    after(async () => {
      await peers?.stop();
    });

    for (const peer of ['bind', 'knot'] as const) {
      test(`${peer === 'bind' ? 'BIND' : 'Knot'}: every question answered as etcdns answers it`, () => {
        const c = compareWith(peer, asked.questions, asked.answers);
        assert.deepEqual(c.diffs, [], `${c.diffs.length} of ${asked.questions.length} differ:\n${c.diffs.join('\n')}`);
        console.log(`${set.name}: ${LABEL[peer]}: ${summary(c, asked.questions.length)}`);
      });
    }

    test('BIND and Knot disagree with each other only in the known ways', () => {
      const unknown = unknownDisagreements(asked.questions, asked.answers);
      assert.deepEqual(unknown, [], unknown.join('\n'));
    });
  });
}

/**
 * The property over random zones (random-zone.ts): each round rewrites the content in etcd, the
 * secondaries follow by NOTIFY and IXFR (or AXFR), and every question is compared as above.
 * ETCDNS_RANDOM_ZONES sets the number of rounds (a few in `npm test`; a longer run, e.g. 200, by
 * hand), ETCDNS_RANDOM_SEED the seed (printed, so a failure can be replayed).
 */
describe('random zones: BIND and Knot answer as etcdns does (property)', () => {
  const rounds = Number(process.env.ETCDNS_RANDOM_ZONES ?? 4);
  const seed = Number(process.env.ETCDNS_RANDOM_SEED ?? Date.now() % 1_000_000);
  const prefix = '/random-zones';
  let peers: TransferPeers;

  before(async () => {
    await etcd
      .client()
      .put(`${prefix}/org/example/dns/ns/ns1`)
      .value(JSON.stringify({ host: '10.0.0.53' }));
    peers = await startTransferPeers({ etcdEndpoints: etcd.endpoints, prefix, zones: RANDOM_ZONES });
  });
  after(async () => {
    await peers?.stop();
  });

  test(`${rounds} random zones, seed ${seed}`, async () => {
    const counts = { questions: 0 };
    await fc.assert(
      fc.asyncProperty(randomZone, async (entries) => {
        const kv = etcd.client();
        await kv.delete().prefix(`${prefix}/`);
        // Each zone's serial is the revision of its last write: etcdns, BIND and Knot must all reach it.
        const serials = new Map<string, number>();
        for (const [key, value] of Object.entries(entries)) {
          const put = await kv.put(`${prefix}/${key}`).value(JSON.stringify(value));
          const zone = RANDOM_ZONES.find((z) => key.startsWith(z.slice(0, -1).split('.').reverse().join('/') + '/'))!;
          serials.set(zone, Number(put.header.revision));
        }
        await peers.synced(serials);
        const { questions, answers } = await askAll(peers, RANDOM_ZONES);
        const failures = [
          ...unknownDisagreements(questions, answers).map((u) => `BIND and Knot disagree: ${u}`),
          ...compareWith('bind', questions, answers).diffs.map((d) => `named: ${d}`),
          ...compareWith('knot', questions, answers).diffs.map((d) => `knotd: ${d}`),
        ];
        assert.deepEqual(failures, [], `${JSON.stringify(entries, null, 1)}\n${failures.join('\n')}`);
        counts.questions += questions.length;
      }),
      { numRuns: rounds, seed, endOnFailure: true },
    );
    console.log(
      `random zones (seed ${seed}): ${rounds} rounds, ${counts.questions} questions, each answered alike by etcdns, BIND and Knot`,
    );
  });
});
