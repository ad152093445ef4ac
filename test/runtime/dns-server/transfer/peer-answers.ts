// What the "answers equal the transfer" tests ask and compare (issue 24): every name of the
// transferred zones (owners, the empty non-terminals up to the apex, a name below each) asked
// every type of etcdns and of its real BIND and Knot secondaries; rcode, AA, answer and
// authority (TTLs included), and a referral's glue below its cut, must be equal. Where BIND and
// Knot disagree with each other, etcdns gives one of their answers, and the question must be one
// of the known disagreements (PEER_DISAGREEMENTS).
import assert from 'node:assert/strict';
import { digAxfr } from '../../../support/dig-axfr.ts';
import { digMany, questionKey, type Question } from '../../../support/dig-batch.ts';
import type { DigResult } from '../../../support/dig.ts';
import { answerDifferences, comparable } from '../../../support/dns-compare.ts';
import type { TransferPeers } from '../../../support/transfer-peers.ts';

/** DS: the parent's data at a zone cut (RFC 4035 3.1.4.1), a type like any other elsewhere. */
export const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR', 'NS', 'SOA', 'DS'];
export const KEY = 'hmac-sha256:xfr.peers.test:' + Buffer.from('etcdns transfer peers test secret').toString('base64');
/** A label no fixture uses. */
const ABSENT = 'zz-absent';

/**
 * The glue at or below a referral's cut: required (RFC 9471), so every server gives it, and a
 * secondary has it only from the transfer. Other additional records are optional (sibling glue,
 * SRV and MX targets' addresses): servers differ there by design.
 */
function inDomainGlue(r: DigResult): DigResult['additional'] {
  const cut = r.flags.includes('aa') ? undefined : r.authority.find((a) => a.type === 'NS')?.name.toLowerCase();
  if (!cut) return [];
  const below = (name: string) => name.toLowerCase() === cut || name.toLowerCase().endsWith(`.${cut}`);
  return r.additional.filter((a) => (a.type === 'A' || a.type === 'AAAA') && below(a.name));
}

/** Rcode, AA, answer and authority, and of a referral its in-domain glue. */
function differences(a: DigResult, b: DigResult, labels: [string, string]): string[] {
  const main = (r: DigResult) => comparable({ ...r, additional: inDomainGlue(r) });
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

type Peer = 'bind' | 'knot';
type Answers = Record<'etcdns' | Peer, Map<string, DigResult>>;
export const LABEL: Record<Peer, string> = { bind: 'named', knot: 'knotd' };

/** Where BIND and Knot disagree: which known disagreement it is, or undefined. */
const disagreement = (bind: DigResult, knot: DigResult) => PEER_DISAGREEMENTS.find((d) => d.matches(bind, knot));

interface Comparison {
  /** Questions etcdns answers otherwise than the peer (a failure each). */
  diffs: string[];
  /** Known disagreements of the peers where etcdns answers as the other peer (or alike but for letter case). */
  followedOther: Map<string, number>;
}

export function compareWith(peer: Peer, questions: readonly Question[], answers: Answers): Comparison {
  const out: Comparison = { diffs: [], followedOther: new Map() };
  for (const q of questions) {
    const key = questionKey(q);
    const [ours, bind, knot] = [answers.etcdns.get(key)!, answers.bind.get(key)!, answers.knot.get(key)!];
    const theirs = peer === 'bind' ? bind : knot;
    const d = differences(ours, theirs, ['etcdns', LABEL[peer]]);
    if (d.length === 0) continue;
    // etcdns may differ from this peer only where the two peers disagree in a known way and
    // etcdns answers as that entry says.
    const known = differences(bind, knot, ['named', 'knotd']).length > 0 ? disagreement(bind, knot) : undefined;
    const other = peer === 'bind' ? knot : bind;
    const followed =
      known?.follow === 'case'
        ? differences(lower(ours), lower(theirs), ['etcdns', LABEL[peer]]).length === 0
        : known !== undefined && known.follow !== peer && differences(ours, other, ['etcdns', 'other']).length === 0;
    if (known && followed) out.followedOther.set(known.what, (out.followedOther.get(known.what) ?? 0) + 1);
    else out.diffs.push(`${key}:\n    ${d.join('\n    ')}`);
  }
  return out;
}

/** Questions BIND and Knot answer differently in no known way (a failure each: a peer's surprise to look at). */
export function unknownDisagreements(questions: readonly Question[], answers: Answers): string[] {
  const unknown: string[] = [];
  for (const q of questions) {
    const key = questionKey(q);
    const [bind, knot] = [answers.bind.get(key)!, answers.knot.get(key)!];
    if (differences(bind, knot, ['named', 'knotd']).length > 0 && !disagreement(bind, knot)) {
      unknown.push(`${key}:\n${bind.raw}\n${knot.raw}`);
    }
  }
  return unknown;
}

/** Every question (names of the transferred zones plus `extra`, every type) asked of all three. */
export async function askAll(peers: TransferPeers, zones: readonly string[], extra: readonly string[] = []) {
  const names = new Set(extra);
  for (const zone of zones) {
    const { records, raw } = await digAxfr({ port: peers.etcdns.port, zone, key: KEY });
    assert.ok(records.length > 2, raw);
    const owners = [...new Set(records.filter((r) => r.type !== 'TSIG').map((r) => r.name.toLowerCase()))];
    for (const name of namesOf(zone, owners)) names.add(name);
  }
  const questions = [...names].flatMap((name) => TYPES.map((type) => ({ name, type })));
  const [etcdns, bind, knot] = await Promise.all([
    digMany(peers.etcdns.port, questions),
    digMany(peers.bind.port, questions),
    digMany(peers.knot.port, questions),
  ]);
  return { questions, answers: { etcdns, bind, knot } satisfies Answers };
}

export const summary = (c: Comparison, asked: number) => {
  const other = [...c.followedOther.values()].reduce((a, b) => a + b, 0);
  const notes = [...c.followedOther].map(([what, n]) => `${n} where BIND and Knot disagree on ${what}`);
  return `${asked} questions, ${asked - other} answered alike${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
};
