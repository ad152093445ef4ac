// The controller's views from its config file: validated with errors naming the field, the
// default view at the controller's prefix, and what /debug/views reports for a name.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseControllerOptions } from '../../src/runtime/controller/controller-options.ts';
import { planPrefix } from '../../src/runtime/controller/plan/plan.ts';
import { controllerViews, viewsOfName } from '../../src/runtime/controller/views/controller-views.ts';
import { sourceObjects } from '../../src/runtime/controller/views/source-object.ts';
import { ref } from '../controller/object-ref.ts';
import { compileViews, viewRecords } from '../../src/runtime/controller/views/view-records.ts';

const base = ['--etcd', 'http://127.0.0.1:2379', '--owner-id', 'me'];
let n = 0;
const withFile = (content: object, args: string[] = []) => {
  const file = join(tmpdir(), `views-config-${process.pid}-${n++}.json`);
  writeFileSync(file, JSON.stringify(content));
  return parseControllerOptions([...base, '--config', file, ...args], {});
};
const EXTERNAL = {
  name: 'external',
  prefix: '/skydns-external',
  exposure: 'external',
  selection: { mode: 'opt-in', ingressClasses: ['public'] },
  rules: [{ name: 'global', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } } }],
};

test('without views: one internal view at the controller prefix (today)', () => {
  assert.deepEqual(controllerViews(parseControllerOptions([...base, '--prefix', '/dns/'], {}).config), [
    { name: 'internal', prefix: '/dns', zones: [], exposure: 'internal', selection: { mode: 'all' }, rules: [] },
  ]);
});

test('views from the config file, defaults filled', () => {
  const { config } = withFile({ views: [{ name: 'internal', prefix: '/skydns' }, EXTERNAL] });
  assert.deepEqual(
    controllerViews(config).map((v) => [v.name, v.prefix, v.exposure, v.selection.mode, v.rules.length]),
    [
      ['internal', '/skydns', 'internal', 'all', 0],
      ['external', '/skydns-external', 'external', 'opt-in', 1],
    ],
  );
});

test('bad views fail start-up naming the config field', () => {
  const rows: [object, string[], RegExp][] = [
    [
      {
        views: [
          { name: 'internal', prefix: '/skydns' },
          { ...EXTERNAL, prefix: '/skydns/ext' },
        ],
      },
      [],
      /views\[1\]\.prefix \(file .*\): "\/skydns\/ext" overlaps/,
    ],
    [
      {
        views: [
          { ...EXTERNAL, rules: [{ name: 'g', match: { targetCidrs: ['10.9.176.0/33'] }, action: { keep: true } }] },
        ],
      },
      [],
      /views\[0\]\.rules\[0\]\.match\.targetCidrs\[0\] \(file .*\): "10\.9\.176\.0\/33" is not a CIDR/,
    ],
    [
      { views: [{ ...EXTERNAL, selection: { mode: 'all' } }] },
      [],
      /views\[0\]\.selection\.mode \(file .*\): an external view/,
    ],
    [{ views: [EXTERNAL] }, ['--prefix', '/skydns'], /prefix \(--prefix\): not together with views/],
    [{ views: [] }, [], /views \(file .*\): must list at least one of views/],
  ];
  for (const [content, args, want] of rows) assert.throws(() => withFile(content, args), want, JSON.stringify(content));
});

test('/debug/views: per view, the answers and the decisions for one name', () => {
  const views = compileViews(controllerViews({ views: [{ name: 'internal', prefix: '/skydns' }, EXTERNAL as never] }));
  const ingress = { metadata: { name: 'shop', namespace: 'web' }, spec: { ingressClassName: 'public' } };
  const desired = [
    { name: 'shop.example.org.', type: 'A' as const, target: '10.9.176.213', object: ref('ingress/web/shop'), ttl: 30 },
    { name: 'other.example.org.', type: 'A' as const, target: '10.9.176.1', object: ref('ingress/web/shop') },
  ];
  const split = viewRecords(views, desired, sourceObjects({ services: [], ingresses: [ingress] }));
  const synced = split.views.map((records) => ({
    records,
    plan: planPrefix({
      prefix: records.view.prefix,
      ownerId: 'me',
      policy: 'sync',
      desired: records.records,
      current: [],
    }),
  }));
  assert.deepEqual(viewsOfName('SHOP.example.org', synced), [
    {
      view: 'internal',
      prefix: '/skydns',
      exposure: 'internal',
      answers: [{ type: 'A', target: '10.9.176.213', ttl: 30, resource: 'ingress/web/shop' }],
      decisions: [
        {
          type: 'A',
          target: '10.9.176.213',
          resource: 'ingress/web/shop',
          outcome: 'published',
          published: [{ type: 'A', target: '10.9.176.213' }],
        },
      ],
    },
    {
      view: 'external',
      prefix: '/skydns-external',
      exposure: 'external',
      answers: [{ type: 'A', target: '203.0.113.213', ttl: 30, resource: 'ingress/web/shop' }],
      decisions: [
        {
          type: 'A',
          target: '10.9.176.213',
          resource: 'ingress/web/shop',
          outcome: 'published',
          rule: 'global',
          published: [{ type: 'A', target: '203.0.113.213' }],
        },
      ],
    },
  ]);
});
