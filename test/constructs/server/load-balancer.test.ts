// Load-balancer addresses where each implementation reads them (issue 31): the annotation of
// MetalLB, kube-vip or Cilium LB IPAM, or the deprecated spec.loadBalancerIP only when asked
// (and from the older loadBalancerIP prop, as before); one row per implementation and form, and
// wrong props refused naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { App, Chart } from 'cdk8s';
import { ConfigError } from '../../../src/config/config-error.ts';
import { DnsStack, type DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import type { DnsServiceProps } from '../../../src/constructs/server/dns-service.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const zones = [{ name: 'example.org' }];
const services = (service: DnsServiceProps) =>
  (synthObjects({ zones, server: { service } }) as Json[]).filter(
    (o) => o.kind === 'Service' && /^etcdns-server-internal(?:-tcp|-udp)?$/.test(o.metadata.name),
  );
/** The address-carrying fields of a Service: annotations with "IP"/"ips" in the key, spec.loadBalancerIP. */
const requested = (s: Json) => ({
  annotations: Object.fromEntries(
    Object.entries((s.metadata.annotations ?? {}) as Record<string, string>).filter(([k]) => /ips$/i.test(k)),
  ),
  loadBalancerIP: s.spec.loadBalancerIP,
});

// [what, service props, annotations with addresses, spec.loadBalancerIP]
const ROWS: [string, DnsServiceProps, Record<string, string>, string | undefined][] = [
  [
    'metallb',
    { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' } },
    { 'metallb.universe.tf/loadBalancerIPs': '10.0.0.53' },
    undefined,
  ],
  [
    'metallb, dual-stack',
    {
      loadBalancer: { addresses: ['10.0.0.53', 'fd00::53'], implementation: 'metallb' },
      ipFamilyPolicy: 'PreferDualStack',
    },
    { 'metallb.universe.tf/loadBalancerIPs': '10.0.0.53,fd00::53' },
    undefined,
  ],
  [
    'kube-vip',
    { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'kube-vip' } },
    { 'kube-vip.io/loadbalancerIPs': '10.0.0.53' },
    undefined,
  ],
  [
    'cilium',
    { loadBalancer: { addresses: ['fd00::53'], implementation: 'cilium' } },
    { 'lbipam.cilium.io/ips': 'fd00::53' },
    undefined,
  ],
  ['spec', { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'spec' } }, {}, '10.0.0.53'],
  ['the older loadBalancerIP prop (spec, as before)', { loadBalancerIP: '10.0.0.53' }, {}, '10.0.0.53'],
  ['none: the load balancer assigns one', {}, {}, undefined],
  [
    'metallb on split UDP and TCP Services, each with the address',
    {
      protocols: 'split',
      loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' },
      annotations: { 'metallb.universe.tf/allow-shared-ip': 'dns' },
    },
    { 'metallb.universe.tf/loadBalancerIPs': '10.0.0.53' },
    undefined,
  ],
];
for (const [what, service, annotations, specIp] of ROWS)
  test(`load-balancer addresses: ${what}`, () => {
    const list = services(service);
    assert.equal(list.length, service.protocols === 'split' ? 2 : 1);
    for (const s of list) {
      assert.deepEqual(requested(s), { annotations, loadBalancerIP: specIp }, s.metadata.name);
      // The user's own annotations stay.
      for (const [k, v] of Object.entries(service.annotations ?? {})) assert.equal(s.metadata.annotations[k], v);
    }
  });

test('a view replaces the load-balancer request of server.service', () => {
  const list = synthObjects({
    zones,
    server: { service: { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'kube-vip' } } },
    views: [
      { name: 'internal' },
      {
        name: 'external',
        prefix: '/skydns-external',
        exposure: 'external',
        service: { loadBalancer: { addresses: ['203.0.113.53'], implementation: 'kube-vip' } },
      },
    ],
  }) as Json[];
  const annotation = (name: string) =>
    list.find((o) => o.kind === 'Service' && o.metadata.name === name)!.metadata.annotations[
      'kube-vip.io/loadbalancerIPs'
    ];
  assert.equal(annotation('etcdns-server-internal'), '10.0.0.53');
  assert.equal(annotation('etcdns-server-external'), '203.0.113.53');
});

// [what, service props, a fragment of the message]
const BAD: [string, DnsServiceProps, string][] = [
  [
    'an unknown implementation',
    { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'f5' as 'spec' } },
    'server.service.loadBalancer.implementation: must be one of',
  ],
  [
    'no implementation',
    { loadBalancer: { addresses: ['10.0.0.53'] } as never },
    'server.service.loadBalancer.implementation: required',
  ],
  [
    'no address',
    { loadBalancer: { addresses: [], implementation: 'metallb' } },
    'server.service.loadBalancer.addresses: must list one address',
  ],
  [
    'not an address',
    { loadBalancer: { addresses: ['dns.example.org'], implementation: 'cilium' } },
    'server.service.loadBalancer.addresses[0]: must be an IPv4 or IPv6 address',
  ],
  [
    'two addresses of one family',
    { loadBalancer: { addresses: ['10.0.0.53', '10.0.0.54'], implementation: 'metallb' } },
    'server.service.loadBalancer.addresses: at most one address per IP family',
  ],
  [
    'two addresses in spec.loadBalancerIP',
    { loadBalancer: { addresses: ['10.0.0.53', 'fd00::53'], implementation: 'spec' } },
    '"spec" holds one address',
  ],
  [
    'both forms',
    { loadBalancerIP: '10.0.0.53', loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' } },
    'server.service.loadBalancerIP: leave it out with loadBalancer',
  ],
  [
    'the annotation given by hand too',
    {
      loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' },
      annotations: { 'metallb.universe.tf/loadBalancerIPs': '10.0.0.54' },
    },
    'server.service.annotations: leave "metallb.universe.tf/loadBalancerIPs" out',
  ],
  [
    'a ClusterIP Service',
    { type: 'ClusterIP', loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' } },
    'server.service.loadBalancer: only allowed with type "LoadBalancer"',
  ],
];
for (const [what, service, message] of BAD)
  test(`refused: ${what}`, () => {
    const props: DnsStackProps = { zones, server: { service } };
    assert.throws(
      () => new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', props),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });
