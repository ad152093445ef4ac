// Table tests of the view schema (each error names the field) and of the defaults.
import { test } from 'node:test';
import * as v from 'valibot';
import assert from 'node:assert/strict';
import { problemsOf } from '../../src/config/schema-problems.ts';
import { controllerConfigSchema } from '../../src/config/controller-config.ts';
import { rewriteRuleSchema, viewsSchema, withViewDefaults } from '../../src/config/view-config.ts';

const ok = { name: 'internal', prefix: '/skydns' };
const ext = { name: 'external', prefix: '/skydns-external', exposure: 'external', selection: { mode: 'opt-in' } };

test('view validation names the field of every mistake', () => {
  const rows: [string, unknown, RegExp | undefined][] = [
    ['one internal view', [ok], undefined],
    ['internal and external views', [ok, ext], undefined],
    ['not a list', { name: 'x' }, /^views: must be a list of views/],
    ['empty list', [], /^views: must list at least one of views/],
    ['not an object', ['internal'], /^views\[0\]: must be an object/],
    ['bad name', [{ ...ok, name: 'Internal' }], /^views\[0\]\.name: must be a DNS label/],
    [
      'duplicate name',
      [ok, { ...ext, name: 'internal' }],
      /^views\[1\]\.name: "internal" is already the name of views\[0\]/,
    ],
    ['missing prefix', [{ name: 'internal' }], /^views\[0\]\.prefix: is required/],
    ['bad prefix', [{ ...ok, prefix: '/sky dns' }], /^views\[0\]\.prefix: must be an etcd key prefix/],
    [
      'same prefix',
      [ok, { ...ext, prefix: '/skydns/' }],
      /^views\[1\]\.prefix: "\/skydns" overlaps "\/skydns" of views\[0\]/,
    ],
    [
      'nested prefix',
      [ok, { ...ext, prefix: '/skydns/external' }],
      /^views\[1\]\.prefix: "\/skydns\/external" overlaps/,
    ],
    [
      'outer prefix',
      [
        { ...ok, prefix: '/dns/internal' },
        { ...ext, prefix: '/dns' },
      ],
      /^views\[1\]\.prefix: "\/dns" overlaps/,
    ],
    ['sibling prefix sharing leading characters is fine', [ok, { ...ext, prefix: '/skydns-ext' }], undefined],
    [
      'bad zone',
      [{ ...ok, zones: ['example..org'] }],
      /^views\[0\]\.zones\[0\]: .*"example\.\.org" has an empty label/,
    ],
    ['bad exposure', [{ ...ok, exposure: 'public' }], /^views\[0\]\.exposure: must be one of "internal", "external"/],
    [
      'bad mode',
      [{ ...ok, selection: { mode: 'some' } }],
      /^views\[0\]\.selection\.mode: must be one of "all", "opt-in"/,
    ],
    [
      'external view taking all',
      [ok, { ...ext, selection: { mode: 'all' } }],
      /^views\[1\]\.selection\.mode: an external view publishes only resources opted in/,
    ],
    [
      'bad labels',
      [{ ...ok, selection: { mode: 'opt-in', labels: ['a'] } }],
      /^views\[0\]\.selection\.labels: must map/,
    ],
    [
      'bad classes',
      [{ ...ok, selection: { mode: 'opt-in', ingressClasses: 'public' } }],
      /^views\[0\]\.selection\.ingressClasses: must be a list/,
    ],
    ['rules not a list', [{ ...ok, rules: {} }], /^views\[0\]\.rules: must be a list/],
    [
      'bad rule',
      [
        ok,
        {
          ...ext,
          rules: [{ name: 'g', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/25' } } }],
        },
      ],
      /^views\[1\]\.rules\[0\]\.action\.mapCidr\.to: must have the family and prefix length/,
    ],
  ];
  for (const [name, input, want] of rows) {
    const problems = problemsOf(viewsSchema, input, 'views');
    if (want) assert.match(problems.join('\n'), want, name);
    else assert.deepEqual(problems, [], name);
  }
});

test('defaults: every zone, internal, all resources; an external view is opt-in', () => {
  assert.deepEqual(
    withViewDefaults(
      v.parse(viewsSchema, [
        { name: 'internal', prefix: '/skydns/' },
        { name: 'external', prefix: '/ext', exposure: 'external' },
      ]),
    ),
    [
      { name: 'internal', prefix: '/skydns', zones: [], exposure: 'internal', selection: { mode: 'all' }, rules: [] },
      { name: 'external', prefix: '/ext', zones: [], exposure: 'external', selection: { mode: 'opt-in' }, rules: [] },
    ],
  );
});

// What the controller compiles (rewrite-rule.ts) is only what passed these.
const badRules: [string, unknown, RegExp][] = [
  ['no name', { match: {}, action: { keep: true } }, /^r\.name: is required/],
  ['no match', { name: 'x', action: { keep: true } }, /^r\.match: is required/],
  [
    'empty names',
    { name: 'x', match: { names: [] }, action: { keep: true } },
    /^r\.match\.names: must list at least one/,
  ],
  [
    'unknown match field',
    { name: 'x', match: { name: ['a'] }, action: { keep: true } },
    /^r\.match\.name: unknown field/,
  ],
  [
    'bad name',
    { name: 'x', match: { names: ['bad name'] }, action: { keep: true } },
    /^r\.match\.names\[0\]: must be a name suffix or glob .*\(got "bad name"\)/,
  ],
  [
    'bad type',
    { name: 'x', match: { types: ['NAPTR'] }, action: { keep: true } },
    /^r\.match\.types\[0\]: must be one of "A"/,
  ],
  [
    'a kind not in lower case',
    { name: 'x', match: { kinds: ['Service'] }, action: { keep: true } },
    /^r\.match\.kinds\[0\]: must be one of "service", "ingress", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute", "dnsendpoint".*, or the lower-case kind of an unstructured resource \(got "Service"\)/,
  ],
  [
    'network with host bits',
    { name: 'x', match: { targetCidrs: ['10.0.0.1/8'] }, action: { keep: true } },
    /^r\.match\.targetCidrs\[0\]: "10\.0\.0\.1\/8" has host bits set; did you mean 10\.0\.0\.0\/8\?/,
  ],
  [
    'not a network',
    { name: 'x', match: { targetCidrs: ['10.0.0.0'] }, action: { keep: true } },
    /^r\.match\.targetCidrs\[0\]: "10\.0\.0\.0" is not a CIDR/,
  ],
  [
    'labels not strings',
    { name: 'x', match: { labels: { a: 1 } }, action: { keep: true } },
    /^r\.match\.labels\.a: must map/,
  ],
  [
    'no action',
    { name: 'x', match: {}, action: {} },
    /^r\.action: must have exactly one of replace, mapCidr, cname, drop, keep/,
  ],
  ['two actions', { name: 'x', match: {}, action: { drop: true, keep: true } }, /^r\.action: must have exactly one/],
  ['unknown action', { name: 'x', match: {}, action: { rewrite: '1.2.3.4' } }, /^r\.action: must have exactly one/],
  [
    'replace with nothing',
    { name: 'x', match: {}, action: { replace: [] } },
    /^r\.action\.replace: must list at least one/,
  ],
  [
    'replace with a name',
    { name: 'x', match: {}, action: { replace: ['1.2.3.4', 'web'] } },
    /^r\.action\.replace\[1\]: must be an IPv4 or IPv6 address \(got "web"\)/,
  ],
  [
    'mapCidr to another length',
    { name: 'x', match: {}, action: { mapCidr: { from: '10.0.0.0/8', to: '203.0.113.0/24' } } },
    /^r\.action\.mapCidr\.to: must have the family and prefix length of from/,
  ],
  [
    'mapCidr to another family',
    { name: 'x', match: {}, action: { mapCidr: { from: '10.0.0.0/8', to: 'fd00::/8' } } },
    /^r\.action\.mapCidr\.to: must have the family/,
  ],
  [
    'mapCidr from a network with host bits',
    { name: 'x', match: {}, action: { mapCidr: { from: '10.0.0.1/8', to: '11.0.0.0/8' } } },
    /^r\.action\.mapCidr\.from: "10\.0\.0\.1\/8" has host bits set/,
  ],
  [
    'cname to a wildcard',
    { name: 'x', match: {}, action: { cname: '*.example.org' } },
    /^r\.action\.cname: must be a host name \(no wildcard\)/,
  ],
  [
    'cname to a bad name',
    { name: 'x', match: {}, action: { cname: 'a..b' } },
    /^r\.action\.cname: must be a host name/,
  ],
  ['drop not true', { name: 'x', match: {}, action: { drop: 'yes' } }, /^r\.action: must have exactly one/],
  [
    'allowPrivate not a boolean',
    { name: 'x', match: {}, action: { keep: true }, allowPrivate: 'yes' },
    /^r\.allowPrivate: must be true or false/,
  ],
];
for (const [name, input, want] of badRules)
  test(`rewrite rule refused, naming the field: ${name}`, () => {
    assert.match(problemsOf(rewriteRuleSchema, input, 'r').join('\n'), want);
  });

// A kind no row names can only be the unstructured source's: refused when that source is off;
// with it on, discovery decides at start-up (controller-process.ts).
const ruleKindRows: [name: string, sources: string[], kinds: string[], want: RegExp | undefined][] = [
  ["a row's kind", ['service'], ['service'], undefined],
  [
    'another kind, no unstructured source',
    ['service'],
    ['deployment'],
    /^views\[0\]\.rules\[0\]\.match\.kinds\[0\]: must be one of "service", .* \(sources: unstructured\)$/,
  ],
  ['another kind, with the unstructured source', ['service', 'unstructured'], ['deployment'], undefined],
];
for (const [name, sources, kinds, want] of ruleKindRows)
  test(`a view rule's kinds: ${name}`, () => {
    const problems = problemsOf(controllerConfigSchema, {
      etcd: { endpoints: ['http://127.0.0.1:2379'] },
      ownerId: 'test',
      sources,
      ...(sources.includes('unstructured') ? { unstructuredResources: ['deployments.v1.apps'] } : {}),
      views: [
        { name: 'internal', prefix: '/skydns', rules: [{ name: 'r', match: { kinds }, action: { keep: true } }] },
      ],
    });
    if (want) assert.match(problems.join('\n'), want);
    else assert.deepEqual(problems, []);
  });
