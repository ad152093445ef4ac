// Table tests (one test per row) of SRV records per Service port: which Services get them (opt-in
// by annotation or configuration; headless only by annotation), the port users reach, unnamed
// ports, and the per-Service cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice, V1Service, V1ServicePort } from '@kubernetes/client-node';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';

const HOST = 'external-dns.alpha.kubernetes.io/hostname';
const SRV = 'etcdns.io/srv';

function svc(
  type: string,
  ports: V1ServicePort[],
  annotations: Record<string, string> = {},
  spec: Partial<NonNullable<V1Service['spec']>> = {},
): V1Service {
  return {
    metadata: { name: 'web', namespace: 'default', annotations: { [HOST]: 'web.example.org', ...annotations } },
    spec: { type, ports, ...spec },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
  };
}
const http = { name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 };
const dns = { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 };
const node = {
  metadata: { name: 'n1' },
  spec: {},
  status: { addresses: [{ type: 'ExternalIP', address: '198.51.100.1' }] },
};
function pods(count: number, port = 8080): V1EndpointSlice {
  return {
    addressType: 'IPv4',
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: Array.from({ length: count }, (_, i) => ({ addresses: [`10.1.0.${i + 1}`], hostname: `pod-${i}` })),
  };
}

type Row = {
  name: string;
  service: V1Service;
  config?: { srv?: boolean; srvMaxPerService?: number };
  slices?: V1EndpointSlice[];
  /** "name port target", sorted. */
  want: string[];
  problems?: RegExp[];
};
const rows: Row[] = [
  {
    name: 'no opt-in: no SRV for a LoadBalancer',
    service: svc('LoadBalancer', [http]),
    want: [],
  },
  {
    name: 'annotation opts a LoadBalancer in: Service port, protocol lower-cased',
    service: svc('LoadBalancer', [http, dns], { [SRV]: 'true' }),
    want: ['_dns._udp.web.example.org. 53 web.example.org.', '_http._tcp.web.example.org. 80 web.example.org.'],
  },
  {
    name: 'configuration opts every Service in',
    service: svc('LoadBalancer', [http]),
    config: { srv: true },
    want: ['_http._tcp.web.example.org. 80 web.example.org.'],
  },
  {
    name: 'annotation "false" opts out against the configuration',
    service: svc('LoadBalancer', [http], { [SRV]: 'false' }),
    config: { srv: true },
    want: [],
  },
  {
    name: "NodePort: the node port (beside external-dns's _<service>._<proto> record)",
    service: svc('NodePort', [http], { [SRV]: 'true' }),
    want: ['_http._tcp.web.example.org. 30080 web.example.org.', '_web._tcp.web.example.org. 30080 web.example.org.'],
  },
  {
    name: 'an unnamed port gets none, reported',
    service: svc('LoadBalancer', [{ port: 80, protocol: 'TCP' }], { [SRV]: 'true' }),
    want: [],
    problems: [/port 80 has no name/],
  },
  {
    name: 'headless: not by configuration alone',
    service: svc('ClusterIP', [http], {}, { clusterIP: 'None' }),
    config: { srv: true },
    slices: [pods(2)],
    want: [],
  },
  {
    name: "headless with the annotation: one per pod, at the pods' port",
    service: svc('ClusterIP', [http], { [SRV]: 'true' }, { clusterIP: 'None' }),
    slices: [pods(2)],
    want: [
      '_http._tcp.web.example.org. 8080 pod-0.web.example.org.',
      '_http._tcp.web.example.org. 8080 pod-1.web.example.org.',
    ],
  },
  {
    name: 'the per-Service cap stops the records and is reported',
    service: svc('ClusterIP', [http], { [SRV]: 'true' }, { clusterIP: 'None' }),
    config: { srvMaxPerService: 3 },
    slices: [pods(5)],
    want: [
      '_http._tcp.web.example.org. 8080 pod-0.web.example.org.',
      '_http._tcp.web.example.org. 8080 pod-1.web.example.org.',
      '_http._tcp.web.example.org. 8080 pod-2.web.example.org.',
    ],
    problems: [/stop at 3 per Service/],
  },
  {
    name: 'a Service that publishes no name gets no SRV',
    service: svc('ClusterIP', [http], { [SRV]: 'true' }),
    want: [],
  },
];
for (const row of rows) {
  test(`SRV: ${row.name}`, () => {
    const result = desiredRecords(
      { services: [row.service], ingresses: [], endpointSlices: row.slices ?? [], nodes: [node] },
      sourceOptions(row.config ?? {}),
    );
    const got = result.records
      .filter((r) => r.type === 'SRV')
      .map((r) => `${r.name} ${r.port} ${r.target}`)
      .sort();
    assert.deepEqual(got, row.want);
    const messages = result.problems.map((p) => p.message);
    assert.equal(messages.length, (row.problems ?? []).length, messages.join('; '));
    for (const re of row.problems ?? [])
      assert.ok(
        messages.some((m) => re.test(m)),
        `${re} in ${messages.join('; ')}`,
      );
  });
}
