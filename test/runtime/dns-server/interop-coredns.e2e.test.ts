// Interoperability: the same etcd content answered by etcdns and by the real CoreDNS (etcd
// plugin, same prefix and zones) for every question in interop-records.ts, compared with dig.
// The answers must be identical except for the deviations documented in
// docs/skydns-layout.md; each deviation is a test of its own that asserts both
// CoreDNS's behaviour (the reported bug) and ours, for exactly the questions it claims.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { etcdCorefile, startCoreDns, type CoreDnsHandle } from '../../support/coredns.ts';
import { dig } from '../../support/dig.ts';
import { answerDifferences, comparable, type ComparableAnswer } from '../../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { nameToKey } from '../../../src/skydns/skydns-key.ts';
import { ANY_NAMES, ENTRIES, NAMES, TYPES, ZONES } from './interop-records.ts';

const PREFIX = '/skydns';

let etcd: EtcdHandle;
let coredns: CoreDnsHandle;
let ours: EtcdnsServerHandle;
/** "name type" -> answer, asked once of each server before the tests compare them. */
const answers = { ours: new Map<string, ComparableAnswer>(), coredns: new Map<string, ComparableAnswer>() };

const questions = [
  ...NAMES.flatMap((name) => TYPES.map((type) => ({ name, type }))),
  ...ANY_NAMES.map((name) => ({ name, type: 'ANY' })),
].map((q) => ({ ...q, key: `${q.name} ${q.type}` }));

async function askAll(port: number, into: Map<string, ComparableAnswer>): Promise<void> {
  const pending = [...questions];
  // A few dig processes at a time: quick, and gentle on a shared 2-core machine. Three tries: a
  // datagram lost while the machine is busy (CI once saw CoreDNS miss one) is not a difference.
  const worker = async () => {
    for (let q = pending.shift(); q; q = pending.shift()) {
      into.set(q.key, comparable(await dig({ port, name: q.name, type: q.type, tries: 3 })));
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

before(async () => {
  etcd = await startEtcd();
  const kv = etcd.client();
  for (const [key, value] of Object.entries(ENTRIES)) {
    await kv.put(`${PREFIX}/${key}`).value(typeof value === 'string' ? value : JSON.stringify(value));
  }
  coredns = await startCoreDns(etcdCorefile({ zones: ZONES, endpoints: etcd.endpoints, prefix: PREFIX }), ZONES[0]);
  ours = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ZONES, prefix: PREFIX });
  await Promise.all([askAll(ours.port, answers.ours), askAll(coredns.port, answers.coredns)]);
});
after(stopAll);

// --- what the fixture says about a name --------------------------------------------------------

const relativeKey = (name: string) => nameToKey(name, PREFIX).slice(PREFIX.length + 1);
const hasOwnKey = (name: string) => relativeKey(name) in ENTRIES;
const hasBelow = (name: string) => Object.keys(ENTRIES).some((k) => k.startsWith(`${relativeKey(name)}/`));

const assertNoData = (a: ComparableAnswer) => {
  assert.equal(a.status, 'NOERROR');
  assert.deepEqual(a.answer, [], 'no data of this type');
  assert.ok(
    a.authority.some((r) => / IN SOA /.test(r)),
    'NODATA carries the zone SOA',
  );
};

// --- the documented deviations -------------------------------------------------------------------

interface Deviation {
  id: number;
  title: string;
  questions: Array<{ name: string; type: string }>;
  /** Asserts CoreDNS's behaviour and ours for one question. */
  check(q: { name: string; type: string }, ours: ComparableAnswer, coredns: ComparableAnswer): void;
}

const on = (names: string[], types: string[]) => names.flatMap((name) => types.map((type) => ({ name, type })));

const DELEGATED = ['sub.example.org.', 'host.sub.example.org.'];
const STORED_WILDCARD = ['anything.wild.example.org.'];

const DEVIATIONS: Deviation[] = [
  {
    id: 1,
    title: 'CNAME and PTR queries also find their data in a child entry (coredns 2849)',
    // Every name without an entry at its own key but with entries below it, and a query
    // wildcard that matches such names.
    questions: on(
      NAMES.filter((n) => !hasOwnKey(n) && hasBelow(n) && !DELEGATED.includes(n)),
      ['CNAME', 'PTR'],
    ),
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'NXDOMAIN', 'CoreDNS reads only the exact key');
      assert.equal(ours.status, 'NOERROR');
      assert.ok(ours.aa);
      // shop is an alias (its PTR question gets the CNAME, deviation 12); the other host names
      // below a name give one type each (deviation 14): PTR in the reverse zone, MX, SRV.
      const expected: Record<string, string[]> = {
        'shop.example.org. CNAME': ['shop.example.org. 300 IN CNAME www.example.org.'],
        'shop.example.org. PTR': ['shop.example.org. 300 IN CNAME www.example.org.'],
        '213.176.9.10.in-addr.arpa. PTR': ['213.176.9.10.in-addr.arpa. 300 IN PTR nginx.example.org.'],
      };
      const want = expected[`${q.name} ${q.type}`];
      if (want && want.length > 0) assert.deepEqual(ours.answer, want);
      // The other names' child entries hold addresses or texts: they exist, with no data of this type.
      else assertNoData(ours);
    },
  },
  {
    id: 2,
    title:
      'an entry with a name host and a text is a CNAME (default mode: for every question, TXT too) (coredns 6110, external-dns 4953)',
    questions: on(
      ['both.example.org.'],
      TYPES.filter((t) => t !== 'CNAME'),
    ),
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'NOERROR');
      assert.ok(
        !coredns.answer.some((r) => / IN CNAME /.test(r)),
        'CoreDNS treats the entry as TXT only: the CNAME disappears',
      );
      // Ours answers exactly as it answers the same entry without the text.
      assertAnswersAsTwin(q, 'cname.example.org.', ours);
      assert.equal(ours.answer[0], 'both.example.org. 300 IN CNAME www.example.org.');
    },
  },
  {
    id: 3,
    title: 'a stored * label is a real wildcard (RFC 4592) (coredns 4314)',
    questions: on(
      STORED_WILDCARD,
      TYPES.filter((t) => t !== 'SOA'),
    ),
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'NXDOMAIN', 'CoreDNS never uses stored wildcards');
      assert.equal(ours.status, 'NOERROR');
      assert.ok(ours.aa);
      if (q.type === 'A') assert.deepEqual(ours.answer, [`${q.name} 300 IN A 10.0.4.1`]);
      else if (q.type === 'SRV') assert.ok(ours.answer.every((r) => r.startsWith(`${q.name} 300 IN SRV `)));
      else assertNoData(ours);
    },
  },
  {
    id: 4,
    title: 'an undecodable value is skipped; the name is still served (CoreDNS: SERVFAIL)',
    questions: [
      ...on(['broken.example.org.'], ['A', 'AAAA', 'TXT', 'SRV', 'MX', 'NS']),
      // The apex's TXT/SRV/MX are CoreDNS's union of the whole zone (deviation 6), which holds the bad value.
      ...on(['example.org.'], ['TXT', 'SRV', 'MX']),
    ],
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'SERVFAIL');
      assert.ok(ours.aa);
      const want: Record<string, string[]> = {
        'broken.example.org. A': ['broken.example.org. 300 IN A 10.0.6.2'],
      };
      const w = want[`${q.name} ${q.type}`];
      if (w) assert.deepEqual(ours.answer, w);
      else if (q.name === 'example.org.' && q.type === 'SRV') assert.equal(ours.status, 'NOERROR');
      else assertNoData(ours);
    },
  },
  {
    id: 6,
    title: 'a name answers with its own entries, not the union of its subtree (coredns 4048, 3861)',
    questions: on(['team.example.org.', 'svc.example.org.', 'default.svc.example.org.'], ['A', 'SRV']),
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'NOERROR');
      const want: Record<string, string[]> = {
        'team.example.org. A': ['team.example.org. 300 IN A 10.0.5.1'],
      };
      const w = want[`${q.name} ${q.type}`];
      assert.ok(coredns.answer.length > (w?.length ?? 0), 'CoreDNS adds the addresses of the names below');
      if (w) assert.deepEqual(ours.answer, w);
      else assertNoData(ours);
      assert.ok(ours.aa);
    },
  },
  {
    id: 7,
    title: 'NS entries under <name>/dns/ns make <name> a zone cut: referral with glue',
    questions: on(DELEGATED, TYPES),
    check(_q, ours, coredns) {
      assert.ok(coredns.aa, 'CoreDNS answers from the delegated data itself');
      assert.equal(ours.status, 'NOERROR');
      assert.equal(ours.aa, false, 'a referral is not authoritative');
      assert.deepEqual(ours.answer, []);
      assert.deepEqual(ours.authority, ['sub.example.org. 300 IN NS ns1.ns.dns.sub.example.org.']);
      assert.deepEqual(ours.additional, ['ns1.ns.dns.sub.example.org. 300 IN A 10.0.7.1']);
    },
  },
  {
    id: 8,
    title: 'the apex of a zone without dns/ns entries has no NS data: NODATA with the SOA (CoreDNS: NXDOMAIN)',
    // CoreDNS looks the apex NS up under dns/ns only and reports NXDOMAIN for a name it answers
    // SOA for; the layout's own rule (NXDOMAIN only when nothing exists at or below) says NODATA.
    questions: on(['example.com.'], ['NS']),
    check(_q, ours, coredns) {
      assert.equal(coredns.status, 'NXDOMAIN');
      assertNoData(ours);
      assert.ok(ours.aa);
    },
  },
];

/** What ours answers for `name` is what it answers for `twin`, owner names renamed. */
const assertAnswersAsTwin = (q: { name: string; type: string }, twin: string, ours: ComparableAnswer) => {
  const theirs = answers.ours.get(`${twin} ${q.type}`)!;
  const rename = (rs: string[]) => rs.map((r) => (r.startsWith(`${twin} `) ? q.name + r.slice(twin.length) : r)).sort();
  assert.deepEqual(ours, {
    ...theirs,
    answer: rename(theirs.answer),
    authority: rename(theirs.authority),
    additional: rename(theirs.additional),
  });
};

DEVIATIONS.push(
  {
    id: 9,
    title:
      'the apex answers addresses from <zone>/dns/apex only: the leaf entries directly under it are names of their own',
    // example.com has no dns/apex; x and y are leaf entries directly under its apex.
    questions: on(['example.com.'], ['A', 'SRV']),
    check(q, ours, coredns) {
      assert.equal(coredns.status, 'NOERROR');
      const leaf = q.type === 'A' ? 'example.com. 300 IN A 10.1.0.3' : 'example.com. 300 IN SRV 10 25 0 x.example.com.';
      assert.ok(coredns.answer.includes(leaf), `CoreDNS answers the apex with the leaf x below it: ${leaf}`);
      assertNoData(ours);
      assert.ok(ours.aa);
    },
  },
  {
    id: 10,
    title: 'a query label "any" is an ordinary label by default (CoreDNS: a wildcard like "*")',
    questions: on(['prod.any.example.org.', 'any.wild.example.org.'], TYPES),
    check(q, ours, coredns) {
      if (q.type === 'A') {
        assert.ok(coredns.answer.length >= 2, 'CoreDNS answers every name the wildcard matches');
        assert.notDeepEqual(ours, coredns);
      }
      // Ours answers "any" as any other label: prod.any does not exist; any.wild is synthesized
      // from the stored wildcard wild/* (deviation 3), exactly like anything.wild.
      assertAnswersAsTwin(
        q,
        q.name.startsWith('prod.') ? 'deep.nothere.example.org.' : 'anything.wild.example.org.',
        ours,
      );
    },
  },
  {
    id: 11,
    title: 'ANY gets one RRset (an alias: its CNAME) or a synthesized HINFO "RFC8482" (RFC 8482); CoreDNS: NODATA',
    questions: on(['www.example.org.', 'alias.example.org.', 'svc.example.org.'], ['ANY']),
    check(q, ours, coredns) {
      assertNoData(coredns);
      assert.equal(ours.status, 'NOERROR');
      assert.ok(ours.aa);
      const want = q.name.startsWith('alias.')
        ? [`${q.name} 90 IN CNAME www.example.org.`]
        : [`${q.name} 300 IN HINFO "RFC8482" ""`];
      assert.deepEqual(ours.answer, want);
    },
  },
);

// --- deviations 12-18: the default mode answers exactly the zone it transfers ---------------------
// Each question goes to the first of these that claims it (a question has one deviation).

const apexes = new Set(ZONES);
const labelsOf = (name: string) => name.toLowerCase().split('.').filter(Boolean);
/** The entries answering for a name in the default mode: at its key and the leaf entries below it. */
const ownEntries = (name: string): object[] => {
  const key = relativeKey(name.toLowerCase());
  const keys = Object.keys(ENTRIES);
  return keys
    .filter(
      (k) =>
        k === key ||
        (k.startsWith(`${key}/`) && !k.slice(key.length + 1).includes('/') && !keys.some((o) => o.startsWith(`${k}/`))),
    )
    .map((k) => ENTRIES[k]!)
    .filter((v): v is object => typeof v === 'object');
};
const isServiceName = (name: string) =>
  labelsOf(name)
    .slice(0, 2)
    .every((l) => l.startsWith('_'));
const ipHost = (v: object) => 'host' in v && typeof v.host === 'string' && /^[\d.:a-f]+$/.test(v.host);
const cnameOf = (q: { name: string }, rs: string[]) =>
  rs.find((r) => r.startsWith(`${q.name} `) && / IN CNAME /.test(r));

/** Alias names, with the types CoreDNS answers as we do (its chase finds the same data). */
const ALIASES: Record<string, string[]> = {
  'alias.example.org.': ['A'],
  'alias2.example.org.': ['A'],
  'cname.example.org.': ['A'],
  'shop.example.org.': ['A'],
  'outside.example.org.': ['A', 'AAAA', 'TXT'],
  'dangling.example.org.': [],
};
/** Names whose host-name entries give one type (deviation 14), with the types they differ in. */
const ONE_TYPE: Record<string, string[]> = {
  'mx.example.org.': ['A'],
  '_http._tcp.web.example.org.': ['A'],
  '1.0.0.10.in-addr.arpa.': ['A', 'AAAA', 'CNAME', 'TXT', 'SRV'],
  '213.176.9.10.in-addr.arpa.': ['A', 'AAAA', 'TXT', 'SRV'],
};

const NEW_DEVIATIONS: Array<Omit<Deviation, 'questions'> & { claims(q: { name: string; type: string }): boolean }> = [
  {
    id: 18,
    title: 'a query label "*" is the label it is in the default mode (CoreDNS: a query wildcard)',
    claims: (q) => labelsOf(q.name).includes('*'),
    check(q, ours, coredns) {
      if (q.type === 'A') assert.ok(coredns.answer.length >= 2, 'CoreDNS answers every name "*" matches');
      // Ours: *.wild is the stored wildcard's own owner (as anything.wild, which it answers);
      // prod.* does not exist.
      assertAnswersAsTwin(
        q,
        q.name.startsWith('prod.') ? 'deep.nothere.example.org.' : 'anything.wild.example.org.',
        ours,
      );
    },
  },
  {
    id: 13,
    title: 'a CNAME loop (or a chain not ended after 12 lookups) is SERVFAIL with its links, as BIND (CoreDNS: NODATA)',
    claims: (q) => q.name === 'loop1.example.org.' && q.type !== 'CNAME',
    check(_q, ours, coredns) {
      assert.equal(coredns.status, 'NOERROR');
      assert.ok(!cnameOf(_q, coredns.answer), 'CoreDNS drops the loop');
      assert.equal(ours.status, 'SERVFAIL');
      assert.ok(ours.aa);
      assert.deepEqual(ours.answer, [
        'loop1.example.org. 300 IN CNAME loop2.example.org.',
        'loop2.example.org. 300 IN CNAME loop1.example.org.',
      ]);
    },
  },
  {
    id: 12,
    title:
      "an alias gives its CNAME for every type, then the chase or the target's negative answer (RFC 1034 4.3.2, RFC 6604; CoreDNS: NODATA without it)",
    claims: (q) => q.name in ALIASES && q.type !== 'CNAME' && !ALIASES[q.name]!.includes(q.type),
    check(q, ours, coredns) {
      assert.ok(
        !cnameOf(q, coredns.answer),
        'CoreDNS answers without the CNAME (NODATA, its SOA, or the host as data)',
      );
      assert.ok(ours.aa);
      assert.ok(cnameOf(q, ours.answer), `the CNAME: ${ours.answer.join(' | ')}`);
      assert.equal(ours.status, q.name.startsWith('dangling.') ? 'NXDOMAIN' : 'NOERROR');
      const outOfZone = q.name.startsWith('outside.');
      assert.equal(
        ours.authority.some((r) => / IN SOA /.test(r)),
        !outOfZone && ours.answer.length === ours.answer.filter((r) => / IN CNAME /.test(r)).length,
      );
    },
  },
  {
    id: 14,
    title:
      'a host name gives one type: PTR in reverse zones, SRV with a port or at _service._proto, MX with mail (CoreDNS: CNAME and all three)',
    claims: (q) => ONE_TYPE[q.name]?.includes(q.type) === true,
    check(q, ours, coredns) {
      assert.ok(
        cnameOf(q, coredns.answer) ?? coredns.answer.some((r) => / IN SRV /.test(r)),
        'CoreDNS answers the host name as a CNAME (or an SRV)',
      );
      assert.ok(!cnameOf(q, ours.answer), 'no CNAME beside the PTR, SRV or MX');
      assert.ok(!ours.answer.some((r) => / IN SRV /.test(r)));
      assert.equal(ours.status, 'NOERROR');
      assert.ok(ours.aa);
    },
  },
  {
    id: 15,
    title: 'no SRV for addresses at names that are not _service._proto names and give no port (CoreDNS: SRV port 0)',
    claims: (q) =>
      q.type === 'SRV' &&
      !isServiceName(q.name) &&
      ownEntries(q.name).some((v) => ipHost(v) && !('port' in v && Number(v.port) > 0)),
    check(_q, ours, coredns) {
      assert.ok(
        coredns.answer.some((r) => / IN SRV \d+ \d+ 0 /.test(r)),
        'CoreDNS synthesizes an SRV at port 0',
      );
      assertNoData(ours);
    },
  },
  {
    id: 16,
    title: 'one TTL per RRset, the lowest (RFC 2181 5.2; CoreDNS: each entry its own)',
    claims: (q) => q.name === 'nginx.example.org.' && q.type === 'A',
    check(_q, ours, coredns) {
      const ttls = (rs: string[]) => new Set(rs.map((r) => r.split(' ')[1]));
      assert.deepEqual([...ttls(coredns.answer)].sort(), ['120', '300']);
      assert.deepEqual([...ttls(ours.answer)], ['120']);
      assert.equal(ours.answer.length, 2);
    },
  },
  {
    id: 17,
    title: 'SOA only at the apex: NODATA below it (CoreDNS: the zone SOA for any name)',
    claims: (q) =>
      q.type === 'SOA' &&
      !apexes.has(q.name.toLowerCase()) &&
      ZONES.some((z) => q.name.toLowerCase().endsWith(`.${z}`)),
    check(_q, ours, coredns) {
      assert.ok(coredns.answer.some((r) => / IN SOA /.test(r)));
      assert.ok(!ours.answer.some((r) => / IN SOA /.test(r)));
      assert.ok(ours.authority.some((r) => / IN SOA /.test(r)));
      assert.ok(ours.aa);
    },
  },
];

{
  const taken = new Set(DEVIATIONS.flatMap((d) => d.questions.map((q) => `${q.name} ${q.type}`)));
  for (const d of NEW_DEVIATIONS) {
    const mine = questions.filter((q) => q.type !== 'ANY' && !taken.has(q.key) && d.claims(q));
    for (const q of mine) taken.add(q.key);
    DEVIATIONS.push({
      id: d.id,
      title: d.title,
      questions: mine.map(({ name, type }) => ({ name, type })),
      check: d.check,
    });
  }
}

const claimed = new Map<string, Deviation>();
for (const d of DEVIATIONS) {
  for (const q of d.questions) {
    const key = `${q.name} ${q.type}`;
    const other = claimed.get(key);
    if (other) throw new Error(`${key} is claimed by deviations ${other.id} and ${d.id}`);
    claimed.set(key, d);
  }
}

// --- the tests -----------------------------------------------------------------------------------

test(`identical answers to CoreDNS for the ${questions.length - claimed.size} questions no deviation claims`, async (t) => {
  const failures: string[] = [];
  const lines = (diff: string[]) => diff.join('\n    ');
  for (const q of questions) {
    if (claimed.has(q.key)) continue;
    const first = { ours: answers.ours.get(q.key)!, coredns: answers.coredns.get(q.key)! };
    const diff = answerDifferences(first.ours, first.coredns, ['etcdns', 'CoreDNS']);
    if (diff.length === 0) continue;
    // The records never change here, so a server whose answer changes when asked again glitched
    // once (CI saw CoreDNS answer one question empty and not authoritative, once in thousands of
    // runs, on a busy machine). A difference that stays fails; etcdns changing its answer fails;
    // CoreDNS's one-off is reported.
    const ask = async (port: number) => comparable(await dig({ port, name: q.name, type: q.type, tries: 3 }));
    const again = { ours: await ask(ours.port), coredns: await ask(coredns.port) };
    const oursChanged = answerDifferences(first.ours, again.ours, ['first', 'again']);
    if (oursChanged.length > 0)
      failures.push(`${q.key}: etcdns answered differently when asked again:\n    ${lines(oursChanged)}`);
    const still = answerDifferences(again.ours, again.coredns, ['etcdns', 'CoreDNS']);
    if (still.length > 0) failures.push(`${q.key}:\n    ${lines(still)}`);
    else if (oursChanged.length === 0)
      t.diagnostic(`${q.key}: CoreDNS answered differently once, then as etcdns: ${diff.join('; ')}`);
  }
  assert.deepEqual(failures, [], `${failures.length} questions answered differently:\n${failures.join('\n')}`);
});

for (const d of DEVIATIONS) {
  test(`deviation ${d.id}: ${d.title}`, () => {
    assert.ok(d.questions.length > 0);
    const failures: string[] = [];
    for (const q of d.questions) {
      const key = `${q.name} ${q.type}`;
      try {
        d.check(q, answers.ours.get(key)!, answers.coredns.get(key)!);
      } catch (e) {
        const diff = answerDifferences(answers.ours.get(key)!, answers.coredns.get(key)!, ['etcdns', 'CoreDNS']);
        failures.push(`${key}: ${(e as Error).message.split('\n')[0]}\n    ${diff.join('\n    ')}`);
      }
    }
    assert.deepEqual(failures, [], failures.join('\n'));
  });
}

test('deviations 6, 9, 10 and 12-18 with `--lookup subtree`: exactly as CoreDNS answers them', async () => {
  const subtree = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ZONES,
    prefix: PREFIX,
    args: ['--lookup', 'subtree'],
  });
  const failures: string[] = [];
  // CNAME and PTR of "any" names are left out: names matched that have only child entries are
  // NODATA in both lookup modes (deviation 1), where CoreDNS reads the exact key and says NXDOMAIN.
  const asked = DEVIATIONS.filter((d) => [6, 9, 10, 12, 13, 14, 15, 16, 17, 18].includes(d.id))
    .flatMap((d) => d.questions)
    .filter(
      (q) =>
        !(q.name.includes('.any.') || q.name.startsWith('any.') || q.name.includes('*')) ||
        !['CNAME', 'PTR'].includes(q.type),
    );
  for (const q of asked) {
    const key = `${q.name} ${q.type}`;
    const got = comparable(await dig({ port: subtree.port, name: q.name, type: q.type }));
    const diff = answerDifferences(got, answers.coredns.get(key)!, ['etcdns --lookup subtree', 'CoreDNS']);
    if (diff.length > 0) failures.push(`${key}:\n    ${diff.join('\n    ')}`);
  }
  await subtree.stop();
  assert.deepEqual(failures, [], failures.join('\n'));
});

test('deviation 5: the SOA serial changes only when the zone data changes (CoreDNS: the clock)', async () => {
  const serial = async (port: number, zone: string) => {
    const r = await dig({ port, name: zone, type: 'SOA' });
    return Number(r.answer.find((x) => x.type === 'SOA')?.data.split(' ')[2]);
  };
  const before = { org: await serial(ours.port, 'example.org.'), com: await serial(ours.port, 'example.com.') };
  const corednsBefore = await serial(coredns.port, 'example.org.');
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal(await serial(ours.port, 'example.org.'), before.org, 'no change, same serial');
  assert.notEqual(await serial(coredns.port, 'example.org.'), corednsBefore, 'CoreDNS numbers by the clock');

  await etcd
    .client()
    .put(`${PREFIX}/org/example/serial-probe`)
    .value(JSON.stringify({ host: '10.0.9.9' }));
  const after = await waitFor('a new example.org serial', async () => {
    const s = await serial(ours.port, 'example.org.');
    return s !== before.org ? s : undefined;
  });
  assert.ok(after > before.org, 'the serial grows');
  assert.equal(await serial(ours.port, 'example.com.'), before.com, 'another zone keeps its serial');
});
