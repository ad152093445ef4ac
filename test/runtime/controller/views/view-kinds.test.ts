// Views and their rules on the sources of today: an external view selects Gateway API routes and
// DNSEndpoints by label (or the views annotation) like any object, and its rules match them by
// kind ("httproute", "dnsendpoint"); the PTRs of a view follow the addresses it publishes from them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withViewDefaults, type ViewInput } from '../../../../src/config/view-config.ts';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { compileViews, viewRecords } from '../../../../src/runtime/controller/views/view-records.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';

const views: ViewInput[] = [
  { name: 'internal', prefix: '/skydns' },
  {
    name: 'external',
    prefix: '/skydns-external',
    exposure: 'external',
    selection: { mode: 'opt-in', labels: { expose: 'yes' } },
    rules: [
      {
        name: 'routes-public',
        match: { kinds: ['httproute'] },
        action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } },
      },
      { name: 'no-txt-outside', match: { kinds: ['dnsendpoint'], types: ['TXT'] }, action: { drop: true } },
    ],
  },
];

const accepted = [{ type: 'Accepted', status: 'True' }];
const snapshot: Partial<ClusterSnapshot> = {
  gateways: [
    {
      metadata: { name: 'gw', namespace: 'infra' },
      spec: {
        listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }],
      },
      status: { addresses: [{ value: '10.9.176.80' }] },
    },
  ],
  routes: ['shop', 'admin'].map((name) => ({
    kind: 'HTTPRoute' as const,
    object: {
      metadata: {
        name,
        namespace: 'apps',
        labels: name === 'shop' ? { expose: 'yes' } : ({} as Record<string, string>),
      },
      spec: { parentRefs: [{ name: 'gw', namespace: 'infra' }], hostnames: [`${name}.example.org`] },
      status: { parents: [{ parentRef: { name: 'gw', namespace: 'infra' }, conditions: accepted }] },
    },
  })),
  dnsEndpoints: [
    {
      metadata: { name: 'static', namespace: 'dns', labels: { expose: 'yes' } },
      spec: {
        endpoints: [
          { dnsName: 'www.example.org', recordType: 'A', targets: ['198.51.100.7'] },
          { dnsName: 'example.org', recordType: 'TXT', targets: ['internal only'] },
        ],
      },
    },
  ],
};

test('an external view takes routes and DNSEndpoints opted in by label; its rules match them by kind', () => {
  const sources = desiredRecords(snapshot, sourceOptions({ sources: ['gateway-httproute', 'crd'] }));
  const compiled = compileViews(withViewDefaults(views), [{ network: '203.0.113.0/24' }]);
  const split = viewRecords(compiled, sources.records, sourceObjects(snapshot));
  const published = split.views.map((v) => v.records.map((r) => `${r.name} ${r.type} ${r.target}`).sort());
  assert.deepEqual(published[0], [
    'admin.example.org. A 10.9.176.80',
    'example.org. TXT internal only',
    'shop.example.org. A 10.9.176.80',
    'www.example.org. A 198.51.100.7',
  ]);
  assert.deepEqual(published[1], [
    '80.113.0.203.in-addr.arpa. PTR shop.example.org.',
    'shop.example.org. A 203.0.113.80',
    'www.example.org. A 198.51.100.7',
  ]);
  const decided = split.views[1]!.decisions.map((d) => `${d.name} ${d.type} ${d.outcome} ${d.rule ?? '-'}`).sort();
  assert.deepEqual(decided, [
    'admin.example.org. A not-selected -',
    'example.org. TXT dropped no-txt-outside',
    'shop.example.org. A published routes-public',
    'www.example.org. A published -',
  ]);
  assert.deepEqual(split.problems, []);
});
