// Issue 24: in the default mode etcdns answers exactly the zone it transfers. Each zone set of
// transfer-zones.ts is loaded into a real etcd, served by etcdns and transferred (TSIG, NOTIFY) to
// the real BIND 9 and Knot; then every owner name of the transferred zones, the names between
// them and the apex (empty non-terminals), a name below each (nonexistent, or under a leaf, a
// wildcard or a delegation) and the fixture's own names are asked every type of etcdns and of
// both secondaries. rcode, AA, answer and authority (TTLs included) must be equal, with no list
// of accepted differences for etcdns. Where BIND and Knot disagree with each other there is no
// single answer to give; etcdns then gives one of theirs, and the test checks that each such
// question is one of three known disagreements (PEER_DISAGREEMENTS) and that etcdns answers it
// as that entry says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { digAxfr } from '../support/dig-axfr.ts';
import { digMany, questionKey, type Question } from '../support/dig-batch.ts';
import type { DigResult } from '../support/dig.ts';
import { answerDifferences, comparable } from '../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { stopAll } from '../support/process.ts';
import { startTransferPeers, type TransferPeers } from '../support/transfer-peers.ts';
import { zoneSets } from './transfer-zones.ts';

after(stopAll);

const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR', 'NS', 'SOA'];
const KEY = 'hmac-sha256:xfr.peers.test:' + Buffer.from('etcdns transfer peers test secret').toString('base64');
/** A label no fixture uses. */
const ABSENT = 'zz-absent';

/** Rcode, AA, answer and authority: additional sections differ by design (glue is optional). */
function differences(a: DigResult, b: DigResult, labels: [string, string]): string[] {
  const main = (r: DigResult) => ({ ...comparable(r), additional: [] });
  return answerDifferences(main(a), main(b), labels);
}

const parentOf = (name: string) => name.slice(name.indexOf('.') + 1);
const depth = (name: string) => name.split('.').length;

/** The names asked: owners, empty non-terminals up to the apex, and a name below each. */
function namesOf(zone: string, owners: readonly string[]): string[] {
  const names = new Set<string>([zone, `${ABSENT}.${zone}`]);
  for (const owner of owners) {
    // A wildcard owner: asked as itself, and for names it synthesizes (one and two labels deep).
    const base = owner.startsWith('*.') ? parentOf(owner) : owner;
    names.add(owner);
    names.add(`${ABSENT}.${base}`);
    names.add(`a.${ABSENT}.${base}`);
    for (let n = base; depth(n) > depth(zone); n = parentOf(n)) names.add(n);
  }
  return [...names];
}

interface PeerDisagreement {
  what: string;
  /** Whether BIND's and Knot's answers to a question differ in this way only. */
  matches(bind: DigResult, knot: DigResult): boolean;
  /** The peer etcdns answers as; 'case': either, compared without regard to letter case. */
  follow: 'bind' | 'knot' | 'case';
}

const lowerRecords = (rs: DigResult['answer']) =>
  rs.map((a) => ({ ...a, name: a.name.toLowerCase(), data: a.data.toLowerCase() }));
const lower = (r: DigResult): DigResult => ({
  ...r,
  answer: lowerRecords(r.answer),
  authority: lowerRecords(r.authority),
});
const zeroSoaTtl = (r: DigResult): DigResult => ({
  ...r,
  authority: r.authority.map((a) => (a.type === 'SOA' ? { ...a, ttl: 0 } : a)),
});

const PEER_DISAGREEMENTS: PeerDisagreement[] = [
  {
    // Knot follows at most 5 CNAMEs and stops at a loop, NOERROR; BIND follows 11 restarts and
    // answers SERVFAIL when the chain has not ended by then (a loop never ends): RFC 1034 3.6.2
    // wants loops signalled as an error, and a chain of 6-11 links gets its whole answer.
    what: 'a CNAME chain Knot stops following (5 links, or a loop)',
    follow: 'bind',
    matches(bind, knot) {
      const cnames = knot.answer.filter((r) => r.type === 'CNAME');
      if (knot.status !== 'NOERROR' || cnames.length === 0 || cnames.length !== knot.answer.length) return false;
      const owners = new Set(cnames.map((r) => r.name.toLowerCase()));
      const stopped = cnames.length === 5 || owners.has(cnames.at(-1)!.data.toLowerCase());
      return stopped && (bind.status === 'SERVFAIL' || bind.answer.length > 5);
    },
  },
  {
    // BIND gives the SOA of a negative answer to an SOA question TTL 0; RFC 2308 3 gives it the
    // lesser of its TTL and MINIMUM, as Knot (and etcdns, for every question type) does.
    what: "the SOA's TTL in a negative answer to an SOA question",
    follow: 'knot',
    matches: (bind, knot) =>
      bind.authority.some((a) => a.type === 'SOA' && a.ttl === 0) &&
      differences(bind, zeroSoaTtl(knot), ['named', 'knotd']).length === 0,
  },
  {
    // DNS names compare without regard to case (RFC 4343): BIND writes names as the zone spells
    // them, Knot as the question did (also inside the SOA's data), etcdns the answer's owners as
    // the question did and the rest as the zone.
    what: 'the letter case of names',
    follow: 'case',
    matches: (bind, knot) => differences(lower(bind), lower(knot), ['named', 'knotd']).length === 0,
  },
];

let etcd: EtcdHandle;
before(async () => {
  etcd = await startEtcd();
});

const sets = zoneSets();
for (const [i, set] of sets.entries()) {
  describe(`${set.name}: BIND and Knot answer as etcdns does`, () => {
    const prefix = `/zone-set-${i}`;
    let peers: TransferPeers;
    let questions: Question[] = [];
    const answers = { etcdns: new Map<string, DigResult>(), bind: new Map(), knot: new Map() };

    before(async () => {
      const kv = etcd.client();
      for (const [key, value] of Object.entries(set.entries)) {
        await kv.put(`${prefix}/${key}`).value(typeof value === 'string' ? value : JSON.stringify(value));
      }
      peers = await startTransferPeers({ etcdEndpoints: etcd.endpoints, prefix, zones: set.zones });
      const ms = await peers.synced();
      const names = new Set(set.names ?? []);
      for (const zone of set.zones) {
        const { records, raw } = await digAxfr({ port: peers.etcdns.port, zone, key: KEY });
        assert.ok(records.length > 2, raw);
        const owners = [...new Set(records.filter((r) => r.type !== 'TSIG').map((r) => r.name.toLowerCase()))];
        for (const name of namesOf(zone, owners)) names.add(name);
      }
      questions = [...names].flatMap((name) => TYPES.map((type) => ({ name, type })));
      const [e, b, k] = await Promise.all([
        digMany(peers.etcdns.port, questions),
        digMany(peers.bind.port, questions),
        digMany(peers.knot.port, questions),
      ]);
      Object.assign(answers, { etcdns: e, bind: b, knot: k });
      console.log(`${set.name}: secondaries in sync ${ms} ms after start; ${names.size} names x ${TYPES.length} types`);
    });
    after(async () => {
      await peers?.stop();
    });

    /** Where BIND and Knot disagree: which known disagreement it is, or undefined (a failure). */
    const disagreement = (bind: DigResult, knot: DigResult) => PEER_DISAGREEMENTS.find((d) => d.matches(bind, knot));

    for (const peer of ['bind', 'knot'] as const) {
      const label = peer === 'bind' ? 'named' : 'knotd';
      test(`${peer === 'bind' ? 'BIND' : 'Knot'}: every question answered as etcdns answers it`, () => {
        const diffs: string[] = [];
        const followedOther = new Map<string, number>();
        for (const q of questions) {
          const key = questionKey(q);
          const [ours, bind, knot] = [answers.etcdns.get(key)!, answers.bind.get(key)!, answers.knot.get(key)!];
          const theirs = peer === 'bind' ? bind : knot;
          const d = differences(ours, theirs, ['etcdns', label]);
          if (d.length === 0) continue;
          // etcdns may differ from this peer only where the two peers disagree in a known way
          // and etcdns answers as the other one.
          const known = differences(bind, knot, ['named', 'knotd']).length > 0 ? disagreement(bind, knot) : undefined;
          const other = peer === 'bind' ? knot : bind;
          const followed =
            known?.follow === 'case'
              ? differences(lower(ours), lower(theirs), ['etcdns', label]).length === 0
              : known !== undefined &&
                known.follow !== peer &&
                differences(ours, other, ['etcdns', 'other']).length === 0;
          if (known && followed) {
            followedOther.set(known.what, (followedOther.get(known.what) ?? 0) + 1);
            continue;
          }
          diffs.push(`${key}:\n    ${d.join('\n    ')}`);
        }
        assert.deepEqual(diffs, [], `${diffs.length} of ${questions.length} differ:\n${diffs.join('\n')}`);
        const others = [...followedOther].map(([what, n]) => `${n} where BIND and Knot disagree on ${what}`);
        console.log(
          `${set.name}: ${label}: ${questions.length} questions, ${questions.length - [...followedOther.values()].reduce((a, b) => a + b, 0)} answered alike` +
            (others.length > 0
              ? `; ${others.join('; ')} (etcdns answers as the other, or alike but for letter case)`
              : ''),
        );
      });
    }

    test('BIND and Knot disagree with each other only in the known ways', () => {
      const unknown: string[] = [];
      for (const q of questions) {
        const key = questionKey(q);
        const [bind, knot] = [answers.bind.get(key)!, answers.knot.get(key)!];
        if (differences(bind, knot, ['named', 'knotd']).length > 0 && !disagreement(bind, knot)) {
          unknown.push(`${key}:\n${bind.raw}\n${knot.raw}`);
        }
      }
      assert.deepEqual(unknown, [], unknown.join('\n'));
    });
  });
}
