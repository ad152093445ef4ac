// The controller's views from its config file: validated with errors naming the field, the
// default view at the controller's prefix (/debug/views: views.e2e.test.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseControllerOptions } from '../../../../src/runtime/controller/controller-options.ts';
import { controllerViews } from '../../../../src/runtime/controller/views/controller-views.ts';

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
