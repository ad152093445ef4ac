// Table tests of what an Istio-related change re-plans (sources/istio/istio-index.ts), one test
// per row: the keys an object carries, and the keys a Service's or an Ingress's change touches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  gatewayIndexKeys,
  ingressTouches,
  serviceTouches,
  virtualServiceIndexKeys,
} from '../../../../../src/runtime/controller/sources/istio/istio-index.ts';
import { A, gw, ingress, N, svc, vs } from './istio-objects.ts';

const gateways = [
  gw('public', { selector: { istio: 'ingressgateway' } }),
  gw('narrow', { selector: { istio: 'ingressgateway', zone: 'a' } }),
  gw('other', { namespace: 'team', selector: { istio: 'internal' }, annotations: { [`${N}ingress`]: 'front' } }),
  gw('elsewhere', { annotations: { [`${A}ingress`]: 'team/front' } }),
  gw('noselector', {}),
];

test('the keys an object carries', async (t) => {
  const rows: [name: string, object: KubernetesObject, keys: string[]][] = [
    ['a Gateway: its own', gw('public', {}), ['IstioGateway/infra/public']],
    [
      'a VirtualService: the Gateways it names ("mesh" and malformed left out, bare names in its namespace)',
      vs('web', { gateways: ['infra/public', 'local', 'mesh', 'a/b/c', ''] }),
      ['IstioGateway/infra/public', 'IstioGateway/apps/local'],
    ],
    ['a VirtualService without gateways', vs('web'), []],
  ];
  for (const [name, object, keys] of rows)
    await t.test(name, () =>
      assert.deepEqual(object.kind === 'Gateway' ? gatewayIndexKeys(object) : virtualServiceIndexKeys(object), keys),
    );
});

test('what a Service change touches: the Gateways whose selector it matches', async (t) => {
  const rows: [name: string, selector: Record<string, string> | undefined, keys: string[]][] = [
    [
      'a selector with every label of one Gateway',
      { istio: 'ingressgateway', app: 'x' },
      ['IstioGateway/infra/public'],
    ],
    [
      'a selector with every label of two',
      { istio: 'ingressgateway', zone: 'a' },
      ['IstioGateway/infra/public', 'IstioGateway/infra/narrow'],
    ],
    ['a selector of another Gateway namespace', { istio: 'internal' }, ['IstioGateway/team/other']],
    ['no selector: none (not even a Gateway without one)', undefined, []],
    ['an unrelated selector', { app: 'web' }, []],
  ];
  for (const [name, selector, keys] of rows)
    await t.test(name, () =>
      assert.deepEqual(serviceTouches(svc('s', { selector, addresses: [], namespace: 'x' }), gateways), keys),
    );
});

test('what an Ingress change touches: the Gateways whose ingress annotation names it', async (t) => {
  const rows: [name: string, namespace: string, keys: string[]][] = [
    [
      'an Ingress named bare from its namespace, and as namespace/name from another',
      'team',
      ['IstioGateway/team/other', 'IstioGateway/infra/elsewhere'],
    ],
    ['an Ingress no Gateway names', 'apps', []],
  ];
  for (const [name, namespace, keys] of rows)
    await t.test(name, () => assert.deepEqual(ingressTouches(ingress('front', namespace, []), gateways), keys));
});
