// DNSEndpoint objects: their endpoints come from anyone who may create one in a namespace the
// controller reads. The input is one endpoint per paragraph, one field per line: dnsName,
// recordType, recordTTL, then the targets. Contract: never an exception; every record has a
// canonical, valid name, a type etcdns publishes, a target of that type's form and a ttl in
// range; every endpoint either publishes or is refused with an InvalidEndpoint problem.
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { dnsNameProblem } from '../../src/dns/dns-name.ts';
import { RECORD_TYPES } from '../../src/dns/record-types.ts';
import { TTL_MAX } from '../../src/runtime/controller/sources/annotations.ts';
import { dnsEndpointRecords } from '../../src/runtime/controller/sources/dns-endpoint/dns-endpoint-source.ts';
import type { Endpoint } from '../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import { endpointRecords } from '../../src/runtime/controller/sources/dns-endpoint/endpoint-records.ts';
import type { SourceResult } from '../../src/runtime/controller/sources/record-builder.ts';
import { sourceOptions } from '../../src/runtime/controller/sources/source-options.ts';
import type { FuzzTarget } from '../engine.ts';

const options = sourceOptions({ sources: ['crd'] });

export const dnsEndpoint: FuzzTarget = {
  name: 'dns-endpoint',
  maxLength: 2048,
  dictionary: [
    '\n',
    '\n\n',
    '.example.org',
    'A',
    'AAAA',
    'CNAME',
    'TXT',
    'MX',
    'SRV',
    'PTR',
    'NS',
    'NAPTR',
    '10 ',
    '0 .',
    '*.',
    '10.0.0.1',
    '::1',
    '300',
    '-1',
    '65536',
  ],
  run(data) {
    const endpoints: Endpoint[] = data
      .toString('utf8')
      .split('\n\n')
      .map((paragraph) => {
        const [dnsName, recordType, ttl, ...targets] = paragraph.split('\n');
        return {
          ...(dnsName !== undefined ? { dnsName } : {}),
          ...(recordType !== undefined ? { recordType } : {}),
          ...(ttl !== undefined && ttl !== '' && !Number.isNaN(Number(ttl)) ? { recordTTL: Number(ttl) } : {}),
          targets,
        };
      });
    const out: SourceResult = { records: [], problems: [] };
    dnsEndpointRecords({ metadata: { name: 'static', namespace: 'dns' }, spec: { endpoints } }, options, out);
    for (const r of out.records) {
      assert.ok(r.name.endsWith('.') && r.name === r.name.toLowerCase(), `canonical name ${JSON.stringify(r.name)}`);
      assert.equal(dnsNameProblem(r.name), undefined, `valid name ${JSON.stringify(r.name)}`);
      assert.ok(RECORD_TYPES.includes(r.type), r.type);
      if (r.type === 'A') assert.equal(isIP(r.target), 4, r.target);
      else if (r.type === 'AAAA') assert.equal(isIP(r.target), 6, r.target);
      else if (r.type !== 'TXT')
        assert.ok(r.target === '.' || dnsNameProblem(r.target) === undefined, `${r.type} target ${r.target}`);
      if (r.ttl !== undefined) assert.ok(Number.isInteger(r.ttl) && r.ttl >= 1 && r.ttl <= TTL_MAX, `ttl ${r.ttl}`);
    }
    // Each endpoint is refused (once) or publishes its own name's records, never another's.
    const read = endpoints.map((e) => endpointRecords(e));
    const refused = out.problems.filter((p) => p.reason === 'InvalidEndpoint').length;
    assert.equal(refused, read.filter((r) => !r.ok).length, 'one InvalidEndpoint per refused endpoint');
    const names = new Set(read.flatMap((r) => (r.ok ? [r.name] : [])));
    for (const r of out.records) assert.ok(names.has(r.name), `${r.name} is an accepted endpoint's name`);
  },
};
