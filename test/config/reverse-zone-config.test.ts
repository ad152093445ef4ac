// Table tests (one test per row) of the controller's PTR and SRV settings: each mistake is
// reported naming its field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemsOf } from '../../src/config/schema-problems.ts';
import { controllerConfigSchema } from '../../src/config/controller-config.ts';

const base = { etcd: { endpoints: ['http://127.0.0.1:2379'] }, ownerId: 'test' };
const views = [
  { name: 'internal', prefix: '/skydns' },
  { name: 'external', prefix: '/skydns-external', exposure: 'external', selection: { mode: 'opt-in' } },
];

const rows: [string, object, RegExp | undefined][] = [
  ['an IPv4 /24', { reverseZones: [{ network: '10.9.176.0/24' }] }, undefined],
  [
    'an IPv4 /16 and an IPv6 /32',
    { reverseZones: [{ network: '10.9.0.0/16' }, { network: '2001:db8::/32' }] },
    undefined,
  ],
  ['an IPv6 nibble boundary /36', { reverseZones: [{ network: '2001:db8::/36' }] }, undefined],
  ['a view listed', { views, reverseZones: [{ network: '10.9.176.0/24', views: ['external'] }] }, undefined],
  ['the default view listed', { reverseZones: [{ network: '10.9.176.0/24', views: ['internal'] }] }, undefined],
  [
    'IPv4 off an octet boundary',
    { reverseZones: [{ network: '10.9.176.0/25' }] },
    /^reverseZones\[0\]\.network: .*an octet/,
  ],
  [
    'IPv6 off a nibble boundary',
    { reverseZones: [{ network: '2001:db8::/33' }] },
    /^reverseZones\[0\]\.network: .*a nibble/,
  ],
  ['host bits set', { reverseZones: [{ network: '10.9.176.1/24' }] }, /^reverseZones\[0\]\.network: .*host bits set/],
  ['not a CIDR', { reverseZones: [{ network: 'example.org' }] }, /^reverseZones\[0\]\.network: .*not a CIDR/],
  [
    'unknown field',
    { reverseZones: [{ network: '10.9.176.0/24', zone: 'x' }] },
    /^reverseZones\[0\]\.zone: unknown field/,
  ],
  ['not a list', { reverseZones: { network: '10.9.176.0/24' } }, /^reverseZones: must be a list/],
  [
    'an unknown view',
    { views, reverseZones: [{ network: '10.9.176.0/24', views: ['outside'] }] },
    /^reverseZones\[0\]\.views\[0\]: "outside" is not a configured view \(internal, external\)/,
  ],
  ['srv true', { srv: true }, undefined],
  ['srv not a boolean', { srv: 'yes' }, /^srv: must be true or false/],
  ['srvMaxPerService 64', { srvMaxPerService: 64 }, undefined],
  ['srvMaxPerService 0', { srvMaxPerService: 0 }, /^srvMaxPerService: /],
];
for (const [name, extra, error] of rows) {
  test(`controller config: ${name}`, () => {
    const problems = problemsOf(controllerConfigSchema, { ...base, ...extra });
    if (error)
      assert.ok(
        problems.some((p) => error.test(p)),
        problems.join('\n'),
      );
    else assert.deepEqual(problems, []);
  });
}
