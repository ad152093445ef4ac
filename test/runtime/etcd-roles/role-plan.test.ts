// The pure part of `etcdns etcd-roles`: flag parsing with errors naming the flag, and the steps
// from etcd's roles and users to the wanted ones. One test per row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  desiredRoles,
  parseGrant,
  parseUser,
  prefixRange,
  roleSteps,
  userSteps,
  type Permission,
  type RoleStep,
  type UserStep,
} from '../../../src/runtime/etcd-roles/role-plan.ts';
import { parseEtcdRolesArgs } from '../../../src/runtime/etcd-roles/etcd-roles-command.ts';

const read = (key: string): Permission => ({ type: 'Read', ...prefixRange(key) });
const rw = (key: string): Permission => ({ type: 'Readwrite', ...prefixRange(key) });

const GRANTS: [string, string, Permission[]][] = [
  ['one read prefix', 'etcdns-server-internal=read:/skydns/', [read('/skydns/')]],
  [
    'two readwrite prefixes',
    'etcdns-controller=readwrite:/skydns/,readwrite:/skydns-external/',
    [rw('/skydns/'), rw('/skydns-external/')],
  ],
];
for (const [what, spec, permissions] of GRANTS)
  test(`--grant parses: ${what}`, () => {
    assert.deepEqual(parseGrant(spec), { name: spec.slice(0, spec.indexOf('=')), permissions });
  });

const BAD: [string, () => unknown, RegExp][] = [
  ['--grant without "="', () => parseGrant('read:/skydns/'), /--grant "read:\/skydns\/": must be NAME=/],
  ['--grant with an unknown access', () => parseGrant('r=write:/skydns/'), /"write:\/skydns\/" must be read:/],
  ['--grant with a prefix not ending in "/"', () => parseGrant('r=read:/skydns'), /must be read:\/PREFIX\//],
  ['--grant with a relative prefix', () => parseGrant('r=read:skydns/'), /must be read:\/PREFIX\//],
  ['--grant with a bad role name', () => parseGrant('a b=read:/x/'), /role name of 1-64 letters/],
  [
    '--user without a file',
    () => parseUser('etcdns-controller='),
    /--user "etcdns-controller=": must be NAME=PASSWORD_FILE/,
  ],
  ['--user without a --grant', () => desiredRoles([], [parseUser('u=/f')]), /--user u: no --grant u=/],
  ['--grant root', () => desiredRoles([parseGrant('root=read:/x/')], []), /--grant root: the root role is etcd's own/],
  [
    'no --endpoints',
    () => parseEtcdRolesArgs(['--root-password-file', 'f', '--grant', 'r=read:/x/']),
    /missing --endpoints/,
  ],
  [
    '--cert without --key',
    () =>
      parseEtcdRolesArgs([
        '--endpoints',
        'http://e:2379',
        '--root-password-file',
        'f',
        '--grant',
        'r=read:/x/',
        '--cert',
        'c',
      ]),
    /--cert and --key: give both or neither/,
  ],
];
for (const [what, call, message] of BAD)
  test(`refused: ${what}`, () => {
    assert.throws(call, message);
  });

const RANGES: [string, string][] = [
  ['/skydns/', '/skydns0'],
  ['/skydns-external/', '/skydns-external0'],
  ['/a', '/b'],
];
for (const [prefix, end] of RANGES)
  test(`prefix ${prefix} covers [${prefix}, ${end}) as etcdctl --prefix does`, () => {
    assert.deepEqual(prefixRange(prefix), { key: prefix, rangeEnd: end });
  });

test('repeated --grant flags of one role add up', () => {
  assert.deepEqual(desiredRoles([parseGrant('r=read:/a/'), parseGrant('r=readwrite:/b/')], []), [
    { name: 'r', permissions: [read('/a/'), rw('/b/')] },
  ]);
});

const ROLE = { name: 'r', permissions: [read('/skydns/'), rw('/skydns-external/')] };
const ROLE_STEPS: [string, Permission[] | undefined, RoleStep[]][] = [
  [
    'a new role: created, then each grant',
    undefined,
    [
      { action: 'create-role', role: 'r' },
      { action: 'grant', role: 'r', permission: read('/skydns/') },
      { action: 'grant', role: 'r', permission: rw('/skydns-external/') },
    ],
  ],
  ['as wanted: nothing', [rw('/skydns-external/'), read('/skydns/')], []],
  [
    'a type changed: granted again (etcd replaces it)',
    [rw('/skydns/'), rw('/skydns-external/')],
    [{ action: 'grant', role: 'r', permission: read('/skydns/') }],
  ],
  [
    'a range too many: revoked',
    [read('/skydns/'), rw('/skydns-external/'), read('/secrets/')],
    [{ action: 'revoke', role: 'r', ...prefixRange('/secrets/') }],
  ],
  [
    'no permissions yet',
    [],
    [
      { action: 'grant', role: 'r', permission: read('/skydns/') },
      { action: 'grant', role: 'r', permission: rw('/skydns-external/') },
    ],
  ],
];
for (const [what, current, steps] of ROLE_STEPS)
  test(`role steps: ${what}`, () => {
    assert.deepEqual(roleSteps(ROLE, current), steps);
  });

const USER_STEPS: [string, string[] | undefined, UserStep[]][] = [
  [
    'a new user: created with its role',
    undefined,
    [
      { action: 'create-user', user: 'u' },
      { action: 'add-role', user: 'u', role: 'u' },
    ],
  ],
  ['with its role: the password set again', ['u'], [{ action: 'set-password', user: 'u' }]],
  [
    'without its role, with another: granted, the other revoked',
    ['other'],
    [
      { action: 'set-password', user: 'u' },
      { action: 'add-role', user: 'u', role: 'u' },
      { action: 'remove-role', user: 'u', role: 'other' },
    ],
  ],
];
for (const [what, current, steps] of USER_STEPS)
  test(`user steps: ${what}`, () => {
    assert.deepEqual(userSteps('u', current), steps);
  });
