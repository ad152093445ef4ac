// Table tests (one test per row) of PTRs per view: each view's PTRs follow the addresses it
// publishes (the external view's mapped ones), a reverse zone can leave views out, and an
// object's etcdns.io/ptr "false" opts it out in every view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Service } from '@kubernetes/client-node';
import type { DesiredRecord } from '../../../../src/runtime/controller/desired-record.ts';
import { ref } from '../object-ref.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { compileViews, viewRecords } from '../../../../src/runtime/controller/views/view-records.ts';
import { withViewDefaults, type ViewInput } from '../../../../src/config/view-config.ts';
import type { ReverseZoneConfig } from '../../../../src/config/reverse-zone-config.ts';

const VIEWS: ViewInput[] = [
  { name: 'internal', prefix: '/skydns' },
  {
    name: 'external',
    prefix: '/skydns-external',
    exposure: 'external',
    rules: [{ name: 'lb', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } } }],
  },
];
// Opted in to both views (an external view selects opted-in objects only).
const service = (annotations: Record<string, string> = {}): V1Service => ({
  metadata: {
    name: 'web',
    namespace: 'default',
    annotations: { 'etcdns.io/views': 'internal,external', ...annotations },
  },
});
const A: DesiredRecord = {
  name: 'web.example.org.',
  type: 'A',
  target: '10.9.176.5',
  object: ref('service/default/web'),
};

const rows: [string, ReverseZoneConfig[], Record<string, string>, Record<string, string[]>][] = [
  [
    'internal PTR at the address, external PTR at the mapped address',
    [{ network: '10.9.176.0/24' }, { network: '203.0.113.0/24' }],
    {},
    {
      internal: ['5.176.9.10.in-addr.arpa. web.example.org.'],
      external: ['5.113.0.203.in-addr.arpa. web.example.org.'],
    },
  ],
  [
    'a reverse zone of the internal network only: the external view has none',
    [{ network: '10.9.176.0/24' }],
    {},
    { internal: ['5.176.9.10.in-addr.arpa. web.example.org.'], external: [] },
  ],
  [
    'a zone listing only the internal view leaves the external view out',
    [{ network: '10.9.176.0/24' }, { network: '203.0.113.0/24', views: ['internal'] }],
    {},
    { internal: ['5.176.9.10.in-addr.arpa. web.example.org.'], external: [] },
  ],
  [
    'etcdns.io/ptr "false": no PTR in any view',
    [{ network: '10.9.176.0/24' }, { network: '203.0.113.0/24' }],
    { 'etcdns.io/ptr': 'false' },
    { internal: [], external: [] },
  ],
];
for (const [name, reverseZones, annotations, want] of rows) {
  test(`view PTR: ${name}`, () => {
    const views = compileViews(withViewDefaults(VIEWS), reverseZones);
    const sources = sourceObjects({ services: [service(annotations)], ingresses: [] });
    const result = viewRecords(views, [A], sources);
    const got = Object.fromEntries(
      result.views.map((v) => [
        v.view.name,
        v.records.filter((r) => r.type === 'PTR').map((r) => `${r.name} ${r.target}`),
      ]),
    );
    assert.deepEqual(got, want);
  });
}
