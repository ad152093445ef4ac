// Table tests of UPDATE's pure parts: the message parser (FORMERR rows), a key's scope, which TXT
// strings the SkyDNS layout keeps, the entries of a name among the keys below it, the per-key rate
// limit, and RFC 2136's evaluation (prerequisites 3.2, permission 3.3, prescan 3.4.1, updates
// 3.4.2, ownership) on messages built here byte by byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childLabelOf } from '../../../../src/skydns/child-label.ts';
import { CLASS, RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import { textOf } from '../../../../src/runtime/dns-server/update/record-values.ts';
import { evaluateUpdate, type NameEntry } from '../../../../src/runtime/dns-server/update/update-evaluation.ts';
import { parseUpdate, type UpdateMessage } from '../../../../src/runtime/dns-server/update/update-message.ts';
import { UpdateRateLimit } from '../../../../src/runtime/dns-server/update/update-rate-limit.ts';
import { UpdateScope } from '../../../../src/runtime/dns-server/update/update-scope.ts';
import { entriesOfName } from '../../../../src/runtime/dns-server/update/update-store.ts';

const wireName = (name: string) =>
  Buffer.concat([
    ...name
      .replace(/\.$/, '')
      .split('.')
      .filter(Boolean)
      .map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);

interface Rr {
  name: string;
  type: number;
  class: number;
  ttl?: number;
  rdata?: Buffer;
}

const txt = (...strings: string[]) =>
  Buffer.concat(strings.map((s) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)])));
const a = (address: string) => Buffer.from(address.split('.').map(Number));

function record(r: Rr): Buffer {
  const head = Buffer.alloc(10);
  head.writeUInt16BE(r.type, 0);
  head.writeUInt16BE(r.class, 2);
  head.writeUInt32BE(r.ttl ?? 0, 4);
  head.writeUInt16BE(r.rdata?.length ?? 0, 8);
  return Buffer.concat([wireName(r.name), head, r.rdata ?? Buffer.alloc(0)]);
}

/** An UPDATE message for zone example.org. */
function message(prereqs: Rr[], updates: Rr[], zone = 'example.org.', zoneType: number = TYPE.SOA): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0x1234, 0);
  header[2] = 5 << 3;
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(prereqs.length, 6);
  header.writeUInt16BE(updates.length, 8);
  const zoneSection = Buffer.concat([wireName(zone), Buffer.from([0, zoneType, 0, 1])]);
  return Buffer.concat([header, zoneSection, ...prereqs.map(record), ...updates.map(record)]);
}

const ACME = new UpdateScope({ name: 'acme', suffixes: ['example.org'] });
const CH = '_acme-challenge.www.example.org.';
const CH_KEY = '/skydns/org/example/www/_acme-challenge';
const ours = (key: string, text: string): NameEntry => ({
  key,
  entry: { text, owner: 'update:acme' },
  nameServer: false,
});

// [case, zone section's name, type, what the parser says]
const parses: [string, Buffer, string][] = [
  [
    'a zone section of type SOA and records parses',
    message([], [{ name: CH, type: TYPE.TXT, class: CLASS.IN, ttl: 60, rdata: txt('x') }]),
    'update',
  ],
  ['a zone of type A: FORMERR', message([], [], 'example.org.', TYPE.A), 'FORMERR'],
  [
    'records running past the end: FORMERR',
    message([], [{ name: CH, type: TYPE.TXT, class: CLASS.IN }]).subarray(0, 40),
    'FORMERR',
  ],
  [
    'two zones: FORMERR',
    (() => {
      const m = message([], []);
      m.writeUInt16BE(2, 4);
      return m;
    })(),
    'FORMERR',
  ],
];
for (const [name, msg, want] of parses) {
  test(`parseUpdate: ${name}`, () => {
    const parsed = parseUpdate(msg);
    assert.equal(parsed.kind === 'update' ? 'update' : parsed.rcode === RCODE.FORMERR ? 'FORMERR' : parsed.rcode, want);
  });
}

// [case, scope, name, type, allowed]
const scopes: [string, UpdateScope, string, number, boolean][] = [
  ['TXT at _acme-challenge.<name below the suffix>', ACME, CH, TYPE.TXT, true],
  ['TXT at _acme-challenge.<the suffix itself>', ACME, '_acme-challenge.example.org.', TYPE.TXT, true],
  ['TXT at a name without the _acme-challenge label', ACME, 'www.example.org.', TYPE.TXT, false],
  ['TXT at _acme-challenge below another suffix', ACME, '_acme-challenge.example.net.', TYPE.TXT, false],
  ['_acme-challenge not the first label', ACME, 'x._acme-challenge.www.example.org.', TYPE.TXT, false],
  ['A at a name in scope', ACME, CH, TYPE.A, false],
  ['CNAME at a name in scope', ACME, CH, TYPE.CNAME, false],
  ["ANY (a deletion of the key's own) at a name in scope", ACME, CH, TYPE.ANY, true],
  [
    'names: any: TXT at any name below the suffix',
    new UpdateScope({ name: 'z', suffixes: ['acme.example.org'], names: 'any' }),
    'www.acme.example.org.',
    TYPE.TXT,
    true,
  ],
  [
    'names: any: not the suffix itself',
    new UpdateScope({ name: 'z', suffixes: ['acme.example.org'], names: 'any' }),
    'acme.example.org.',
    TYPE.TXT,
    false,
  ],
];
for (const [name, scope, owner, type, allowed] of scopes) {
  test(`UpdateScope: ${name}`, () => assert.equal(scope.allows(owner, type), allowed));
}

// [case, strings, the text kept (undefined: not representable)]
const texts: [string, string[], string | undefined][] = [
  ['one string', ['token'], 'token'],
  ['255 bytes then 45', ['x'.repeat(255), 'y'.repeat(45)], `${'x'.repeat(255)}${'y'.repeat(45)}`],
  ['two short strings', ['a', 'b'], undefined],
  ['a short string before a long one', ['a', 'x'.repeat(255)], undefined],
  ['not UTF-8', ['\xff'], undefined],
];
for (const [name, strings, want] of texts) {
  test(`textOf: ${name}`, () =>
    assert.equal(textOf(strings.map((s) => Buffer.from(s, s === '\xff' ? 'latin1' : 'utf8'))), want));
}

// [case, keys at and below the name, the keys that are the name's entries]
const N = '/skydns/org/example/n';
const nameEntries: [string, string[], string[]][] = [
  ['its own key and leaves below', [N, `${N}/a1`, `${N}/b2`], [N, `${N}/a1`, `${N}/b2`]],
  ['a child with keys below it is another name', [`${N}/a1`, `${N}/sub/x`], [`${N}/a1`]],
  ['dns/ns and dns/apex entries', [`${N}/dns/ns/ns1`, `${N}/dns/apex/x`], [`${N}/dns/ns/ns1`, `${N}/dns/apex/x`]],
];
for (const [name, keys, want] of nameEntries) {
  test(`entriesOfName: ${name}`, () => {
    const got = entriesOfName(
      N,
      keys.map((key) => ({ key, value: '{"text":"x"}' })),
    );
    assert.deepEqual(
      got.map((e) => e.key),
      want,
    );
  });
}

test('UpdateRateLimit: a burst of the rate, then one every 60/rate seconds', () => {
  const limit = new UpdateRateLimit(() => 2);
  assert.deepEqual([limit.take('k', 0), limit.take('k', 0), limit.take('k', 0)], [true, true, false]);
  assert.equal(limit.take('other', 0), true, 'per key');
  assert.equal(limit.take('k', 29), false);
  assert.equal(limit.take('k', 31), true);
});

const add = (name: string, text: string, ttl = 60): Rr => ({
  name,
  type: TYPE.TXT,
  class: CLASS.IN,
  ttl,
  rdata: txt(text),
});
const del = (name: string, type: number, rdata?: Buffer): Rr => ({
  name,
  type,
  class: rdata ? CLASS.NONE : CLASS.ANY,
  ...(rdata ? { rdata } : {}),
});
const pre = (name: string, type: number, klass: number, rdata?: Buffer): Rr => ({
  name,
  type,
  class: klass,
  ...(rdata ? { rdata } : {}),
});
const PRESENT = ours(`${CH_KEY}/aaaaaaaa`, 'present');
const ADDRESS: NameEntry = {
  key: '/skydns/org/example/host/bbbbbbbb',
  entry: { host: '192.0.2.1', owner: 'update:acme' },
  nameServer: false,
};
const HOST = 'host.example.org.';

// [case, prerequisites, updates, entries by name, rcode, keys put, keys deleted]
const evaluations: [string, Rr[], Rr[], Record<string, NameEntry[]>, number, string[], string[]][] = [
  ['an add writes a child keyed by its text', [], [add(CH, 'token')], {}, RCODE.NOERROR, [`${CH_KEY}/`], []],
  [
    'the same TXT again is written again (a new lease)',
    [],
    [add(CH, 'present')],
    { [CH]: [ours(`${CH_KEY}/${childLabelOf('TXT present')}`, 'present')] },
    RCODE.NOERROR,
    [`${CH_KEY}/`],
    [],
  ],
  ['delete by value', [], [del(CH, TYPE.TXT, txt('present'))], { [CH]: [PRESENT] }, RCODE.NOERROR, [], [PRESENT.key]],
  [
    'delete by value of another text: nothing',
    [],
    [del(CH, TYPE.TXT, txt('other'))],
    { [CH]: [PRESENT] },
    RCODE.NOERROR,
    [],
    [],
  ],
  ['delete the RRset', [], [del(CH, TYPE.TXT)], { [CH]: [PRESENT] }, RCODE.NOERROR, [], [PRESENT.key]],
  ['delete the name', [], [del(CH, TYPE.ANY)], { [CH]: [PRESENT] }, RCODE.NOERROR, [], [PRESENT.key]],
  [
    'add then delete in one message: nothing left to put',
    [],
    [add(CH, 'x'), del(CH, TYPE.TXT)],
    { [CH]: [] },
    RCODE.NOERROR,
    [],
    [],
  ],
  [
    'prereq name in use, met',
    [pre(CH, TYPE.ANY, CLASS.ANY)],
    [add(CH, 'x')],
    { [CH]: [PRESENT] },
    RCODE.NOERROR,
    [`${CH_KEY}/`],
    [],
  ],
  ['prereq name in use, not met', [pre(CH, TYPE.ANY, CLASS.ANY)], [add(CH, 'x')], {}, RCODE.NXDOMAIN, [], []],
  [
    'prereq name not in use, not met',
    [pre(CH, TYPE.ANY, CLASS.NONE)],
    [add(CH, 'x')],
    { [CH]: [PRESENT] },
    RCODE.YXDOMAIN,
    [],
    [],
  ],
  [
    'prereq RRset exists, not met',
    [pre(CH, TYPE.A, CLASS.ANY)],
    [add(CH, 'x')],
    { [CH]: [PRESENT] },
    RCODE.NXRRSET,
    [],
    [],
  ],
  [
    'prereq RRset does not exist, not met',
    [pre(CH, TYPE.TXT, CLASS.NONE)],
    [add(CH, 'x')],
    { [CH]: [PRESENT] },
    RCODE.YXRRSET,
    [],
    [],
  ],
  [
    'prereq RRset equals (A), met',
    [pre(HOST, TYPE.A, CLASS.IN, a('192.0.2.1'))],
    [add(CH, 'x')],
    { [HOST]: [ADDRESS] },
    RCODE.NOERROR,
    [`${CH_KEY}/`],
    [],
  ],
  [
    'prereq RRset equals (A), a subset: not met',
    [pre(HOST, TYPE.A, CLASS.IN, a('192.0.2.1')), pre(HOST, TYPE.A, CLASS.IN, a('192.0.2.2'))],
    [add(CH, 'x')],
    { [HOST]: [ADDRESS] },
    RCODE.NXRRSET,
    [],
    [],
  ],
  [
    'prereq with a TTL: FORMERR',
    [{ ...pre(CH, TYPE.ANY, CLASS.ANY), ttl: 1 }],
    [add(CH, 'x')],
    {},
    RCODE.FORMERR,
    [],
    [],
  ],
  [
    'prereq of class ANY with rdata: FORMERR',
    [pre(CH, TYPE.TXT, CLASS.ANY, txt('x'))],
    [add(CH, 'x')],
    {},
    RCODE.FORMERR,
    [],
    [],
  ],
  [
    'prereq outside the zone: NOTZONE',
    [pre('www.example.net.', TYPE.ANY, CLASS.ANY)],
    [add(CH, 'x')],
    {},
    RCODE.NOTZONE,
    [],
    [],
  ],
  [
    "prereq in a zone served below the message's (sub.example.org): NOTZONE",
    [pre('www.sub.example.org.', TYPE.ANY, CLASS.ANY)],
    [add(CH, 'x')],
    {},
    RCODE.NOTZONE,
    [],
    [],
  ],
  [
    'an update in scope but of a zone served below (sub.example.org): NOTZONE',
    [],
    [add('_acme-challenge.sub.example.org.', 'x')],
    {},
    RCODE.NOTZONE,
    [],
    [],
  ],
  ['an update outside the scope: REFUSED', [], [add('www.example.org.', 'x')], {}, RCODE.REFUSED, [], []],
  ['a deletion with a TTL: FORMERR', [], [{ ...del(CH, TYPE.TXT), ttl: 5 }], {}, RCODE.FORMERR, [], []],
  ['an update of class CH: FORMERR', [], [{ ...add(CH, 'x'), class: CLASS.CH }], {}, RCODE.FORMERR, [], []],
  [
    'a name with an entry of another owner: REFUSED',
    [],
    [add(CH, 'x')],
    { [CH]: [{ key: `${CH_KEY}/cccccccc`, entry: { text: 'c', owner: 'default' }, nameServer: false }] },
    RCODE.REFUSED,
    [],
    [],
  ],
  [
    'a name with an entry of no owner: REFUSED',
    [],
    [del(CH, TYPE.ANY)],
    { [CH]: [{ key: CH_KEY, entry: { text: 'hand-written' }, nameServer: false }] },
    RCODE.REFUSED,
    [],
    [],
  ],
  [
    'a name with an undecodable value: REFUSED',
    [],
    [add(CH, 'x')],
    { [CH]: [{ key: CH_KEY, entry: undefined, nameServer: false }] },
    RCODE.REFUSED,
    [],
    [],
  ],
];

for (const [name, prereqs, updates, entries, rcode, put, deleted] of evaluations) {
  test(`evaluateUpdate: ${name}`, () => {
    const msg = message(prereqs, updates);
    const parsed = parseUpdate(msg);
    assert.equal(parsed.kind, 'update');
    const outcome = evaluateUpdate({
      message: (parsed as { message: UpdateMessage }).message,
      msg,
      scope: ACME,
      entries: new Map(Object.entries(entries)),
      prefix: '/skydns',
      zones: ['example.org.', 'sub.example.org.'],
    });
    assert.equal(outcome.rcode, rcode, 'reason' in outcome ? outcome.reason : '');
    const changes = 'changes' in outcome ? outcome.changes : { put: [], delete: [] };
    assert.deepEqual(
      changes.put.map((p) => p.key.replace(/[0-9a-f]{8}$/, '')),
      put,
    );
    for (const p of changes.put) assert.equal(p.entry.owner, 'update:acme');
    assert.deepEqual(changes.delete, deleted);
  });
}
