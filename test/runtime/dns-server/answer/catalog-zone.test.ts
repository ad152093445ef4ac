// Table tests of the catalog zone (RFC 9432, version 2): its record set from the members, the
// members' ids (stable, one label), the answers to questions in it, and those answers through the
// dispatch and its answer cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Packet } from 'dns2';
import { AnswerCache } from '../../../../src/runtime/dns-server/answer/answer-cache.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';
import { createQueryHandler } from '../../../../src/runtime/dns-server/dispatch.ts';
import { ServerMetrics } from '../../../../src/runtime/dns-server/server-metrics.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import {
  CatalogZone,
  catalogApex,
  catalogRecords,
  memberId,
} from '../../../../src/runtime/dns-server/answer/catalog-zone.ts';
import { CLASS, RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';

const CATALOG = 'catalog.etcdns.invalid.';
const apex = catalogApex(CATALOG);

/** A record as a short line, to compare sets by eye: "owner TYPE data". */
function line(r: ResourceRecord): string {
  const data =
    r.type === TYPE.PTR || r.type === TYPE.NS
      ? r.target
      : r.type === TYPE.TXT
        ? r.text.map((t) => `"${t.toString()}"`).join(' ')
        : r.type === TYPE.SOA
          ? `${r.mname} ${r.rname} ${r.serial} ${r.refresh} ${r.retry} ${r.expire} ${r.minimum}`
          : JSON.stringify(r);
  return `${r.name} ${r.ttl} ${Object.entries(TYPE).find(([, n]) => n === r.type)![0]} ${data}`;
}

const id = (zone: string) => createHash('sha256').update(zone).digest('hex').slice(0, 16);

// [case, members as configured, the records but the SOA, as lines in order]
const recordCases: [string, string[], string[]][] = [
  ['no member: NS invalid. and the version only', [], [`${CATALOG} 0 NS invalid.`, `version.${CATALOG} 0 TXT "2"`]],
  [
    'one member: one PTR below zones.',
    ['example.org.'],
    [
      `${CATALOG} 0 NS invalid.`,
      `version.${CATALOG} 0 TXT "2"`,
      `${id('example.org.')}.zones.${CATALOG} 0 PTR example.org.`,
    ],
  ],
  [
    'members as written: canonical (case, trailing dot), each once, sorted by id',
    ['Example.ORG', 'example.org.', '0.0.10.in-addr.arpa', 'example.net.'],
    [
      `${CATALOG} 0 NS invalid.`,
      `version.${CATALOG} 0 TXT "2"`,
      ...['example.org.', '0.0.10.in-addr.arpa.', 'example.net.']
        .map((z) => ({ z, id: id(z) }))
        .sort((a, b) => a.id.localeCompare(b.id))
        .map(({ z, id }) => `${id}.zones.${CATALOG} 0 PTR ${z}`),
    ],
  ],
];

for (const [name, members, want] of recordCases) {
  test(`catalogRecords: ${name}`, () => {
    assert.deepEqual(catalogRecords(apex, members).map(line), want);
  });
}

// [case, zone name, its id]
const idCases: [string, string, string][] = [
  ['the SHA-256 of the canonical name, 16 hex digits', 'example.org.', id('example.org.')],
  ['case and the trailing dot do not change it', 'EXAMPLE.org', id('example.org.')],
  ['another zone, another id', 'example.net.', id('example.net.')],
];

for (const [name, zone, want] of idCases) {
  test(`memberId: ${name}`, () => {
    const got = memberId(zone);
    assert.equal(got, want);
    assert.match(got, /^[0-9a-f]{16}$/);
  });
}

test('memberId: a member keeps its id whatever the other members (added, removed, reordered)', () => {
  const owner = (members: string[]) =>
    catalogRecords(apex, members).find((r) => r.type === TYPE.PTR && r.target === 'example.org.')!.name;
  const alone = owner(['example.org.']);
  assert.equal(owner(['example.net.', 'example.org.', 'example.com.']), alone);
  assert.equal(owner(['example.com.', 'example.org.']), alone);
});

test('catalogApex: SOA invalid. invalid., an expire that never comes, NS invalid., TTL 0', () => {
  const catalog = new CatalogZone('Catalog.Etcdns.Invalid', ['example.org.'], 1_800_000_000);
  assert.equal(line(catalog.soa()), `${CATALOG} 0 SOA invalid. invalid. 1800000000 3600 600 2147483646 0`);
});

const catalog = new CatalogZone(CATALOG, ['example.org.', 'example.net.'], 1_800_000_000);
const SOA = line(catalog.soa());
const member = `${id('example.org.')}.zones.${CATALOG}`;

// [case, name, type, class, rcode (undefined: not in the catalog), answer lines, authority lines]
const answerCases: [string, string, number, number, number | undefined, string[], string[]][] = [
  ['SOA at the apex', CATALOG, TYPE.SOA, CLASS.IN, RCODE.NOERROR, [SOA], []],
  ['NS at the apex: invalid.', CATALOG, TYPE.NS, CLASS.IN, RCODE.NOERROR, [`${CATALOG} 0 NS invalid.`], []],
  ['ANY at the apex: SOA and NS', CATALOG, TYPE.ANY, CLASS.IN, RCODE.NOERROR, [SOA, `${CATALOG} 0 NS invalid.`], []],
  ['the version TXT', `version.${CATALOG}`, TYPE.TXT, CLASS.IN, RCODE.NOERROR, [`version.${CATALOG} 0 TXT "2"`], []],
  ['a member PTR', member, TYPE.PTR, CLASS.IN, RCODE.NOERROR, [`${member} 0 PTR example.org.`], []],
  ['a member, asked A: NODATA', member, TYPE.A, CLASS.IN, RCODE.NOERROR, [], [SOA]],
  ['zones. (no records, names below): NODATA', `zones.${CATALOG}`, TYPE.PTR, CLASS.IN, RCODE.NOERROR, [], [SOA]],
  ['the apex asked A: NODATA', CATALOG, TYPE.A, CLASS.IN, RCODE.NOERROR, [], [SOA]],
  [
    'an id that is no member: NXDOMAIN',
    `0000000000000000.zones.${CATALOG}`,
    TYPE.PTR,
    CLASS.IN,
    RCODE.NXDOMAIN,
    [],
    [SOA],
  ],
  ['a name below a member: NXDOMAIN', `x.${member}`, TYPE.PTR, CLASS.IN, RCODE.NXDOMAIN, [], [SOA]],
  ['class CH in the catalog: REFUSED', CATALOG, TYPE.SOA, CLASS.CH, RCODE.REFUSED, [], []],
  ['AXFR as a query: REFUSED (transfers go to zone transfer)', CATALOG, TYPE.AXFR, CLASS.IN, RCODE.REFUSED, [], []],
  ['the parent of the catalog: not the catalog', 'etcdns.invalid.', TYPE.SOA, CLASS.IN, undefined, [], []],
  ['a member zone itself: not the catalog', 'example.org.', TYPE.SOA, CLASS.IN, undefined, [], []],
];

for (const [name, qname, type, qclass, rcode, answer, authority] of answerCases) {
  test(`CatalogZone.answer: ${name}`, () => {
    const got = catalog.answer(qname, type, qclass);
    if (rcode === undefined) return assert.equal(got, undefined);
    assert.ok(got);
    assert.equal(got.rcode, rcode);
    assert.equal(got.authoritative, rcode !== RCODE.REFUSED);
    assert.deepEqual(got.answer.map(line), answer);
    assert.deepEqual(got.authority.map(line), authority);
    // No zone: the answer cache keeps the serial written here (the catalog's for the process's life).
    assert.equal(got.zone, undefined);
  });
}

test('through the dispatch and its cache: cached catalog answers keep the catalog serial; member zones answer from the records', async () => {
  const zones = new ZoneTable([{ name: 'example.org' }]);
  // The records' copy at revision 7: the member zone's serial is 7, not the catalog's.
  const index = RecordIndex.fromSnapshot(
    '/skydns',
    zones.names,
    [{ key: '/skydns/org/example/www', value: '{"host":"10.0.0.1"}', modRevision: 7 }],
    7,
  );
  const handler = createQueryHandler({
    data: () => ({ index, zones, lookup: 'own' }),
    cache: new AnswerCache(),
    metrics: new ServerMetrics(),
    catalog: new CatalogZone(CATALOG, ['example.org.'], 1_800_000_000),
  });
  const ask = async (name: string, type: number) => {
    const p = new Packet();
    p.header = new Packet.Header({ id: 0x1234 });
    p.questions = [{ name, type, class: 1 } as Packet['questions'][number]];
    const reply = await handler(p.toBuffer(), 'udp', '127.0.0.1', undefined);
    return Packet.parse(reply as Buffer);
  };
  const serialOf = (p: Packet) =>
    ([...p.answers, ...p.authorities].find((r) => r.type === TYPE.SOA) as { serial: number }).serial;
  for (const round of ['a miss', 'a cache hit'])
    for (const [name, type, serial] of [
      [CATALOG, TYPE.SOA, 1_800_000_000],
      [`nothing.${CATALOG}`, TYPE.PTR, 1_800_000_000],
      ['example.org.', TYPE.SOA, 7],
      ['nothing.example.org.', TYPE.A, 7],
    ] as const)
      assert.equal(serialOf(await ask(name, type)), serial, `${name} ${type}, ${round}`);
  const member = await ask(`${memberId('example.org.')}.zones.${CATALOG}`, TYPE.PTR);
  assert.deepEqual(
    member.answers.map((r) => (r as { domain?: string }).domain),
    ['example.org'],
  );
});
