// Table tests of a hub's server config (config/hub-config.ts through `etcdns server`'s settings):
// what is accepted, and each refusal naming its field.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadServerSettings } from '../../src/runtime/dns-server/server-settings.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('hub-config');
let files = 0;
function settings(hub: unknown) {
  const file = join(dir, `config-${files++}.json`);
  writeFileSync(
    file,
    JSON.stringify({ etcd: { endpoints: ['http://e:2379'] }, zones: [{ name: 'example.org' }], hub }),
  );
  return () => loadServerSettings(['--config', file], {});
}

const DC1 = { name: 'dc1', siteCidrs: ['10.1.0.0/16'], suffixes: ['dc1.example.org'] };
// A suffix outside the server's zones is accepted: each view's servers get the stack's whole list.
const DC2 = { name: 'dc2', suffixes: ['dc2.example.org', 'dc2.example.net'] };

test('a hub: clusters, grace and a policy per zone', () => {
  const hub = {
    clusters: [DC1, DC2],
    graceSeconds: 5,
    zones: [{ zone: 'example.org', policy: 'failover', order: ['dc2', 'dc1'] }],
  };
  assert.deepEqual(settings(hub)().config.hub, hub);
});

// [case, hub, error]
const refused: [string, unknown, RegExp][] = [
  ['no clusters', { clusters: [] }, /^hub\.clusters \(file .*\): must list at least one of clusters/],
  [
    'a bad cluster name',
    { clusters: [{ name: 'DC1' }] },
    /^hub\.clusters\[0\]\.name \(file .*\): must be a cluster name/,
  ],
  ['a cluster twice', { clusters: [DC1, DC1] }, /^hub\.clusters\[1\]\.name \(file .*\): "dc1" is also clusters\[0\]'s/],
  [
    'a bad site network',
    { clusters: [{ name: 'dc1', siteCidrs: ['10.1.0.0'] }] },
    /^hub\.clusters\[0\]\.siteCidrs\[0\]/,
  ],
  [
    'a claim that is not a domain name',
    { clusters: [{ name: 'dc1', suffixes: ['dc1 example.org'] }] },
    /^hub\.clusters\[0\]\.suffixes\[0\] \(file /,
  ],
  ['an empty list of claims', { clusters: [{ name: 'dc1', suffixes: [] }] }, /^hub\.clusters\[0\]\.suffixes \(file /],
  [
    'a negative grace',
    { clusters: [DC1], graceSeconds: -1 },
    /^hub\.graceSeconds \(file .*\): must be an integer from 0 to 3600/,
  ],
  [
    'an unknown policy',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'random' }] },
    /^hub\.zones\[0\]\.policy \(file .*\): must be one of "all", "failover", "prefer", "weighted"/,
  ],
  [
    'failover without its order',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'failover' }] },
    /^hub\.zones\[0\]\.order \(file .*\): is required with policy "failover"/,
  ],
  [
    'failover naming an unknown cluster',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'failover', order: ['dc1', 'dc9'] }] },
    /^hub\.zones\[0\]\.order\[1\] \(file .*\): "dc9" is not one of clusters/,
  ],
  [
    'prefer without any site',
    { clusters: [DC2], zones: [{ zone: 'example.org', policy: 'prefer' }] },
    /^hub\.zones\[0\]\.policy \(file .*\): "prefer" needs siteCidrs on at least one of clusters/,
  ],
  [
    'an order for another policy',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'all', order: ['dc1'] }] },
    /^hub\.zones\[0\]\.order \(file .*\): is only for policy "failover"/,
  ],
  [
    'weighted without a weight above 0',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 0 } }] },
    /^hub\.zones\[0\]\.weights \(file .*\): must give at least one cluster a weight above 0/,
  ],
  [
    'a weight for an unknown cluster',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 1, dc9: 1 } }] },
    /^hub\.zones\[0\]\.weights\.dc9 \(file .*\): "dc9" is not one of clusters/,
  ],
  [
    'a weight over 1000',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 1001 } }] },
    /^hub\.zones\[0\]\.weights\.dc1 \(file .*\): must be an integer from 0 to 1000/,
  ],
  [
    'weights for another policy',
    { clusters: [DC1], zones: [{ zone: 'example.org', policy: 'all', weights: { dc1: 1 } }] },
    /^hub\.zones\[0\]\.weights \(file .*\): is only for policy "weighted"/,
  ],
  [
    'a zone the server does not answer',
    { clusters: [DC1], zones: [{ zone: 'example.net', policy: 'all' }] },
    /^hub\.zones\[0\]\.zone \(file .*\): must be one of zones \(got "example.net"\)/,
  ],
  [
    'a zone listed twice',
    {
      clusters: [DC1],
      zones: [
        { zone: 'example.org', policy: 'all' },
        { zone: 'Example.org.', policy: 'all' },
      ],
    },
    /^hub\.zones\[1\]\.zone \(file .*\): "Example.org." is also zones\[0\]'s/,
  ],
];

for (const [name, hub, error] of refused) {
  test(`hub config refused: ${name}`, () => {
    assert.throws(settings(hub), { message: error });
  });
}
