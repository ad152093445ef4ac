// Table tests (one test per row) of PTR records: reverse names and zones (RFC 1035 3.5, RFC 3596
// 2.5), which published addresses get a PTR, and how the planner lays PTRs out and cleans them up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseAddress, parseCidr } from '../../../../src/dns/cidr.ts';
import { reverseName, reverseZoneName } from '../../../../src/runtime/controller/views/reverse-name.ts';
import { pointerRecords, reverseZonesOf } from '../../../../src/runtime/controller/views/reverse-records.ts';
import type { DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { planPrefix } from '../../../../src/runtime/controller/plan/plan.ts';
import type { CurrentEntry } from '../../../../src/runtime/controller/plan/current-entries.ts';
import { ref } from '../object-ref.ts';

const cidr = (text: string) => {
  const c = parseCidr(text);
  if (!c.ok) throw new Error(c.error);
  return c.cidr;
};

const names: [string, string][] = [
  ['10.9.176.5', '5.176.9.10.in-addr.arpa.'],
  ['0.0.0.0', '0.0.0.0.in-addr.arpa.'],
  ['255.255.255.255', '255.255.255.255.in-addr.arpa.'],
  ['::ffff:192.0.2.1', '1.2.0.192.in-addr.arpa.'],
  ['2001:db8::567:89ab', 'b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.'],
  ['::1', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa.'],
];
for (const [address, want] of names) {
  test(`reverse name of ${address} is ${want}`, () => {
    assert.equal(reverseName(parseAddress(address)!), want);
  });
}

const zones: [string, string][] = [
  ['10.9.176.0/24', '176.9.10.in-addr.arpa.'],
  ['10.9.0.0/16', '9.10.in-addr.arpa.'],
  ['10.0.0.0/8', '10.in-addr.arpa.'],
  ['10.9.176.5/32', '5.176.9.10.in-addr.arpa.'],
  ['0.0.0.0/0', 'in-addr.arpa.'],
  ['2001:db8::/32', '8.b.d.0.1.0.0.2.ip6.arpa.'],
  ['2001:db8::/36', '0.8.b.d.0.1.0.0.2.ip6.arpa.'],
  ['fd00::/8', 'd.f.ip6.arpa.'],
];
for (const [network, want] of zones) {
  test(`reverse zone of ${network} is ${want}`, () => {
    assert.equal(reverseZoneName(cidr(network)), want);
  });
}

test('reverse zone of 10.9.176.0/25 is refused: not an octet boundary', () => {
  assert.throws(() => reverseZoneName(cidr('10.9.176.0/25')), /not on a reverse-label boundary/);
});

const web = ref('service/default/web');
const api = ref('service/default/api');
const site = ref('ingress/default/site');
const rec = (name: string, type: DesiredRecord['type'], target: string, object = web, extra = {}): DesiredRecord => ({
  name,
  type,
  target,
  object,
  ...extra,
});
const ptr = (name: string, target: string, object = web, extra = {}) => rec(name, 'PTR', target, object, extra);
const R5 = '5.176.9.10.in-addr.arpa.';
const R6 = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.';

const ptrRows: {
  name: string;
  zones: string[];
  records: DesiredRecord[];
  optedOut?: string[];
  want: DesiredRecord[];
}[] = [
  {
    name: 'an A in a reverse zone gets a PTR back to its name',
    zones: ['10.9.176.0/24'],
    records: [rec('web.example.org.', 'A', '10.9.176.5')],
    want: [ptr(R5, 'web.example.org.')],
  },
  {
    name: 'an AAAA in an ip6.arpa zone gets a PTR',
    zones: ['2001:db8::/32'],
    records: [rec('web.example.org.', 'AAAA', '2001:db8::1')],
    want: [ptr(R6, 'web.example.org.')],
  },
  {
    name: 'an address outside every reverse zone gets none',
    zones: ['10.9.176.0/24'],
    records: [rec('web.example.org.', 'A', '10.9.177.5')],
    want: [],
  },
  {
    name: 'no reverse zone configured: no PTR',
    zones: [],
    records: [rec('web.example.org.', 'A', '10.9.176.5')],
    want: [],
  },
  {
    name: 'two names on one address give two PTRs',
    zones: ['10.9.0.0/16'],
    records: [rec('web.example.org.', 'A', '10.9.176.5'), rec('api.example.org.', 'A', '10.9.176.5', api)],
    want: [ptr(R5, 'web.example.org.'), ptr(R5, 'api.example.org.', api)],
  },
  {
    name: 'the TTL of the forward record is kept',
    zones: ['10.9.176.0/24'],
    records: [rec('web.example.org.', 'A', '10.9.176.5', web, { ttl: 60 })],
    want: [ptr(R5, 'web.example.org.', web, { ttl: 60 })],
  },
  {
    name: 'CNAME and SRV records get none',
    zones: ['10.0.0.0/8'],
    records: [
      rec('www.example.org.', 'CNAME', 'web.example.org.'),
      rec('_http._tcp.web.example.org.', 'SRV', 'web.example.org.', web, { port: 80, priority: 0, weight: 50 }),
    ],
    want: [],
  },
  {
    name: 'an opted-out object gets none, another on the same address keeps its PTR',
    zones: ['10.9.176.0/24'],
    records: [rec('web.example.org.', 'A', '10.9.176.5'), rec('api.example.org.', 'A', '10.9.176.5', api)],
    optedOut: ['web'],
    want: [ptr(R5, 'api.example.org.', api)],
  },
  {
    name: 'one name asked twice by one object gives one PTR',
    zones: ['10.9.176.0/24'],
    records: [rec('web.example.org.', 'A', '10.9.176.5'), rec('web.example.org.', 'A', '10.9.176.5')],
    want: [ptr(R5, 'web.example.org.')],
  },
];
for (const row of ptrRows) {
  test(`PTR: ${row.name}`, () => {
    const got = pointerRecords(row.records, row.zones.map(cidr), (r) => (row.optedOut ?? []).includes(r.object.name));
    assert.deepEqual(got, row.want);
  });
}

const viewRows: [string, { network: string; views?: string[] }[], string, string[]][] = [
  ['a zone without views serves every view', [{ network: '10.9.176.0/24' }], 'external', ['10.9.176.0/24']],
  [
    'a zone listing views serves them',
    [{ network: '10.9.176.0/24', views: ['internal'] }],
    'internal',
    ['10.9.176.0/24'],
  ],
  [
    'a zone listing other views opts this view out',
    [{ network: '10.9.176.0/24', views: ['internal'] }],
    'external',
    [],
  ],
];
for (const [name, config, view, want] of viewRows) {
  test(`reverse zones per view: ${name}`, () => {
    assert.deepEqual(reverseZonesOf(config, view), want.map(cidr));
  });
}

// Planning: PTRs are child entries of the reverse name, owned like the forward records.
const ME = 'etcdns-test';
const h = (identity: string) => createHash('sha256').update(identity).digest('hex').slice(0, 8);
const REV = '/skydns/arpa/in-addr/10/9/176/5';
const value = (host: string, resource: string) => JSON.stringify({ host, owner: ME, resource });
const cur = (key: string, v: string): CurrentEntry => ({ key, value: v, modRevision: '7' });
const plan = (desired: DesiredRecord[], current: CurrentEntry[]) =>
  planPrefix({ prefix: '/skydns', ownerId: ME, policy: 'sync', desired, current });
const keys = (changes: { key: string }[]) => changes.map((c) => c.key);

const planRows: {
  name: string;
  desired: DesiredRecord[];
  current: CurrentEntry[];
  creates: string[];
  updates?: string[];
  deletes: string[];
  conflicts?: number;
}[] = [
  {
    name: "a new PTR is written at the reverse name's exact key (where CoreDNS reads it)",
    desired: [ptr(R5, 'web.example.org.')],
    current: [],
    creates: [REV],
    deletes: [],
  },
  {
    name: 'two names on one address: the lowest at the exact key, the other in a child entry',
    desired: [ptr(R5, 'web.example.org.'), ptr(R5, 'api.example.org.', api)],
    current: [],
    creates: [REV, `${REV}/${h('PTR web.example.org.')}`],
    deletes: [],
  },
  {
    name: 'an unchanged PTR is left alone',
    desired: [ptr(R5, 'web.example.org.')],
    current: [cur(REV, value('web.example.org', 'service/default/web'))],
    creates: [],
    deletes: [],
  },
  {
    name: 'the PTR of a deleted object is deleted, the other name keeps its PTR',
    desired: [ptr(R5, 'api.example.org.', api)],
    current: [
      cur(REV, value('api.example.org', 'service/default/api')),
      cur(`${REV}/${h('PTR web.example.org.')}`, value('web.example.org', 'service/default/web')),
    ],
    creates: [],
    deletes: [`${REV}/${h('PTR web.example.org.')}`],
  },
  {
    name: 'when the first name goes, the next one moves to the exact key',
    desired: [ptr(R5, 'web.example.org.')],
    current: [
      cur(REV, value('api.example.org', 'service/default/api')),
      cur(`${REV}/${h('PTR web.example.org.')}`, value('web.example.org', 'service/default/web')),
    ],
    creates: [],
    updates: [REV],
    deletes: [`${REV}/${h('PTR web.example.org.')}`],
  },
  {
    name: 'the last PTR of an address goes with its object',
    desired: [],
    current: [cur(REV, value('web.example.org', 'service/default/web'))],
    creates: [],
    deletes: [REV],
  },
  {
    name: 'a PTR another owner wrote is never touched, ours is not written beside it',
    desired: [ptr(R5, 'web.example.org.')],
    current: [cur(REV, JSON.stringify({ host: 'host.example.org' }))],
    creates: [],
    deletes: [],
    conflicts: 1,
  },
  {
    name: 'a Service and an Ingress on one address: one source keeps the PTR set (as for A records), reported',
    desired: [ptr(R5, 'web.example.org.'), ptr(R5, 'site.example.org.', site)],
    current: [],
    creates: [REV],
    deletes: [],
    conflicts: 1,
  },
];
for (const row of planRows) {
  test(`PTR plan: ${row.name}`, () => {
    const p = plan(row.desired, row.current);
    assert.deepEqual(keys(p.creates), row.creates);
    assert.deepEqual(keys(p.updates), row.updates ?? []);
    assert.deepEqual(keys(p.deletes), row.deletes);
    assert.equal(p.conflicts.length, row.conflicts ?? 0, JSON.stringify(p.conflicts));
    for (const c of [...p.creates, ...p.updates]) assert.equal(JSON.parse(c.after!).owner, ME);
  });
}
