// A hub's merge in the constructs (issue 34): the servers of every internal view serving a zone
// that holds a member cluster's suffix get the server config's `hub` (the stack's clusters with
// their sites, the grace period, the policies of the view's zones), as the DNS server's own
// loader reads it from the synthesized ConfigMap; their etcd users also read the clusters'
// prefix; and a bad merge fails synth naming the prop (one row per mistake).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { HubConfig } from '../../../src/config/hub-config.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import type { ClusterProps } from '../../../src/constructs/etcd/member-clusters.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { loadServerSettings } from '../../../src/runtime/dns-server/server-settings.ts';
import { assertRefused } from '../../support/config-refusal.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = mkdtempSync(join(tmpdir(), 'etcdns-hub-merge-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DC1: ClusterProps = { name: 'dc1', suffixes: ['dc1.example.org'], siteCidrs: ['10.1.0.0/16'] };
const DC2: ClusterProps = { name: 'dc2', suffixes: ['dc2.example.org', 'shop.example.net'] };
const HUB: DnsStackProps = {
  zones: [{ name: 'example.org' }, { name: 'example.net' }],
  etcd: { tls: { serverSecret: 'etcd-server-tls', clientSecret: 'etcd-client-tls' } },
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [DC1, DC2],
};

/** Each view's server config as `etcdns server` loads it from the synthesized ConfigMap, by view. */
function loadedConfigs(props: DnsStackProps): Record<string, { hub?: HubConfig }> {
  const objects = synthObjects(props) as Json[];
  const configs: Record<string, { hub?: HubConfig }> = {};
  for (const o of objects.filter((x) => x.kind === 'ConfigMap' && x.metadata.name.startsWith('etcdns-server-'))) {
    const file = join(dir, `${o.metadata.name}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, o.data['config.json']);
    configs[o.metadata.name.slice('etcdns-server-'.length)] = loadServerSettings(['--config', file], {}).config;
  }
  return configs;
}

const grants = (props: DnsStackProps) => {
  const args = (synthObjects(props) as Json[]).find((o) => o.kind === 'Job')!.spec.template.spec.containers[0]
    .args as string[];
  return args.filter((_, i) => args[i - 1] === '--grant' && args[i]!.startsWith('etcdns-server-'));
};

// As the servers' config names them: the clusters' suffixes are the claims the hub checks.
const BOTH = [
  { name: 'dc1', suffixes: DC1.suffixes, siteCidrs: ['10.1.0.0/16'] },
  { name: 'dc2', suffixes: DC2.suffixes },
];
// [what, hub props, each view's loaded `hub` (absent: none), each view's server grant]
const renderCases: [string, DnsStackProps, Record<string, Json | undefined>, string[]][] = [
  [
    'one view, no hub prop: every cluster, the defaults',
    HUB,
    { internal: { clusters: BOTH } },
    ['etcdns-server-internal=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/'],
  ],
  [
    'grace and a policy per zone',
    {
      ...HUB,
      hub: {
        graceSeconds: 30,
        zones: [
          { zone: 'example.org', policy: 'failover', order: ['dc2', 'dc1'] },
          { zone: 'example.net', policy: 'prefer', prefer: 'alone' },
        ],
      },
    },
    {
      internal: {
        clusters: BOTH,
        graceSeconds: 30,
        zones: [
          { zone: 'example.org', policy: 'failover', order: ['dc2', 'dc1'] },
          { zone: 'example.net', policy: 'prefer', prefer: 'alone' },
        ],
      },
    },
    ['etcdns-server-internal=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/'],
  ],
  [
    'an external view beside: it does not merge, nor read the clusters',
    {
      ...HUB,
      views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
      hub: { zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 3, dc2: 1 } }] },
    },
    {
      internal: { clusters: BOTH, zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 3, dc2: 1 } }] },
      external: undefined,
    },
    [
      'etcdns-server-internal=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
      'etcdns-server-external=read:/skydns-external/',
    ],
  ],
  [
    "two internal views: each gets its own zones' policies",
    {
      ...HUB,
      views: [
        { name: 'org', zones: ['example.org'] },
        { name: 'net', prefix: '/skydns-net', zones: ['example.net'] },
      ],
      hub: {
        zones: [
          { zone: 'example.org', policy: 'failover', order: ['dc1'] },
          { zone: 'example.net', policy: 'all' },
        ],
      },
    },
    {
      org: { clusters: BOTH, zones: [{ zone: 'example.org', policy: 'failover', order: ['dc1'] }] },
      net: { clusters: BOTH, zones: [{ zone: 'example.net', policy: 'all' }] },
    },
    [
      'etcdns-server-org=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
      'etcdns-server-net=read:/skydns-net/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
    ],
  ],
  [
    "an internal view of a zone holding no cluster's suffix does not merge",
    {
      ...HUB,
      zones: [...HUB.zones, { name: 'example.com' }],
      views: [
        { name: 'internal', zones: ['example.org', 'example.net'] },
        { name: 'other', prefix: '/skydns-other', zones: ['example.com'] },
      ],
    },
    { internal: { clusters: BOTH }, other: undefined },
    [
      'etcdns-server-internal=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
      'etcdns-server-other=read:/skydns-other/',
    ],
  ],
];
for (const [what, props, hubs, serverGrants] of renderCases) {
  test(`hub rendered: ${what}`, () => {
    const configs = loadedConfigs(props);
    assert.deepEqual(Object.keys(configs).sort(), Object.keys(hubs).sort());
    for (const [view, hub] of Object.entries(hubs)) assert.deepEqual(configs[view]!.hub, hub, view);
  });
  test(`hub's roles: ${what}`, () => assert.deepEqual(grants(props), serverGrants));
}

test('a stack without clusters renders no hub and the grants it rendered before', () => {
  const props = { ...HUB, clusters: undefined };
  assert.equal(loadedConfigs(props).internal!.hub, undefined);
  assert.deepEqual(grants(props), ['etcdns-server-internal=read:/skydns/']);
});

// [what, hub props, field named, what is allowed (a fragment of the message)]
const refusals: [string, DnsStackProps, string, string][] = [
  ['a hub without clusters', { ...HUB, clusters: undefined, hub: {} }, 'hub', 'needs clusters'],
  [
    'a site that is no network',
    { ...HUB, clusters: [{ ...DC1, siteCidrs: ['10.1.0.0/33'] }, DC2] },
    'clusters[0].siteCidrs[0]',
    'CIDR',
  ],
  ['a negative grace', { ...HUB, hub: { graceSeconds: -1 } }, 'hub.graceSeconds', '0'],
  [
    'failover without order',
    { ...HUB, hub: { zones: [{ zone: 'example.org', policy: 'failover' }] } },
    'hub.zones[0].order',
    'is required with policy "failover"',
  ],
  [
    'an order naming an unknown cluster',
    { ...HUB, hub: { zones: [{ zone: 'example.org', policy: 'failover', order: ['dc3'] }] } },
    'hub.zones[0].order[0]',
    '"dc3" is not one of clusters',
  ],
  [
    'prefer with no cluster having a site',
    {
      ...HUB,
      clusters: [{ name: 'dc1', suffixes: ['dc1.example.org'] }, DC2],
      hub: { zones: [{ zone: 'example.org', policy: 'prefer' }] },
    },
    'hub.zones[0].policy',
    'needs siteCidrs',
  ],
  [
    'a weight over 1000',
    { ...HUB, hub: { zones: [{ zone: 'example.org', policy: 'weighted', weights: { dc1: 1001 } }] } },
    'hub.zones[0].weights.dc1',
    '1000',
  ],
  [
    'a zone listed twice',
    {
      ...HUB,
      hub: {
        zones: [
          { zone: 'example.org', policy: 'all' },
          { zone: 'Example.org.', policy: 'all' },
        ],
      },
    },
    'hub.zones[1].zone',
    `is also zones[0]'s`,
  ],
  [
    'a policy for a zone no merging view serves',
    {
      ...HUB,
      views: [
        { name: 'internal', zones: ['example.org'] },
        { name: 'external', prefix: '/skydns-external', zones: ['example.net'], exposure: 'external' },
      ],
      hub: { zones: [{ zone: 'example.net', policy: 'all' }] },
    },
    'hub.zones[0].zone',
    'served by no view that merges the clusters',
  ],
  [
    "no internal view serves the clusters' zones",
    { ...HUB, views: [{ name: 'external', exposure: 'external' }] },
    'clusters',
    'no internal view serves',
  ],
];
for (const [what, props, field, allowed] of refusals)
  test(`hub merge rejected: ${what}`, () => assertRefused(() => synthObjects(props), field, allowed));
