// --default-targets and --force-default-targets, one test per row, with external-dns v0.22's rules
// (source/wrappers/multisource.go): an endpoint without targets takes the default targets, one
// with its own keeps them, and --force-default-targets gives every name the default targets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterSnapshot } from '../../../support/cluster-snapshot.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { parseControllerOptions } from '../../../../src/runtime/controller/controller-options.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import type { Endpoint } from '../../../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';

const endpoints = (...list: Endpoint[]): Partial<ClusterSnapshot> => ({
  dnsEndpoints: [
    {
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name: 'static', namespace: 'dns', uid: 'u1' },
      spec: { endpoints: list },
    },
  ],
});
const service: Partial<ClusterSnapshot> = {
  services: [
    {
      metadata: {
        name: 'web',
        namespace: 'apps',
        uid: 'u2',
        annotations: {
          'external-dns.kubernetes.io/hostname': 'web.example.org',
          'external-dns.kubernetes.io/ttl': '60',
        },
      },
      spec: { type: 'LoadBalancer', clusterIP: '10.0.0.5' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    },
  ],
};

const rows: {
  name: string;
  snapshot: Partial<ClusterSnapshot>;
  defaultTargets?: string[];
  force?: boolean;
  records: string[];
  problems: number;
}[] = [
  {
    name: 'no default targets: an endpoint without targets is reported, not published',
    snapshot: endpoints({ dnsName: 'a.example.org', recordType: 'A', targets: [] }),
    records: [],
    problems: 1,
  },
  {
    name: 'an endpoint without targets takes the default addresses (A and AAAA)',
    snapshot: endpoints({ dnsName: 'a.example.org', recordType: 'A', targets: [], recordTTL: 30 }),
    defaultTargets: ['198.51.100.7', '2001:db8::7'],
    records: ['a.example.org. A 198.51.100.7 30', 'a.example.org. AAAA 2001:db8::7 30'],
    problems: 0,
  },
  {
    name: 'an endpoint without targets takes a default host name as a CNAME',
    snapshot: endpoints({ dnsName: 'a.example.org', recordType: 'CNAME' }),
    defaultTargets: ['lb.example.net'],
    records: ['a.example.org. CNAME lb.example.net. -'],
    problems: 0,
  },
  {
    name: "an endpoint's own targets win over the default targets",
    snapshot: endpoints({ dnsName: 'a.example.org', recordType: 'A', targets: ['10.0.0.1'] }),
    defaultTargets: ['198.51.100.7'],
    records: ['a.example.org. A 10.0.0.1 -'],
    problems: 0,
  },
  {
    name: "a Service's own targets win over the default targets",
    snapshot: service,
    defaultTargets: ['198.51.100.7'],
    records: ['web.example.org. A 192.0.2.1 60'],
    problems: 0,
  },
  {
    name: "forced: a Service's name takes the default targets, with its TTL",
    snapshot: service,
    defaultTargets: ['198.51.100.7'],
    force: true,
    records: ['web.example.org. A 198.51.100.7 60'],
    problems: 0,
  },
  {
    name: "forced: an endpoint's own records (any type) give way to the default targets",
    snapshot: endpoints(
      { dnsName: 'a.example.org', recordType: 'A', targets: ['10.0.0.1', '10.0.0.2'] },
      { dnsName: 'a.example.org', recordType: 'TXT', targets: ['hello'] },
    ),
    defaultTargets: ['198.51.100.7'],
    force: true,
    records: ['a.example.org. A 198.51.100.7 -'],
    problems: 0,
  },
  {
    name: 'forced without default targets: nothing changes',
    snapshot: service,
    force: true,
    records: ['web.example.org. A 192.0.2.1 60'],
    problems: 0,
  },
];

for (const row of rows) {
  test(`default targets: ${row.name}`, () => {
    const options = sourceOptions({
      sources: ['service', 'crd'],
      ...(row.defaultTargets ? { defaultTargets: row.defaultTargets } : {}),
      ...(row.force ? { forceDefaultTargets: true } : {}),
    });
    const result = desiredRecords(row.snapshot, options);
    assert.deepEqual(result.records.map((r) => `${r.name} ${r.type} ${r.target} ${r.ttl ?? '-'}`).sort(), row.records);
    assert.equal(result.problems.length, row.problems);
  });
}

// The flags as external-dns takes them; a CNAME beside other targets is refused at start-up naming the flag.
const flagRows: { name: string; args: string[]; want: string[] | RegExp }[] = [
  { name: 'addresses', args: ['--default-targets=192.0.2.9', '--default-targets=2001:db8::9'], want: ['A', 'AAAA'] },
  { name: 'one host name', args: ['--default-targets=lb.example.net'], want: ['CNAME'] },
  {
    name: 'a host name beside an address',
    args: ['--default-targets=lb.example.net', '--default-targets=192.0.2.9'],
    want: /defaultTargets \(--default-targets\): must be IP addresses, or one host name/,
  },
  {
    name: 'not a target',
    args: ['--default-targets=bad_name!'],
    want: /defaultTargets.*must be an IP address or a host name/,
  },
];
for (const row of flagRows) {
  test(`default targets flags: ${row.name}`, () => {
    const parse = () =>
      sourceOptions(
        parseControllerOptions(['--etcd', 'http://127.0.0.1:2379', '--owner-id=me', ...row.args], {}).config,
      ).defaultTargets.records.map((r) => r.type);
    if (row.want instanceof RegExp) assert.throws(parse, row.want);
    else assert.deepEqual(parse(), row.want);
  });
}
