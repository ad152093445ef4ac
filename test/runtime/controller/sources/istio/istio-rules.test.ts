// Table tests of the pure rules under the Istio sources, one test per row, as external-dns v0.22
// applies them (source/istio_gateway.go, istio_virtualservice.go, utils.go, endpoints.go), and
// where etcdns departs from it (marked "etcdns:").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import {
  gatewayTargets,
  type GatewayTargets,
} from '../../../../../src/runtime/controller/sources/istio/gateway-targets.ts';
import type { IstioGateway, VirtualService } from '../../../../../src/runtime/controller/sources/istio/istio-api.ts';
import { parseObjectReference } from '../../../../../src/runtime/controller/sources/istio/object-reference.ts';
import { gatewayHostnames, serverHost } from '../../../../../src/runtime/controller/sources/istio/server-hosts.ts';
import { bindsToGateway } from '../../../../../src/runtime/controller/sources/istio/virtual-service-binding.ts';
import { gw, ingress, istioContext, N, A, svc, vs } from './istio-objects.ts';

test('"[namespace/]name" references', async (t) => {
  const rows: [value: string, want: ReturnType<typeof parseObjectReference>][] = [
    ['web', { ok: true, namespace: 'apps', name: 'web' }],
    ['infra/web', { ok: true, namespace: 'infra', name: 'web' }],
    ['/web', { ok: true, namespace: 'apps', name: 'web' }],
    ['a/b/c', { ok: false, error: '"a/b/c" is neither "name" nor "namespace/name"' }],
  ];
  for (const [value, want] of rows)
    await t.test(`"${value}"`, () => assert.deepEqual(parseObjectReference(value, 'apps'), want));
});

test('server hosts: scope and host', async (t) => {
  const rows: [raw: string, want: ReturnType<typeof serverHost>][] = [
    ['web.example.org', { scope: '*', host: 'web.example.org' }],
    ['apps/web.example.org', { scope: 'apps', host: 'web.example.org' }],
    ['./web.example.org', { scope: '.', host: 'web.example.org' }],
    ['*/*', { scope: '*', host: '*' }],
    ['a/b/c.example.org', undefined],
  ];
  for (const [raw, want] of rows) await t.test(`"${raw}"`, () => assert.deepEqual(serverHost(raw), want));
});

test('the names a Gateway publishes from its servers', async (t) => {
  const rows: [name: string, hosts: string[][], want: string[]][] = [
    ['plain hosts of every server', [['a.example.org'], ['b.example.org']], ['a.example.org', 'b.example.org']],
    [
      'the namespace scope is stripped',
      [['apps/a.example.org', './b.example.org']],
      ['a.example.org', 'b.example.org'],
    ],
    ['"*" is skipped, scoped or not', [['*', 'apps/*']], []],
    ['"*.example.org" is published as a wildcard', [['*.example.org']], ['*.example.org']],
    ['"" is skipped', [['', 'a.example.org']], ['a.example.org']],
    ['two "/" pass on whole (the name check reports them)', [['a/b/c.example.org']], ['a/b/c.example.org']],
    ['no servers', [], []],
  ];
  for (const [name, hosts, want] of rows)
    await t.test(name, () => assert.deepEqual(gatewayHostnames(gw('g', { servers: hosts })), want));
});

test('whether a VirtualService host binds to a Gateway', async (t) => {
  type Row = [name: string, gateway: IstioGateway, service: VirtualService, host: string, want: boolean];
  const rows: Row[] = [
    ['exact host', gw('g', { servers: [['web.example.org']] }), vs('v'), 'web.example.org', true],
    ['another host', gw('g', { servers: [['web.example.org']] }), vs('v'), 'api.example.org', false],
    ['server host "*"', gw('g', { servers: [['*']] }), vs('v'), 'anything.example.net', true],
    [
      'wildcard server host, a name below it',
      gw('g', { servers: [['*.example.org']] }),
      vs('v'),
      'a.b.example.org',
      true,
    ],
    ['wildcard server host, its own apex', gw('g', { servers: [['*.example.org']] }), vs('v'), 'example.org', false],
    [
      'wildcard server host, the same wildcard',
      gw('g', { servers: [['*.example.org']] }),
      vs('v'),
      '*.example.org',
      true,
    ],
    [
      'etcdns: hosts compare case-insensitively',
      gw('g', { servers: [['Web.Example.org']] }),
      vs('v'),
      'web.EXAMPLE.org',
      true,
    ],
    [
      'scope naming the VirtualService namespace',
      gw('g', { servers: [['apps/web.example.org']] }),
      vs('v'),
      'web.example.org',
      true,
    ],
    [
      'scope naming another namespace',
      gw('g', { servers: [['other/web.example.org']] }),
      vs('v'),
      'web.example.org',
      false,
    ],
    [
      'scope "." with both in one namespace',
      gw('g', { namespace: 'apps', servers: [['./web.example.org']] }),
      vs('v'),
      'web.example.org',
      true,
    ],
    ['scope "." across namespaces', gw('g', { servers: [['./web.example.org']] }), vs('v'), 'web.example.org', false],
    [
      'a malformed server host binds nothing',
      gw('g', { servers: [['a/b/web.example.org']] }),
      vs('v'),
      'web.example.org',
      false,
    ],
    ['exportTo "*"', gw('g', { servers: [['*']] }), vs('v', { exportTo: ['*'] }), 'web.example.org', true],
    [
      'exportTo the Gateway namespace',
      gw('g', { servers: [['*']] }),
      vs('v', { exportTo: ['infra'] }),
      'web.example.org',
      true,
    ],
    [
      'exportTo another namespace',
      gw('g', { servers: [['*']] }),
      vs('v', { exportTo: ['other'] }),
      'web.example.org',
      false,
    ],
    [
      'exportTo "." across namespaces',
      gw('g', { servers: [['*']] }),
      vs('v', { exportTo: ['.'] }),
      'web.example.org',
      false,
    ],
    [
      'exportTo "." in one namespace',
      gw('g', { namespace: 'apps', servers: [['*']] }),
      vs('v', { exportTo: ['.'] }),
      'web.example.org',
      true,
    ],
  ];
  for (const [name, gateway, service, host, want] of rows)
    await t.test(name, () => assert.equal(bindsToGateway(service, gateway, host), want));
});

test("a Gateway's targets", async (t) => {
  const lb = (
    name: string,
    selector: Record<string, string>,
    addresses: { ip?: string; hostname?: string }[],
    extra: Partial<V1Service['spec']> = {},
    namespace = 'istio-system',
  ) => svc(name, { selector, addresses, namespace, spec: extra });
  const services: V1Service[] = [
    lb('ingressgateway', { istio: 'ingressgateway', app: 'istio-ingressgateway' }, [{ ip: '203.0.113.10' }]),
    lb('ingressgateway-v6', { istio: 'ingressgateway' }, [{ ip: '2001:db8::10' }, { hostname: 'lb.example.net' }]),
    lb('internal', { istio: 'internal' }, [{ ip: '10.0.0.5', hostname: 'ignored.example.net' }]),
    lb('external-ips', { istio: 'eip' }, [{ ip: '10.0.0.6' }], { externalIPs: ['198.51.100.6'] }),
    lb('elsewhere', { istio: 'ingressgateway' }, [{ ip: '203.0.113.99' }], {}, 'other'),
    svc('plain', { selector: undefined, addresses: [{ ip: '192.0.2.1' }], namespace: 'istio-system' }),
  ];
  const ingresses: V1Ingress[] = [
    ingress('front', 'infra', [{ ip: '203.0.113.20' }, { hostname: 'front.lb.example.net' }]),
    ingress('front', 'edge', [{ ip: '203.0.113.30', hostname: 'not-taken.example.net' }]),
  ];
  type Row = [name: string, gateway: IstioGateway, want: GatewayTargets, namespace?: string];
  const rows: Row[] = [
    [
      'the Services whose selector includes every Gateway selector label, in every namespace',
      gw('g', { selector: { istio: 'ingressgateway' } }),
      { ok: true, targets: ['2001:db8::10', '203.0.113.10', '203.0.113.99', 'lb.example.net'] },
    ],
    [
      "with --namespace, only that namespace's Services (external-dns lists them there)",
      gw('g', { selector: { istio: 'ingressgateway' } }),
      { ok: true, targets: ['2001:db8::10', '203.0.113.10', 'lb.example.net'] },
      'istio-system',
    ],
    [
      'a selector label no Service has',
      gw('g', { selector: { istio: 'ingressgateway', extra: 'x' } }),
      { ok: true, targets: [] },
    ],
    [
      'a load-balancer entry gives its IP, else its hostname',
      gw('g', { selector: { istio: 'internal' } }),
      { ok: true, targets: ['10.0.0.5'] },
    ],
    [
      'externalIPs replace the load-balancer addresses',
      gw('g', { selector: { istio: 'eip' } }),
      { ok: true, targets: ['198.51.100.6'] },
    ],
    [
      "etcdns: no selector takes no Service (external-dns: every Service's addresses)",
      gw('g', {}),
      { ok: true, targets: [] },
    ],
    ['etcdns: an empty selector takes no Service', gw('g', { selector: {} }), { ok: true, targets: [] }],
    [
      'the target annotation wins',
      gw('g', { selector: { istio: 'ingressgateway' }, annotations: { [`${N}target`]: '192.0.2.7, gw.example.net' } }),
      { ok: true, targets: ['192.0.2.7', 'gw.example.net'] },
    ],
    [
      'the target annotation under the alpha prefix',
      gw('g', { selector: { istio: 'ingressgateway' }, annotations: { [`${A}target`]: '192.0.2.8' } }),
      { ok: true, targets: ['192.0.2.8'] },
    ],
    [
      'the target annotation wins over the ingress annotation',
      gw('g', { annotations: { [`${N}target`]: '192.0.2.7', [`${N}ingress`]: 'missing' } }),
      { ok: true, targets: ['192.0.2.7'] },
    ],
    [
      'the ingress annotation: an Ingress of the Gateway namespace',
      gw('g', { selector: { istio: 'ingressgateway' }, annotations: { [`${N}ingress`]: 'front' } }),
      { ok: true, targets: ['203.0.113.20', 'front.lb.example.net'] },
    ],
    [
      'the ingress annotation with a namespace; IP, else hostname',
      gw('g', { annotations: { [`${A}ingress`]: 'edge/front' } }),
      { ok: true, targets: ['203.0.113.30'] },
    ],
    [
      'an empty ingress annotation is read as absent',
      gw('g', { selector: { istio: 'internal' }, annotations: { [`${N}ingress`]: '' } }),
      { ok: true, targets: ['10.0.0.5'] },
    ],
    [
      'etcdns: a missing Ingress is an error for this Gateway (external-dns exits)',
      gw('g', { annotations: { [`${N}ingress`]: 'nope' } }),
      { ok: false, error: `annotation ${N}ingress: Ingress infra/nope does not exist` },
    ],
    [
      'etcdns: a malformed ingress annotation is an error for this Gateway (external-dns exits)',
      gw('g', { annotations: { [`${N}ingress`]: 'a/b/c' } }),
      { ok: false, error: `annotation ${N}ingress: "a/b/c" is neither "name" nor "namespace/name"` },
    ],
  ];
  for (const [name, gateway, want, namespace] of rows)
    await t.test(name, () =>
      assert.deepEqual(gatewayTargets(gateway, istioContext({ services, ingresses, namespace })), want),
    );
});
