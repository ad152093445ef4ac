// Table tests of the planner: desired records + entries in etcd -> creates, updates, deletes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { resourceId, type DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { ref } from '../object-ref.ts';
import type { CurrentEntry } from '../../../../src/runtime/controller/plan/current-entries.ts';
import { planPrefix, isEmptyPlan, type Plan } from '../../../../src/runtime/controller/plan/plan.ts';
import { formatPlan } from '../../../../src/runtime/controller/plan/format-plan.ts';
import type { Policy } from '../../../../src/config/controller-config.ts';

const ME = 'etcdns-test';
/** The layout's child label, computed here from the spec: 8 hex of sha256("<type> <target>"). */
const h = (identity: string) => createHash('sha256').update(identity).digest('hex').slice(0, 8);

const web = 'service/default/web';
const api = 'service/default/api';
const ing = 'ingress/default/site';
const rec = (
  name: string,
  type: DesiredRecord['type'],
  target: string,
  resource = web,
  extra: Partial<DesiredRecord> = {},
): DesiredRecord => ({ name, type, target, object: ref(resource), ...extra });
const ours = (host: string, resource = web, extra: object = {}) =>
  JSON.stringify({ host, ...extra, targetstrip: 1, owner: ME, resource });
const cur = (key: string, value: string, modRevision = '7'): CurrentEntry => ({ key, value, modRevision });

const WEB = '/skydns/org/example/web';
/** external-dns's TXT-registry value, with its literal quotes. */
const TXT = (owner: string, resource: string) =>
  `"heritage=external-dns,external-dns/owner=${owner},external-dns/resource=${resource}"`;
const A1 = `${WEB}/${h('A 10.0.0.1')}`;
const A2 = `${WEB}/${h('A 10.0.0.2')}`;
const A9 = `${WEB}/${h('A 10.0.0.9')}`;

type Row = {
  name: string;
  desired: DesiredRecord[];
  current?: CurrentEntry[];
  policy?: Policy;
  prefix?: string;
  adopt?: string;
  /** Resource kinds whose objects cannot be read now (PlanInput.unseen). */
  unseen?: string[];
  creates?: [string, object][];
  updates?: [string, object][];
  deletes?: string[];
  conflicts?: string[];
};

const rows: Row[] = [
  { name: 'nothing desired, nothing there', desired: [] },
  {
    name: 'an A record is created in a child keyed by the hash of (type, target)',
    desired: [rec('web.example.org.', 'A', '10.0.0.1')],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
  },
  {
    name: 'unchanged state plans nothing (even with fields stored in another order)',
    desired: [
      rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 60 }),
      rec('web.example.org.', 'A', '10.0.0.2', web, { ttl: 60 }),
    ],
    current: [
      cur(A1, ours('10.0.0.1', web, { ttl: 60 })),
      cur(A2, JSON.stringify({ resource: web, owner: ME, targetstrip: 1, ttl: 60, host: '10.0.0.2' })),
    ],
  },
  {
    name: 'an IP change deletes the old child and creates the new one',
    desired: [rec('web.example.org.', 'A', '10.0.0.2')],
    current: [cur(A1, ours('10.0.0.1'))],
    creates: [[A2, { host: '10.0.0.2', targetstrip: 1, owner: ME, resource: web }]],
    deletes: [A1],
  },
  {
    name: 'a ttl change updates in place',
    desired: [rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 30 })],
    current: [cur(A1, ours('10.0.0.1'))],
    updates: [[A1, { host: '10.0.0.1', ttl: 30, targetstrip: 1, owner: ME, resource: web }]],
  },
  {
    name: 'records no longer desired are deleted; other owners, hand-written and broken entries are not',
    desired: [],
    current: [
      cur(A1, ours('10.0.0.1')),
      cur('/skydns/org/example/other/abcdef12', JSON.stringify({ host: '10.1.1.1', owner: 'someone-else' })),
      cur('/skydns/org/example/hand/1', JSON.stringify({ host: '10.2.2.2' })),
      cur('/skydns/org/example/broken/x', '{not json'),
      cur('/skydns/org/example/ext/a1b2c3d4', JSON.stringify({ host: '10.3.3.3', targetstrip: 1 })),
    ],
    deletes: [A1],
  },
  {
    name: 'a name with hand-written entries is left alone and reported',
    desired: [rec('hand.example.org.', 'A', '10.0.0.1'), rec('web.example.org.', 'A', '10.0.0.1')],
    current: [cur('/skydns/org/example/hand/1', JSON.stringify({ host: '10.2.2.2' }))],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
    conflicts: ['hand.example.org. service/default/web'],
  },
  {
    name: "a name with another owner's entry at its exact key is left alone",
    desired: [rec('web.example.org.', 'CNAME', 'lb.example.net.')],
    current: [cur(WEB, JSON.stringify({ host: 'elsewhere.example.net', owner: 'other' }))],
    conflicts: ['web.example.org. service/default/web'],
  },
  {
    name: 'a deeper name below a foreign name is not blocked by it',
    desired: [rec('a.web.example.org.', 'A', '10.0.0.1')],
    current: [cur(WEB, JSON.stringify({ host: '10.9.9.9' }))],
    creates: [[`${WEB}/a/${h('A 10.0.0.1')}`, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
  },
  {
    name: 'a CNAME sits at the exact key, without a trailing dot',
    desired: [rec('web.example.org.', 'CNAME', 'lb.example.net.', web, { ttl: 120 })],
    creates: [[WEB, { host: 'lb.example.net', ttl: 120, owner: ME, resource: web }]],
  },
  {
    name: 'switching from CNAME to A removes the CNAME key',
    desired: [rec('web.example.org.', 'A', '10.0.0.1')],
    current: [cur(WEB, JSON.stringify({ host: 'lb.example.net', owner: ME, resource: web }))],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
    deletes: [WEB],
  },
  {
    name: 'CNAME and A at one name: the addresses win, the CNAME is reported',
    desired: [rec('web.example.org.', 'CNAME', 'lb.example.net.', api), rec('web.example.org.', 'A', '10.0.0.1')],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
    conflicts: ['web.example.org. service/default/api'],
  },
  {
    name: 'two CNAME targets: the lowest is kept',
    desired: [rec('web.example.org.', 'CNAME', 'b.example.net.'), rec('web.example.org.', 'CNAME', 'a.example.net.')],
    creates: [[WEB, { host: 'a.example.net', owner: ME, resource: web }]],
    conflicts: ['web.example.org. service/default/web'],
  },
  {
    name: 'two resources want one name: their addresses are merged, each entry naming its resource',
    desired: [rec('web.example.org.', 'A', '10.0.0.2', web), rec('web.example.org.', 'A', '10.0.0.1', api)],
    creates: [
      [A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: api }],
      [A2, { host: '10.0.0.2', targetstrip: 1, owner: ME, resource: web }],
    ],
  },
  {
    name: 'a target wanted by two resources is written once; the ttl of the lowest resource id applies, the other is reported',
    desired: [
      rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 30 }),
      rec('web.example.org.', 'A', '10.0.0.1', api, { ttl: 60 }),
      rec('web.example.org.', 'A', '10.0.0.2', web, { ttl: 30 }),
    ],
    creates: [
      [A1, { host: '10.0.0.1', ttl: 60, targetstrip: 1, owner: ME, resource: api }],
      [A2, { host: '10.0.0.2', ttl: 60, targetstrip: 1, owner: ME, resource: web }],
    ],
    conflicts: ['web.example.org. service/default/web'],
  },
  {
    name: 'the incumbent leads: its ttl stays and it keeps a shared target',
    desired: [
      rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 30 }),
      rec('web.example.org.', 'A', '10.0.0.1', api, { ttl: 60 }),
    ],
    current: [cur(A1, ours('10.0.0.1', web, { ttl: 30 }))],
    conflicts: ['web.example.org. service/default/api'],
  },
  {
    name: 'a Service and an Ingress want one name: one record set is kept whole, the one whose targets come first (IPs by address), the other reported',
    desired: [rec('web.example.org.', 'A', '10.0.0.10', ing), rec('web.example.org.', 'A', '10.0.0.9', web)],
    creates: [[A9, { host: '10.0.0.9', targetstrip: 1, owner: ME, resource: web }]],
    conflicts: ['web.example.org. ingress/default/site'],
  },
  {
    name: 'a Service and an Ingress want one name: fewer targets come first, a source merges its own resources',
    desired: [
      rec('web.example.org.', 'A', '10.0.0.1', web),
      rec('web.example.org.', 'A', '10.0.0.2', api),
      rec('web.example.org.', 'A', '10.0.0.9', ing),
    ],
    creates: [[A9, { host: '10.0.0.9', targetstrip: 1, owner: ME, resource: ing }]],
    conflicts: ['web.example.org. service/default/api', 'web.example.org. service/default/web'],
  },
  {
    name: 'a Service and an Ingress want one name: the source already owning it in etcd keeps it',
    desired: [rec('web.example.org.', 'A', '10.0.0.1', web), rec('web.example.org.', 'A', '10.0.0.9', ing)],
    current: [cur(A9, ours('10.0.0.9', ing))],
    conflicts: ['web.example.org. service/default/web'],
  },
  {
    name: 'two resources want different CNAMEs: the leading resource keeps its target',
    desired: [
      rec('web.example.org.', 'CNAME', 'a.example.net.', web),
      rec('web.example.org.', 'CNAME', 'b.example.net.', api),
    ],
    current: [cur(WEB, JSON.stringify({ host: 'a.example.net', owner: ME, resource: web }))],
    conflicts: ['web.example.org. service/default/api'],
  },
  {
    name: 'duplicate records (same name, type, target) are written once',
    desired: [rec('web.example.org.', 'A', '10.0.0.1'), rec('web.example.org.', 'A', '10.0.0.1')],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
  },
  {
    name: 'SRV and AAAA layout',
    desired: [
      rec('_web._tcp.web.example.org.', 'SRV', 'web.example.org.', web, { port: 30080, priority: 0, weight: 50 }),
      rec('web.example.org.', 'AAAA', '2001:db8::1'),
    ],
    creates: [
      [
        `${WEB}/_tcp/_web/${h('SRV 0 50 30080 web.example.org.')}`,
        { host: 'web.example.org', port: 30080, priority: 0, weight: 50, owner: ME, resource: web },
      ],
      [`${WEB}/${h('AAAA 2001:db8::1')}`, { host: '2001:db8::1', targetstrip: 1, owner: ME, resource: web }],
    ],
  },
  {
    name: 'upsert-only: creates and updates, never deletes',
    policy: 'upsert-only',
    desired: [rec('web.example.org.', 'A', '10.0.0.2', web, { ttl: 5 })],
    current: [cur(A1, ours('10.0.0.1')), cur(A2, ours('10.0.0.2'))],
    updates: [[A2, { host: '10.0.0.2', ttl: 5, targetstrip: 1, owner: ME, resource: web }]],
  },
  {
    name: 'create-only: only creates',
    policy: 'create-only',
    desired: [rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 5 }), rec('new.example.org.', 'A', '10.0.0.9')],
    current: [cur(A1, ours('10.0.0.1')), cur(A2, ours('10.0.0.2'))],
    creates: [
      [`/skydns/org/example/new/${h('A 10.0.0.9')}`, { host: '10.0.0.9', targetstrip: 1, owner: ME, resource: web }],
    ],
  },
  {
    name: 'another prefix (a view) gets its own keys and sees only its own entries',
    prefix: '/views/public',
    desired: [rec('web.example.org.', 'A', '10.0.0.1')],
    current: [cur(`/views/public/org/example/web/${h('A 10.0.0.1')}`, ours('10.0.0.1'))],
  },
  {
    name: 'adoption (TXT registry): the record moves to our layout and the ownership entry goes, per name',
    adopt: 'default',
    desired: [rec('nginx.example.org.', 'A', '10.9.176.213', 'service/default/nginx-frontend')],
    current: [
      cur('/skydns/org/example/nginx/1a2b3c4d', JSON.stringify({ host: '10.9.176.213', targetstrip: 1 })),
      cur(
        '/skydns/org/example/a-nginx/5e6f7a8b',
        JSON.stringify({ text: TXT('default', 'service/default/nginx-frontend'), targetstrip: 1 }),
      ),
    ],
    creates: [
      [
        `/skydns/org/example/nginx/${h('A 10.9.176.213')}`,
        { host: '10.9.176.213', targetstrip: 1, owner: ME, resource: 'service/default/nginx-frontend' },
      ],
    ],
    deletes: ['/skydns/org/example/a-nginx/5e6f7a8b', '/skydns/org/example/nginx/1a2b3c4d'],
  },
  {
    name: 'adoption (strictly owned) takes the owner field; another owner id is left alone',
    adopt: 'default',
    desired: [rec('web.example.org.', 'A', '10.0.0.1'), rec('api.example.org.', 'A', '10.0.0.1', api)],
    current: [
      cur('/skydns/org/example/web/deadbeef', JSON.stringify({ host: '10.0.0.1', targetstrip: 1, owner: 'default' })),
      cur('/skydns/org/example/api/deadbeef', JSON.stringify({ host: '10.0.0.1', targetstrip: 1, owner: 'other' })),
      cur('/skydns/org/example/a-old/cafecafe', JSON.stringify({ text: TXT('other', 'service/default/old') })),
      cur('/skydns/org/example/old/cafecafe', JSON.stringify({ host: '10.0.0.7', targetstrip: 1 })),
    ],
    creates: [[A1, { host: '10.0.0.1', targetstrip: 1, owner: ME, resource: web }]],
    deletes: ['/skydns/org/example/web/deadbeef'],
    conflicts: ['api.example.org. service/default/api'],
  },
  {
    name: 'adoption with upsert-only: replaced names lose the old entries, others keep them',
    adopt: 'default',
    policy: 'upsert-only',
    desired: [rec('web.example.org.', 'CNAME', 'lb.example.net.')],
    current: [
      cur('/skydns/org/example/web/0badf00d', JSON.stringify({ host: 'lb.example.net', targetstrip: 1 })),
      cur('/skydns/org/example/cname-web/0badf00d', JSON.stringify({ text: TXT('default', 'service/default/web') })),
      cur('/skydns/org/example/gone/0badf00d', JSON.stringify({ host: '10.0.0.8', targetstrip: 1 })),
      cur('/skydns/org/example/a-gone/0badf00d', JSON.stringify({ text: TXT('default', 'service/default/gone') })),
    ],
    creates: [[WEB, { host: 'lb.example.net', owner: ME, resource: web }]],
    deletes: ['/skydns/org/example/cname-web/0badf00d', '/skydns/org/example/web/0badf00d'],
  },
  {
    name: 'the entries of a kind that cannot be read (its CRD not served) are kept; other kinds are planned',
    desired: [rec('web.example.org.', 'A', '10.0.0.2')],
    unseen: ['httproute'],
    current: [
      cur(A1, ours('10.0.0.1')),
      cur('/skydns/org/example/shop/' + h('A 10.0.0.5'), ours('10.0.0.5', 'httproute/apps/shop')),
    ],
    creates: [[A2, { host: '10.0.0.2', targetstrip: 1, owner: ME, resource: web }]],
    deletes: [A1],
  },
  {
    name: 'the same entries are deleted once the kind can be read and has no such object',
    desired: [],
    current: [cur('/skydns/org/example/shop/' + h('A 10.0.0.5'), ours('10.0.0.5', 'httproute/apps/shop'))],
    deletes: ['/skydns/org/example/shop/' + h('A 10.0.0.5')],
  },
];

function summarize(plan: Plan) {
  return {
    creates: plan.creates.map((c) => [c.key, JSON.parse(c.after!)]),
    updates: plan.updates.map((c) => [c.key, JSON.parse(c.after!)]),
    deletes: plan.deletes.map((c) => c.key),
    conflicts: plan.conflicts.map((c) => `${c.name} ${resourceId(c.object)}`),
  };
}

for (const row of rows) {
  test(`plan: ${row.name}`, () => {
    const input = {
      prefix: row.prefix ?? '/skydns',
      ownerId: ME,
      policy: row.policy ?? 'sync',
      desired: row.desired,
      current: row.current ?? [],
      ...(row.adopt ? { adoptExternalDnsOwner: row.adopt } : {}),
      ...(row.unseen ? { unseen: new Set(row.unseen) } : {}),
    };
    const plan = planPrefix(input);
    assert.deepEqual(summarize(plan), {
      creates: row.creates ?? [],
      updates: row.updates ?? [],
      deletes: row.deletes ?? [],
      conflicts: row.conflicts ?? [],
    });
    // Deterministic: the order of inputs does not matter.
    const reversed = planPrefix({
      ...input,
      desired: [...input.desired].reverse(),
      current: [...input.current].reverse(),
    });
    assert.deepEqual(summarize(reversed), summarize(plan));
    // Updates and deletes are guarded by the revision they were planned against.
    for (const c of [...plan.updates, ...plan.deletes]) assert.equal(c.before?.modRevision, '7');
  });
}

test('applying a plan and planning again gives an empty plan', () => {
  const desired = [
    rec('web.example.org.', 'A', '10.0.0.1', web, { ttl: 60 }),
    rec('web.example.org.', 'AAAA', '2001:db8::1'),
    rec('cn.example.org.', 'CNAME', 'web.example.org.'),
    rec('_web._tcp.web.example.org.', 'SRV', 'web.example.org.', web, { port: 1, priority: 0, weight: 50 }),
  ];
  const first = planPrefix({ prefix: '/skydns', ownerId: ME, policy: 'sync', desired, current: [] });
  const current = first.creates.map((c) => cur(c.key, c.after!));
  const second = planPrefix({ prefix: '/skydns', ownerId: ME, policy: 'sync', desired, current });
  assert.ok(isEmptyPlan(second), formatPlan(second));
});

test('formatPlan groups changes per name and counts them', () => {
  const plan = planPrefix({
    prefix: '/skydns',
    ownerId: ME,
    policy: 'sync',
    desired: [rec('web.example.org.', 'A', '10.0.0.2')],
    current: [cur(A1, ours('10.0.0.1'))],
  });
  const text = formatPlan(plan);
  assert.match(text, /^web\.example\.org\.\n {2}\+ \/skydns\/org\/example\/web\/\w{8} \{"host":"10\.0\.0\.2"/);
  assert.match(text, /\n {2}- \/skydns\/org\/example\/web\/\w{8} \{"host":"10\.0\.0\.1"/);
  assert.match(text, /1 to create, 0 to update, 1 to delete, 0 conflicts\n$/);
});
