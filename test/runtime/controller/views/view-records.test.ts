// Table tests of what each view publishes: selection (all, opt-in by label / ingress class /
// annotation), zones, the explicit external target, rules, and the external view's refusal of
// private addresses (reported as problems naming the object).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import type { DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { ref } from '../object-ref.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { compileViews, viewRecords } from '../../../../src/runtime/controller/views/view-records.ts';
import { withViewDefaults, type ViewInput } from '../../../../src/config/view-config.ts';

const ingress = (
  name: string,
  opts: { cls?: string; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): V1Ingress => ({
  metadata: {
    name,
    namespace: 'web',
    uid: `uid-${name}`,
    labels: opts.labels ?? {},
    annotations: opts.annotations ?? {},
  },
  spec: opts.cls ? { ingressClassName: opts.cls } : {},
});
const service = (name: string, annotations: Record<string, string> = {}): V1Service => ({
  metadata: { name, namespace: 'db', annotations },
});
const a = (name: string, target: string, resource: string): DesiredRecord => ({
  name: `${name}.`,
  type: target.includes(':') ? 'AAAA' : /^[\d.]+$/.test(target) ? 'A' : 'CNAME',
  target,
  object: ref(resource),
});

const INTERNAL: ViewInput = { name: 'internal', prefix: '/skydns' };
const EXTERNAL: ViewInput = {
  name: 'external',
  prefix: '/skydns-external',
  exposure: 'external',
  zones: ['example.org'],
  selection: { mode: 'opt-in', labels: { 'etcdns.io/public': 'true' }, ingressClasses: ['public'] },
  rules: [{ name: 'global', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } } }],
};

type Row = {
  name: string;
  views?: ViewInput[];
  ingresses?: V1Ingress[];
  services?: V1Service[];
  desired: DesiredRecord[];
  /** Per view name: published records as "name TYPE target". */
  want: Record<string, string[]>;
  /** Problems as "Kind/name Reason". */
  problems?: string[];
  /** Decision outcomes in the external view, in record order. */
  outcomes?: string[];
};

const rows: Row[] = [
  {
    name: "default view: everything as it is (today's behaviour)",
    views: [INTERNAL],
    ingresses: [ingress('shop')],
    desired: [
      a('shop.example.org', '10.9.176.1', 'ingress/web/shop'),
      a('x.other.net', '10.1.1.1', 'ingress/web/shop'),
    ],
    want: { internal: ['shop.example.org. A 10.9.176.1', 'x.other.net. A 10.1.1.1'] },
  },
  {
    name: 'not opted in: absent from the external view, no problem reported',
    ingresses: [ingress('shop', { cls: 'internal' })],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.1'], external: [] },
    outcomes: ['not-selected'],
  },
  {
    name: 'opted in by ingress class: mapped 1:1 into the global network',
    ingresses: [ingress('shop', { cls: 'public' })],
    desired: [a('shop.example.org', '10.9.176.213', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.213'], external: ['shop.example.org. A 203.0.113.213'] },
    outcomes: ['published'],
  },
  {
    name: 'opted in by label',
    ingresses: [ingress('shop', { labels: { 'etcdns.io/public': 'true' } })],
    desired: [a('shop.example.org', '10.9.176.7', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.7'], external: ['shop.example.org. A 203.0.113.7'] },
  },
  {
    name: 'opted in by annotation; the annotation also takes it out of the "all" view',
    ingresses: [ingress('shop', { annotations: { 'etcdns.io/views': 'external' } })],
    desired: [a('shop.example.org', '10.9.176.7', 'ingress/web/shop')],
    want: { internal: [], external: ['shop.example.org. A 203.0.113.7'] },
  },
  {
    name: 'annotation wins over an opt-in label: an empty list means no view',
    ingresses: [ingress('shop', { cls: 'public', annotations: { 'etcdns.io/views': '' } })],
    desired: [a('shop.example.org', '10.9.176.7', 'ingress/web/shop')],
    want: { internal: [], external: [] },
  },
  {
    name: 'an unknown view in the annotation is reported once; the known ones still apply',
    ingresses: [ingress('shop', { annotations: { 'etcdns.io/views': 'internal, externl' } })],
    desired: [
      a('shop.example.org', '10.9.176.7', 'ingress/web/shop'),
      a('www.example.org', '10.9.176.7', 'ingress/web/shop'),
    ],
    want: { internal: ['shop.example.org. A 10.9.176.7', 'www.example.org. A 10.9.176.7'], external: [] },
    problems: ['Ingress/shop InvalidAnnotation'],
  },
  {
    name: 'private address without a mapping rule is refused in the external view and reported; the internal view keeps it',
    ingresses: [ingress('shop', { cls: 'public' })],
    desired: [
      a('shop.example.org', '10.9.177.5', 'ingress/web/shop'),
      a('shop.example.org', 'fd00::5', 'ingress/web/shop'),
    ],
    want: {
      internal: ['shop.example.org. A 10.9.177.5', 'shop.example.org. AAAA fd00::5'],
      external: [],
    },
    problems: ['Ingress/shop PrivateAddressRefused', 'Ingress/shop PrivateAddressRefused'],
    outcomes: ['refused', 'refused'],
  },
  {
    name: 'a public address passes unchanged; a refused one does not take its siblings down',
    ingresses: [ingress('shop', { cls: 'public' })],
    desired: [
      a('shop.example.org', '198.51.100.4', 'ingress/web/shop'),
      a('shop.example.org', '192.168.0.4', 'ingress/web/shop'),
    ],
    want: {
      internal: ['shop.example.org. A 198.51.100.4', 'shop.example.org. A 192.168.0.4'],
      external: ['shop.example.org. A 198.51.100.4'],
    },
    problems: ['Ingress/shop PrivateAddressRefused'],
    outcomes: ['published', 'refused'],
  },
  {
    name: 'a rule with allowPrivate lets a private address out',
    views: [
      INTERNAL,
      {
        ...EXTERNAL,
        rules: [{ name: 'vpn', match: { names: ['vpn.example.org'] }, action: { keep: true }, allowPrivate: true }],
      },
    ],
    ingresses: [ingress('vpn', { cls: 'public' })],
    desired: [a('vpn.example.org', '100.64.0.9', 'ingress/web/vpn')],
    want: { internal: ['vpn.example.org. A 100.64.0.9'], external: ['vpn.example.org. A 100.64.0.9'] },
    outcomes: ['published'],
  },
  {
    name: 'a rule mapping into a private network is still refused without allowPrivate',
    views: [
      INTERNAL,
      {
        ...EXTERNAL,
        rules: [{ name: 'oops', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '192.168.9.0/24' } } }],
      },
    ],
    ingresses: [ingress('shop', { cls: 'public' })],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.1'], external: [] },
    problems: ['Ingress/shop PrivateAddressRefused'],
  },
  {
    name: 'the explicit external target replaces the addresses and wins over the rules',
    ingresses: [
      ingress('shop', { cls: 'public', annotations: { 'etcdns.io/external-target': '198.51.100.10, 2001:db8::10' } }),
    ],
    desired: [
      a('shop.example.org', '10.9.176.1', 'ingress/web/shop'),
      a('shop.example.org', '10.9.176.2', 'ingress/web/shop'),
    ],
    want: {
      internal: ['shop.example.org. A 10.9.176.1', 'shop.example.org. A 10.9.176.2'],
      external: [
        'shop.example.org. A 198.51.100.10',
        'shop.example.org. AAAA 2001:db8::10',
        'shop.example.org. A 198.51.100.10',
        'shop.example.org. AAAA 2001:db8::10',
      ],
    },
  },
  {
    name: 'an explicit external target can be a host name (CNAME)',
    ingresses: [
      ingress('shop', { cls: 'public', annotations: { 'etcdns.io/external-target': 'edge.cdn.example.net' } }),
    ],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.1'], external: ['shop.example.org. CNAME edge.cdn.example.net.'] },
  },
  {
    name: 'a bad explicit target publishes nothing externally for the object and is reported; others are unaffected',
    ingresses: [
      ingress('shop', { cls: 'public', annotations: { 'etcdns.io/external-target': '203.0.113.300' } }),
      ingress('blog', { cls: 'public' }),
    ],
    desired: [
      a('shop.example.org', '10.9.176.1', 'ingress/web/shop'),
      a('blog.example.org', '10.9.176.2', 'ingress/web/blog'),
    ],
    want: {
      internal: ['shop.example.org. A 10.9.176.1', 'blog.example.org. A 10.9.176.2'],
      external: ['blog.example.org. A 203.0.113.2'],
    },
    problems: ['Ingress/shop InvalidAnnotation'],
    outcomes: ['refused', 'published'],
  },
  {
    name: 'a private explicit target is refused like any other private address',
    ingresses: [ingress('shop', { cls: 'public', annotations: { 'etcdns.io/external-target': '10.0.0.1' } })],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.1'], external: [] },
    problems: ['Ingress/shop PrivateAddressRefused'],
  },
  {
    name: 'the explicit target is ignored by internal views',
    views: [INTERNAL],
    ingresses: [ingress('shop', { annotations: { 'etcdns.io/external-target': '198.51.100.10' } })],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. A 10.9.176.1'] },
  },
  {
    name: "names outside the view's zones are left out of it",
    ingresses: [ingress('shop', { cls: 'public' })],
    desired: [
      a('shop.example.org', '10.9.176.1', 'ingress/web/shop'),
      a('shop.corp.internal', '10.9.176.1', 'ingress/web/shop'),
    ],
    want: {
      internal: ['shop.example.org. A 10.9.176.1', 'shop.corp.internal. A 10.9.176.1'],
      external: ['shop.example.org. A 203.0.113.1'],
    },
    outcomes: ['published', 'outside-zones'],
  },
  {
    name: 'Services opt in by annotation; rules see their kind',
    views: [
      INTERNAL,
      {
        ...EXTERNAL,
        rules: [
          { name: 'no-db', match: { kinds: ['service'], namespaces: ['db'] }, action: { drop: true } },
          ...EXTERNAL.rules!,
        ],
      },
    ],
    services: [service('pg', { 'etcdns.io/views': 'internal,external' })],
    desired: [a('pg.example.org', '10.9.176.3', 'service/db/pg')],
    want: { internal: ['pg.example.org. A 10.9.176.3'], external: [] },
    outcomes: ['dropped'],
  },
  {
    name: 'an internal view rewrites too (rules are not only for external views)',
    views: [
      {
        ...INTERNAL,
        rules: [{ name: 'hairpin', match: { names: ['shop.example.org'] }, action: { cname: 'shop.corp.internal' } }],
      },
    ],
    ingresses: [ingress('shop')],
    desired: [a('shop.example.org', '10.9.176.1', 'ingress/web/shop')],
    want: { internal: ['shop.example.org. CNAME shop.corp.internal.'] },
  },
];

test('view records: selection, zones, explicit targets, rules and the refusal of private addresses', () => {
  for (const row of rows) {
    const views = compileViews(withViewDefaults(row.views ?? [INTERNAL, EXTERNAL]));
    const sources = sourceObjects({ services: row.services ?? [], ingresses: row.ingresses ?? [] });
    const result = viewRecords(views, row.desired, sources);
    const got = Object.fromEntries(
      result.views.map((v) => [v.view.name, v.records.map((r) => `${r.name} ${r.type} ${r.target}`)]),
    );
    assert.deepEqual(got, row.want, row.name);
    assert.deepEqual(
      result.problems.map((p) => `${p.object.kind}/${p.object.name} ${p.reason}`),
      row.problems ?? [],
      `${row.name}: ${result.problems.map((p) => p.message).join(' | ')}`,
    );
    if (row.outcomes) {
      const external = result.views.find((v) => v.view.name === 'external')!;
      assert.deepEqual(
        external.decisions.map((d) => d.outcome),
        row.outcomes,
        row.name,
      );
    }
    for (const v of result.views)
      for (const r of v.records)
        assert.ok(
          row.desired.some((d) => d.object === r.object),
          row.name,
        );
  }
});

test('problems name the object (with its uid, for the Event), the name, and the view', () => {
  const views = compileViews(withViewDefaults([INTERNAL, EXTERNAL]));
  const sources = sourceObjects({ services: [], ingresses: [ingress('shop', { cls: 'public' })] });
  const { problems } = viewRecords(views, [a('shop.example.org', '172.20.0.1', 'ingress/web/shop')], sources);
  assert.equal(problems.length, 1);
  const [p] = problems;
  assert.deepEqual(p!.object, {
    kind: 'Ingress',
    apiVersion: 'networking.k8s.io/v1',
    namespace: 'web',
    name: 'shop',
    uid: 'uid-shop',
  });
  assert.equal(p!.name, 'shop.example.org.');
  assert.match(
    p!.message,
    /view "external" is external: 172\.20\.0\.1 of shop\.example\.org\. is a private \(RFC 1918\) 172\.16\.0\.0\/12 address/,
  );
});

test('decisions record the deciding rule and what was published (for /debug/views)', () => {
  const views = compileViews(withViewDefaults([INTERNAL, EXTERNAL]));
  const sources = sourceObjects({ services: [], ingresses: [ingress('shop', { cls: 'public' })] });
  const result = viewRecords(views, [a('shop.example.org', '10.9.176.213', 'ingress/web/shop')], sources);
  assert.deepEqual(result.views[1]!.decisions, [
    {
      name: 'shop.example.org.',
      type: 'A',
      target: '10.9.176.213',
      resource: 'ingress/web/shop',
      outcome: 'published',
      rule: 'global',
      published: [{ type: 'A', target: '203.0.113.213' }],
    },
  ]);
  assert.deepEqual(result.views[0]!.decisions[0]!.published, [{ type: 'A', target: '10.9.176.213' }]);
  assert.equal(result.views[0]!.decisions[0]!.rule, undefined);
});
