// A spoke's object sets its names' policy at the hub (src/skydns/name-policy.ts): read by the
// sources (a Service's annotations, a DNSEndpoint's labels), carried by each record into the
// entry written; a bad value skips the object's names with InvalidAnnotation; a controller that
// is not a spoke does not read the keys. One test per row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1EndpointSlice, V1Ingress, V1Service } from '@kubernetes/client-node';
import { layOut } from '../../../../src/runtime/controller/plan/layout.ts';
import type { DnsEndpoint } from '../../../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';

const SPOKE = { cluster: 'dc1', sources: ['service' as const, 'ingress' as const, 'crd' as const] };
const HOSTNAME = 'external-dns.kubernetes.io/hostname';

function service(annotations: Record<string, string>): V1Service {
  return {
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'uid-web',
      annotations: { [HOSTNAME]: 'web.example.org', ...annotations },
    },
    spec: { type: 'LoadBalancer' },
    status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } },
  };
}
/** The Service's EndpointSlice, with endpoints ready or not. */
function slice(...ready: boolean[]): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    endpoints: ready.map((r, i) => ({ addresses: [`10.244.0.${i + 1}`], conditions: { ready: r } })),
  };
}
const HEALTH = { 'etcdns.io/hub-health': 'endpoints' };
const ingress: V1Ingress = {
  metadata: { name: 'site', namespace: 'web', uid: 'uid-site', annotations: HEALTH },
  spec: { rules: [{ host: 'site.example.org' }] },
  status: { loadBalancer: { ingress: [{ ip: '10.0.0.3' }] } },
};

function dnsEndpoint(labels: Record<string, string>, annotations: Record<string, string> = {}): DnsEndpoint {
  return {
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    kind: 'DNSEndpoint',
    metadata: { name: 'static', namespace: 'dns', uid: 'uid-static', labels, annotations },
    spec: { endpoints: [{ dnsName: 'static.example.org', recordType: 'A', targets: ['10.0.0.2'] }] },
  };
}

// case, objects, options, the hub fields of each entry written (name -> JSON), problems ("reason name")
type Objects = {
  services?: V1Service[];
  dnsEndpoints?: DnsEndpoint[];
  endpointSlices?: V1EndpointSlice[];
  ingresses?: V1Ingress[];
};
const rows: [string, Objects, object, Record<string, string>, string[]][] = [
  [
    "a spoke's Service: failover with its order, in the entry",
    { services: [service({ 'etcdns.io/hub-policy': 'failover', 'etcdns.io/hub-order': 'dc2.dc1' })] },
    SPOKE,
    { 'web.example.org.': '{"hubpolicy":"failover","huborder":"dc2,dc1"}' },
    [],
  ],
  [
    "a spoke's Service: weighted, its weight",
    { services: [service({ 'etcdns.io/hub-policy': 'weighted', 'etcdns.io/hub-weight': '3' })] },
    SPOKE,
    { 'web.example.org.': '{"hubpolicy":"weighted","hubweight":3}' },
    [],
  ],
  [
    "a spoke's Service without the keys: nothing more in the entry",
    { services: [service({})] },
    SPOKE,
    { 'web.example.org.': '{}' },
    [],
  ],
  [
    'a bad value: the names of the object are skipped, saying why',
    { services: [service({ 'etcdns.io/hub-policy': 'nearest' })] },
    SPOKE,
    {},
    ['InvalidAnnotation web.example.org.'],
  ],
  [
    'not a spoke: the keys are not read (a bad value is no problem either)',
    { services: [service({ 'etcdns.io/hub-policy': 'nearest' })] },
    { sources: ['service'] },
    { 'web.example.org.': '{}' },
    [],
  ],
  [
    "a spoke's DNSEndpoint: its labels",
    { dnsEndpoints: [dnsEndpoint({ 'etcdns.io/hub-policy': 'prefer-alone' })] },
    SPOKE,
    { 'static.example.org.': '{"hubpolicy":"prefer-alone"}' },
    [],
  ],
  [
    "a spoke's DNSEndpoint: a label wins over an annotation",
    {
      dnsEndpoints: [
        dnsEndpoint(
          { 'etcdns.io/hub-policy': 'failover', 'etcdns.io/hub-order': 'dc1.dc2' },
          { 'etcdns.io/hub-policy': 'all' },
        ),
      ],
    },
    SPOKE,
    { 'static.example.org.': '{"hubpolicy":"failover","huborder":"dc1,dc2"}' },
    [],
  ],
  [
    'a Service that asks for endpoint health, one endpoint ready: nothing more in the entry',
    { services: [service(HEALTH)], endpointSlices: [slice(false, true)] },
    SPOKE,
    { 'web.example.org.': '{}' },
    [],
  ],
  [
    'a Service that asks for endpoint health, none ready: its entries say so',
    { services: [service(HEALTH)], endpointSlices: [slice(false, false)] },
    SPOKE,
    { 'web.example.org.': '{"hubready":false}' },
    [],
  ],
  [
    'a Service that asks for endpoint health, no EndpointSlice at all: not ready',
    { services: [service({ ...HEALTH, 'etcdns.io/hub-policy': 'failover', 'etcdns.io/hub-order': 'dc1.dc2' })] },
    SPOKE,
    { 'web.example.org.': '{"hubpolicy":"failover","huborder":"dc1,dc2","hubready":false}' },
    [],
  ],
  [
    'a Service that does not ask: no endpoint ready changes nothing',
    { services: [service({})], endpointSlices: [slice(false)] },
    SPOKE,
    { 'web.example.org.': '{}' },
    [],
  ],
  [
    'endpoint health asked on an Ingress: refused, its names skipped',
    { ingresses: [ingress] },
    SPOKE,
    {},
    ['InvalidAnnotation site.example.org.'],
  ],
  [
    'a bad health value',
    { services: [service({ 'etcdns.io/hub-health': 'pods' })] },
    SPOKE,
    {},
    ['InvalidAnnotation web.example.org.'],
  ],
];
for (const [name, objects, options, entries, problems] of rows)
  test(`name policy of a spoke's records: ${name}`, () => {
    const result = desiredRecords(objects, sourceOptions(options));
    const written = Object.fromEntries(
      result.records.map((r) => {
        const { hubpolicy, huborder, hubweight, hubready } = layOut(r, '/skydns-clusters/dc1', 'dc1').entry;
        return [r.name, JSON.stringify({ hubpolicy, huborder, hubweight, hubready })];
      }),
    );
    assert.deepEqual(written, entries);
    assert.deepEqual(
      result.problems.map((p) => `${p.reason} ${p.name ?? '-'}`),
      problems,
    );
    for (const p of result.problems)
      assert.match(
        p.message,
        /^etcdns\.io\/hub-(policy: "nearest" is not one of|health: "pods" is not "endpoints"|health: is only for Services).*; hostname "[a-z.]+" is skipped$/,
      );
  });
