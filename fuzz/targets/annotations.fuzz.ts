// The annotation parsers, through the Service source that applies them (hostname lists, ttl,
// target, access, endpoints-type, controller): the values come from anyone who may annotate a
// Service. Contract: never an exception; every record has a canonical, valid name and a target,
// and a ttl in range; a bad value becomes a problem report, not a record.
import assert from 'node:assert/strict';
import type { V1Service } from '@kubernetes/client-node';
import { dnsNameProblem } from '../../src/dns/dns-name.ts';
import { TTL_MAX, TTL_MIN } from '../../src/runtime/controller/sources/annotations.ts';
import { serviceRecords } from '../../src/runtime/controller/sources/service-source.ts';
import { sourceOptions } from '../../src/runtime/controller/sources/source-options.ts';
import type { SourceResult } from '../../src/runtime/controller/sources/record-builder.ts';
import type { FuzzTarget } from '../engine.ts';

const KEYS = ['hostname', 'internal-hostname', 'ttl', 'target', 'access', 'endpoints-type', 'controller'];
const options = sourceOptions({ publishClusterIp: true });
const context = { nodes: [], endpointSlices: () => [] };

export const annotations: FuzzTarget = {
  name: 'annotations',
  maxLength: 2048,
  dictionary: [
    'external-dns.alpha.kubernetes.io/',
    '.example.org',
    ',',
    ' ',
    '*.',
    '..',
    '10.0.0.1',
    '::1',
    '300',
    '0',
    '-1',
    '2147483648',
    'public',
    'private',
    'NodeExternalIP',
    'etcdns',
    '\n',
  ],
  run(data) {
    // One value per line, for the keys in order; the first byte picks the Service type.
    const [head, ...values] = data.toString('utf8').split('\n');
    const annotations: Record<string, string> = {};
    values.slice(0, KEYS.length).forEach((v, i) => (annotations[`external-dns.alpha.kubernetes.io/${KEYS[i]}`] = v));
    const type = ['LoadBalancer', 'ClusterIP', 'NodePort', 'ExternalName'][(head?.charCodeAt(0) ?? 0) % 4]!;
    const service: V1Service = {
      metadata: { name: 'web', namespace: 'default', annotations },
      spec: {
        type,
        clusterIP: '10.96.0.10',
        externalName: head?.slice(1) || 'backend.example.net',
        ports: [{ port: 53, name: 'dns', protocol: 'UDP', nodePort: 30053 }],
      },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'lb.example.net' }] } },
    };
    const out: SourceResult = { records: [], problems: [] };
    serviceRecords(service, context, options, out);
    for (const r of out.records) {
      assert.ok(r.name.endsWith('.') && r.name === r.name.toLowerCase(), `canonical name ${JSON.stringify(r.name)}`);
      assert.equal(dnsNameProblem(r.name), undefined, `valid name ${JSON.stringify(r.name)}`);
      assert.ok(r.target.length > 0, 'a target');
      if (r.ttl !== undefined)
        assert.ok(Number.isInteger(r.ttl) && r.ttl >= TTL_MIN && r.ttl <= TTL_MAX, `ttl ${r.ttl}`);
    }
  },
};
