// Table tests of rewrite rules: what each match field selects, what each action produces, first
// match decides. A bad rule is refused by the view schema (test/config/view-config.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceId, type DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { ref } from '../object-ref.ts';
import {
  compileRule,
  evaluateRules,
  type CompiledRule,
} from '../../../../src/runtime/controller/views/rewrite-rule.ts';
import type { SourceObject } from '../../../../src/runtime/controller/views/source-object.ts';
import type { RewriteRule } from '../../../../src/config/view-config.ts';

const ING = 'ingress/web/shop';
const SVC = 'service/db/pg';
const rec = (
  name: string,
  type: DesiredRecord['type'],
  target: string,
  resource = ING,
  extra: Partial<DesiredRecord> = {},
): DesiredRecord => ({
  name,
  type,
  target,
  object: ref(resource),
  ...extra,
});
const source = (resource: string, extra: Partial<SourceObject> = {}): SourceObject => {
  const [kind = '', namespace = '', name = ''] = resource.split('/');
  return {
    ref: { kind: kind === 'ingress' ? 'Ingress' : 'Service', apiVersion: 'v1', namespace, name },
    kind,
    namespace,
    labels: {},
    annotations: {},
    ...extra,
  };
};
const SOURCES: Record<string, SourceObject> = {
  [ING]: source(ING, { ingressClass: 'public', labels: { tier: 'front', team: 'shop' } }),
  [SVC]: source(SVC, { labels: { tier: 'data' } }),
};
const compile = (rules: RewriteRule[]): CompiledRule[] => rules.map((r) => compileRule(r));
const rule = (name: string, match: RewriteRule['match'], action: RewriteRule['action']): RewriteRule => ({
  name,
  match,
  action,
});

type Row = {
  name: string;
  rules: RewriteRule[];
  record: DesiredRecord;
  /** Name of the deciding rule; undefined: none matched. */
  decidedBy?: string;
  /** Resulting records as "TYPE target". */
  want: string[];
};

const LB = rec('shop.example.org.', 'A', '10.9.176.213', ING, { ttl: 60 });
const MAP = rule('global', {}, { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } });

const rows: Row[] = [
  { name: 'no rules: the record is kept as it is', rules: [], record: LB, want: ['A 10.9.176.213'] },
  { name: 'mapCidr maps 1:1', rules: [MAP], record: LB, decidedBy: 'global', want: ['A 203.0.113.213'] },
  {
    name: 'mapCidr does not match an address outside its from network: the next rule decides',
    rules: [MAP, rule('rest', {}, { drop: true })],
    record: rec('shop.example.org.', 'A', '10.9.177.1'),
    decidedBy: 'rest',
    want: [],
  },
  {
    name: 'IPv6 mapCidr',
    rules: [rule('v6', {}, { mapCidr: { from: 'fd00:1::/64', to: '2001:db8:5::/64' } })],
    record: rec('shop.example.org.', 'AAAA', 'fd00:1::1:2'),
    decidedBy: 'v6',
    want: ['AAAA 2001:db8:5::1:2'],
  },
  {
    name: 'replace with fixed addresses of both families',
    rules: [rule('fixed', { names: ['shop.example.org'] }, { replace: ['203.0.113.7', '2001:DB8::7'] })],
    record: LB,
    decidedBy: 'fixed',
    want: ['A 203.0.113.7', 'AAAA 2001:db8::7'],
  },
  {
    name: 'replace also rewrites a CNAME into addresses',
    rules: [rule('fixed', {}, { replace: ['203.0.113.7'] })],
    record: rec('shop.example.org.', 'CNAME', 'lb.internal.example.org.'),
    decidedBy: 'fixed',
    want: ['A 203.0.113.7'],
  },
  {
    name: 'replace does not apply to SRV: the next rule decides',
    rules: [rule('fixed', {}, { replace: ['203.0.113.7'] }), rule('keep', {}, { keep: true })],
    record: rec('_pg._tcp.db.example.org.', 'SRV', 'db.example.org.', SVC, { port: 30432, priority: 0, weight: 50 }),
    decidedBy: 'keep',
    want: ['SRV db.example.org.'],
  },
  {
    name: 'cname replaces an address with a host name',
    rules: [rule('via-cdn', { names: ['*.example.org'] }, { cname: 'Edge.CDN.example.net' })],
    record: LB,
    decidedBy: 'via-cdn',
    want: ['CNAME edge.cdn.example.net.'],
  },
  { name: 'drop', rules: [rule('none', {}, { drop: true })], record: LB, decidedBy: 'none', want: [] },
  {
    name: 'first match decides: keep before drop',
    rules: [rule('k', { types: ['A'] }, { keep: true }), rule('d', {}, { drop: true })],
    record: LB,
    decidedBy: 'k',
    want: ['A 10.9.176.213'],
  },
  {
    name: 'name suffix matches the name and below',
    rules: [rule('d', { names: ['example.org'] }, { drop: true })],
    record: LB,
    decidedBy: 'd',
    want: [],
  },
  {
    name: 'name suffix does not match a longer label (notexample.org)',
    rules: [rule('d', { names: ['example.org'] }, { drop: true })],
    record: rec('shop.notexample.org.', 'A', '10.9.176.1'),
    want: ['A 10.9.176.1'],
  },
  {
    name: 'glob "*" stays within one label',
    rules: [rule('d', { names: ['*.example.org'] }, { drop: true })],
    record: rec('a.shop.example.org.', 'A', '10.9.176.1'),
    want: ['A 10.9.176.1'],
  },
  {
    name: 'glob inside a label',
    rules: [rule('d', { names: ['shop-*.Example.org.'] }, { drop: true })],
    record: rec('shop-eu.example.org.', 'A', '10.9.176.1'),
    decidedBy: 'd',
    want: [],
  },
  {
    name: 'glob matches the whole name only',
    rules: [rule('d', { names: ['shop*'] }, { drop: true })],
    record: rec('shop.example.org.', 'A', '10.9.176.1'),
    want: ['A 10.9.176.1'],
  },
  {
    name: 'record type',
    rules: [rule('d', { types: ['AAAA'] }, { drop: true })],
    record: LB,
    want: ['A 10.9.176.213'],
  },
  {
    name: 'source kind and namespace',
    rules: [
      rule('svc', { kinds: ['service'] }, { drop: true }),
      rule('ns', { kinds: ['ingress'], namespaces: ['web'] }, { replace: ['203.0.113.1'] }),
    ],
    record: LB,
    decidedBy: 'ns',
    want: ['A 203.0.113.1'],
  },
  {
    name: 'ingress class',
    rules: [
      rule('c', { ingressClasses: ['internal'] }, { drop: true }),
      rule('p', { ingressClasses: ['public'] }, { keep: true }),
    ],
    record: LB,
    decidedBy: 'p',
    want: ['A 10.9.176.213'],
  },
  {
    name: 'a Service has no ingress class: an ingressClasses match never selects it',
    rules: [rule('c', { ingressClasses: ['public'] }, { drop: true })],
    record: rec('db.example.org.', 'A', '10.9.176.9', SVC),
    want: ['A 10.9.176.9'],
  },
  {
    name: 'labels: all must match',
    rules: [
      rule('both', { labels: { tier: 'front', team: 'other' } }, { drop: true }),
      rule('one', { labels: { tier: 'front' } }, { replace: ['203.0.113.2'] }),
    ],
    record: LB,
    decidedBy: 'one',
    want: ['A 203.0.113.2'],
  },
  {
    name: 'target CIDR',
    rules: [
      rule('other', { targetCidrs: ['192.168.0.0/16'] }, { drop: true }),
      rule('lb', { targetCidrs: ['172.16.0.0/12', '10.9.0.0/16'] }, { replace: ['203.0.113.3'] }),
    ],
    record: LB,
    decidedBy: 'lb',
    want: ['A 203.0.113.3'],
  },
  {
    name: 'target CIDR never matches a CNAME',
    rules: [rule('all', { targetCidrs: ['0.0.0.0/0'] }, { drop: true })],
    record: rec('shop.example.org.', 'CNAME', 'lb.example.org.'),
    want: ['CNAME lb.example.org.'],
  },
  {
    name: 'every field together',
    rules: [
      rule(
        'all-fields',
        {
          names: ['example.org'],
          types: ['A'],
          kinds: ['ingress'],
          namespaces: ['web'],
          ingressClasses: ['public'],
          labels: { team: 'shop' },
          targetCidrs: ['10.9.176.0/24'],
        },
        { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } },
      ),
    ],
    record: LB,
    decidedBy: 'all-fields',
    want: ['A 203.0.113.213'],
  },
];

test('rewrite rules: match fields, actions, first match decides', () => {
  for (const row of rows) {
    const result = evaluateRules(compile(row.rules), row.record, SOURCES[resourceId(row.record.object)]!);
    assert.equal(result.rule?.rule.name, row.decidedBy, row.name);
    assert.deepEqual(
      result.records.map((r) => `${r.type} ${r.target}`),
      row.want,
      row.name,
    );
  }
});

test('rules never touch ownership: resource and ttl are carried over, no owner is added', () => {
  const rules = compile([
    rule('m', { names: ['a.example.org'] }, { mapCidr: { from: '10.0.0.0/8', to: '198.0.0.0/8' } }),
    rule('r', { names: ['b.example.org'] }, { replace: ['203.0.113.1'] }),
    rule('c', { names: ['c.example.org'] }, { cname: 'x.example.org' }),
  ]);
  for (const name of ['a.example.org.', 'b.example.org.', 'c.example.org.']) {
    const input = rec(name, 'A', '10.1.2.3', SVC, { ttl: 42 });
    const [out] = evaluateRules(rules, input, SOURCES[SVC]!).records;
    assert.equal(resourceId(out!.object), SVC, name);
    assert.equal(out!.ttl, 42, name);
    assert.equal(out!.name, name, name);
    assert.ok(!('owner' in out!), name);
  }
});
