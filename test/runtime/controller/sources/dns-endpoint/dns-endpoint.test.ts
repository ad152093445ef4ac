// Table tests of the DNSEndpoint source, one test per row: each endpoint type read as
// external-dns's schema says, laid out so the SkyDNS layout answers it; refusals with their
// reason; the object's status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceId, type Problem } from '../../../../../src/runtime/controller/desired-record.ts';
import { layOut, nameOfOwnedKey, typeOfEntry } from '../../../../../src/runtime/controller/plan/layout.ts';
import {
  dnsEndpointStatus,
  sameStatus,
} from '../../../../../src/runtime/controller/sources/dns-endpoint/dns-endpoint-status.ts';
import type { DnsEndpoint, Endpoint } from '../../../../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import { endpointRecords } from '../../../../../src/runtime/controller/sources/dns-endpoint/endpoint-records.ts';
import { sourceOptions } from '../../../../../src/runtime/controller/sources/source-options.ts';
import { desiredRecords } from '../../../../support/full-pipeline.ts';

const line = (r: { type: string; target: string; priority?: number; weight?: number; port?: number }) =>
  [r.type, r.priority, r.weight, r.port, JSON.stringify(r.target)].filter((x) => x !== undefined).join(' ');

test('one endpoint -> records, or why it cannot be published', async (t) => {
  const rows: [string, Endpoint, string[] | RegExp][] = [
    [
      'A, several targets',
      { dnsName: 'a.example.org', recordType: 'A', targets: ['10.0.0.1', '10.0.0.2'] },
      ['A "10.0.0.1"', 'A "10.0.0.2"'],
    ],
    [
      'AAAA, lower-cased',
      { dnsName: 'a.example.org', recordType: 'AAAA', targets: ['2001:DB8::1'] },
      ['AAAA "2001:db8::1"'],
    ],
    [
      'A with an IPv6 target',
      { dnsName: 'a.example.org', recordType: 'A', targets: ['2001:db8::1'] },
      /is not an IPv4 address/,
    ],
    [
      'AAAA with an IPv4-mapped target',
      { dnsName: 'a.example.org', recordType: 'AAAA', targets: ['::ffff:10.0.0.1'] },
      /is not an IPv6 address/,
    ],
    [
      'CNAME with a trailing dot',
      { dnsName: 'www.example.org', recordType: 'CNAME', targets: ['web.example.net.'] },
      ['CNAME "web.example.net."'],
    ],
    [
      'CNAME with two targets',
      { dnsName: 'www.example.org', recordType: 'CNAME', targets: ['a.example.net', 'b.example.net'] },
      /one target, not 2/,
    ],
    [
      'CNAME to an address',
      { dnsName: 'www.example.org', recordType: 'CNAME', targets: ['10.0.0.1'] },
      /address, not a host name/,
    ],
    [
      'TXT: each target one record, kept whole',
      { dnsName: 'example.org', recordType: 'TXT', targets: ['v=spf1 -all', 'google-site-verification=abc'] },
      ['TXT "v=spf1 -all"', 'TXT "google-site-verification=abc"'],
    ],
    [
      'TXT longer than 255 bytes',
      { dnsName: 'k._domainkey.example.org', recordType: 'TXT', targets: ['p='.padEnd(400, 'A')] },
      [`TXT ${JSON.stringify('p='.padEnd(400, 'A'))}`],
    ],
    [
      'MX: preference and exchange',
      { dnsName: 'example.org', recordType: 'MX', targets: ['10 mail.example.org', '20 Backup.Example.org.'] },
      ['MX 10 "mail.example.org."', 'MX 20 "backup.example.org."'],
    ],
    ['MX: null MX (RFC 7505)', { dnsName: 'example.org', recordType: 'MX', targets: ['0 .'] }, ['MX 0 "."']],
    [
      'MX without a preference',
      { dnsName: 'example.org', recordType: 'MX', targets: ['mail.example.org'] },
      /not "<preference 0-65535> <exchange>"/,
    ],
    [
      'MX preference out of range',
      { dnsName: 'example.org', recordType: 'MX', targets: ['70000 mail.example.org'] },
      /not "<preference/,
    ],
    [
      'SRV: priority weight port target',
      { dnsName: '_sip._tcp.example.org', recordType: 'SRV', targets: ['10 60 5060 sip.example.org'] },
      ['SRV 10 60 5060 "sip.example.org."'],
    ],
    [
      'SRV with three fields',
      { dnsName: '_sip._tcp.example.org', recordType: 'SRV', targets: ['10 5060 sip.example.org'] },
      /not "<priority> <weight> <port> <target>"/,
    ],
    [
      'PTR',
      { dnsName: '5.0.0.10.in-addr.arpa', recordType: 'PTR', targets: ['host.example.org'] },
      ['PTR "host.example.org."'],
    ],
    [
      'NS: a delegation',
      { dnsName: 'sub.example.org', recordType: 'ns', targets: ['ns1.example.net', 'ns2.example.net'] },
      ['NS "ns1.example.net."', 'NS "ns2.example.net."'],
    ],
    ['NS to a wildcard', { dnsName: 'sub.example.org', recordType: 'NS', targets: ['*.example.net'] }, /is a wildcard/],
    [
      'NAPTR cannot be laid out',
      { dnsName: 'example.org', recordType: 'NAPTR', targets: ['100 10 "u" "E2U+sip" "!^.*$!sip:x@example.org!" .'] },
      /NAPTR cannot be expressed in the SkyDNS layout/,
    ],
    [
      'CAA cannot be laid out',
      { dnsName: 'example.org', recordType: 'CAA', targets: ['0 issue "letsencrypt.org"'] },
      /CAA cannot be expressed/,
    ],
    ['no targets', { dnsName: 'a.example.org', recordType: 'A', targets: [] }, /targets is empty/],
    ['no recordType', { dnsName: 'a.example.org', targets: ['10.0.0.1'] }, /recordType is missing/],
    ['no dnsName', { recordType: 'A', targets: ['10.0.0.1'] }, /dnsName is missing/],
    ['a bad dnsName', { dnsName: 'a..example.org', recordType: 'A', targets: ['10.0.0.1'] }, /has an empty label/],
    [
      'a negative recordTTL',
      { dnsName: 'a.example.org', recordType: 'A', recordTTL: -5, targets: ['10.0.0.1'] },
      /recordTTL -5/,
    ],
  ];
  for (const [name, endpoint, want] of rows)
    await t.test(name, () => {
      const result = endpointRecords(endpoint);
      if (want instanceof RegExp) {
        assert.equal(result.ok, false);
        assert.match((result as { error: string }).error, want);
      } else {
        assert.ok(result.ok, JSON.stringify(result));
        assert.deepEqual(result.records.map(line), want);
      }
    });
});

test('a capitalised dnsName is published lower-case (external-dns keeps it in the key, where no query finds it)', () => {
  const result = endpointRecords({ dnsName: 'WWW.Example.ORG', recordType: 'A', targets: ['10.0.0.1'] });
  assert.ok(result.ok);
  assert.equal(result.name, 'www.example.org.');
});

function dnsEndpoint(name: string, endpoints: (Endpoint | null)[], generation = 1): DnsEndpoint {
  return {
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    kind: 'DNSEndpoint',
    metadata: { name, namespace: 'dns', uid: `uid-${name}`, generation },
    spec: { endpoints },
  };
}

test('an invalid endpoint is refused with its reason; the others in the object still publish', () => {
  const result = desiredRecords(
    {
      dnsEndpoints: [
        dnsEndpoint('static', [
          { dnsName: 'a.example.org', recordType: 'A', targets: ['10.0.0.1'], recordTTL: 60 },
          { dnsName: 'b.example.org', recordType: 'A', targets: ['not-an-ip.example.org'] },
          null,
          {
            dnsName: 'c.example.org',
            recordType: 'TXT',
            targets: ['hello'],
            providerSpecific: [{ name: 'x', value: 'y' }],
          },
        ]),
      ],
    },
    sourceOptions({ sources: ['crd'] }),
  );
  assert.deepEqual(
    result.records.map((r) => `${r.name} ${r.type} ${r.target} ${r.ttl ?? '-'} ${resourceId(r.object)}`),
    ['a.example.org. A 10.0.0.1 60 crd/dns/static', 'c.example.org. TXT hello - crd/dns/static'],
  );
  assert.deepEqual(
    result.problems.map((p) => `${p.reason}: ${p.message}`),
    [
      'InvalidEndpoint: endpoints[1] (A b.example.org): target "not-an-ip.example.org" is not an IPv4 address; this endpoint is not published',
      'IgnoredField: endpoints[3] (TXT c.example.org): providerSpecific ignored (no meaning for etcdns)',
    ],
  );
});

test('DNSEndpoints: the ttl annotation is not read (recordTTL is), the domain filter and managed types apply', () => {
  const object = dnsEndpoint('static', [
    { dnsName: 'a.example.org', recordType: 'A', targets: ['10.0.0.1'] },
    { dnsName: 'a.example.org', recordType: 'TXT', targets: ['t'] },
    { dnsName: 'b.example.net', recordType: 'A', targets: ['10.0.0.2'] },
  ]);
  object.metadata!.annotations = { 'external-dns.kubernetes.io/ttl': '60' };
  const result = desiredRecords(
    { dnsEndpoints: [object] },
    sourceOptions({ sources: ['crd'], domainFilter: ['example.org'], managedRecordTypes: ['A'] }),
  );
  assert.deepEqual(
    result.records.map((r) => `${r.name} ${r.type} ${r.ttl ?? '-'}`),
    ['a.example.org. A -'],
  );
  assert.deepEqual(
    result.problems.map((p) => p.reason),
    ['HostnameNotInDomain'],
  );
});

test('the layout of each record type, and the way back from key to name and type', async (t) => {
  const object = {
    kind: 'DNSEndpoint' as const,
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    namespace: 'dns',
    name: 's',
  };
  const rows = [
    {
      type: 'TXT' as const,
      name: 'example.org.',
      target: 'v=spf1 -all',
      key: /^\/skydns\/org\/example\/[0-9a-f]{8}$/,
      entry: { text: 'v=spf1 -all' },
    },
    {
      type: 'MX' as const,
      name: 'example.org.',
      target: 'mail.example.org.',
      priority: 10,
      key: /^\/skydns\/org\/example\/[0-9a-f]{8}$/,
      entry: { host: 'mail.example.org', priority: 10, mail: true },
    },
    {
      type: 'MX' as const,
      name: 'example.org.',
      target: '.',
      priority: 0,
      key: /^\/skydns\/org\/example\/[0-9a-f]{8}$/,
      entry: { host: '.', priority: 0, mail: true },
    },
    {
      type: 'NS' as const,
      name: 'sub.example.org.',
      target: 'ns1.example.net.',
      key: /^\/skydns\/org\/example\/sub\/dns\/ns\/[0-9a-f]{8}$/,
      entry: { host: 'ns1.example.net' },
    },
    {
      type: 'SRV' as const,
      name: '_sip._tcp.example.org.',
      target: 'sip.example.org.',
      priority: 10,
      weight: 60,
      port: 5060,
      key: /^\/skydns\/org\/example\/_tcp\/_sip\/[0-9a-f]{8}$/,
      entry: { host: 'sip.example.org', port: 5060, priority: 10, weight: 60 },
    },
  ];
  const apexRows = [
    {
      type: 'TXT' as const,
      name: 'example.org.',
      target: 'v=spf1 -all',
      apex: true,
      key: /^\/skydns\/org\/example\/dns\/apex\/[0-9a-f]{8}$/,
      entry: { text: 'v=spf1 -all' },
    },
    {
      type: 'MX' as const,
      name: 'example.org.',
      target: 'mail.example.org.',
      priority: 10,
      apex: true,
      key: /^\/skydns\/org\/example\/dns\/apex\/[0-9a-f]{8}$/,
      entry: { host: 'mail.example.org', priority: 10, mail: true },
    },
    {
      type: 'A' as const,
      name: 'example.org.',
      target: '192.0.2.1',
      apex: true,
      key: /^\/skydns\/org\/example\/dns\/apex\/[0-9a-f]{8}$/,
      entry: { host: '192.0.2.1', targetstrip: 1 },
    },
    {
      type: 'NS' as const,
      name: 'example.org.',
      target: 'ns1.example.net.',
      apex: true,
      key: /^\/skydns\/org\/example\/dns\/ns\/[0-9a-f]{8}$/,
      entry: { host: 'ns1.example.net' },
    },
  ];
  for (const row of [...rows, ...apexRows])
    await t.test(`${row.type} ${row.target}${'apex' in row ? ' at a zone apex' : ''}`, () => {
      const { key: want, entry: wantEntry, apex, ...record } = row as typeof row & { apex?: boolean };
      const laid = layOut({ ...record, object }, '/skydns', 'me', { apex: apex ?? false });
      assert.match(laid.key, want);
      assert.deepEqual(laid.entry, { ...wantEntry, owner: 'me', resource: 'crd/dns/s' });
      assert.equal(typeOfEntry(laid.entry, laid.key, '/skydns'), row.type);
      assert.equal(nameOfOwnedKey(laid.key, laid.entry, '/skydns'), row.name);
    });
});

test("a DNSEndpoint's status, condition by condition", async (t) => {
  const ref = { kind: 'DNSEndpoint' as const, apiVersion: 'externaldns.k8s.io/v1alpha1', namespace: 'dns', name: 's' };
  const problem = (reason: Problem['reason'], message = `${reason} here`): Problem => ({
    object: ref,
    reason,
    message,
  });
  const base = {
    generation: 3,
    endpoints: 2,
    problems: [] as Problem[],
    publishedRecords: 2,
    previous: undefined,
    now: 'T1',
  };
  const rows: [string, Partial<typeof base>, [string, string, string, string]][] = [
    ['all live', {}, ['True', 'Accepted', 'True', 'Programmed']],
    [
      'one endpoint refused',
      { problems: [problem('InvalidEndpoint')], publishedRecords: 1 },
      ['False', 'Invalid', 'True', 'Programmed'],
    ],
    [
      'every endpoint refused',
      { problems: [problem('InvalidEndpoint'), problem('InvalidEndpoint')], publishedRecords: 0 },
      ['False', 'Invalid', 'False', 'Invalid'],
    ],
    ['a name owned by others', { problems: [problem('NameOwnedByOthers')] }, ['True', 'Accepted', 'False', 'NotOwned']],
    [
      'a conflict with another resource',
      { problems: [problem('RecordConflict')] },
      ['True', 'Accepted', 'False', 'Conflict'],
    ],
    [
      'not owned wins over conflict',
      { problems: [problem('RecordConflict'), problem('NameOwnedByOthers')] },
      ['True', 'Accepted', 'False', 'NotOwned'],
    ],
    [
      "outside the spoke's claims",
      { problems: [problem('NameNotClaimed'), problem('HostnameNotInDomain')] },
      ['True', 'Accepted', 'False', 'NotClaimed'],
    ],
    [
      'outside the domain filter',
      { problems: [problem('HostnameNotInDomain')], publishedRecords: 0 },
      ['True', 'Accepted', 'False', 'Filtered'],
    ],
    ['no view publishes it', { publishedRecords: 0 }, ['True', 'Accepted', 'False', 'Filtered']],
    [
      'an ignored field is no refusal',
      { problems: [problem('IgnoredField')] },
      ['True', 'Accepted', 'True', 'Programmed'],
    ],
  ];
  for (const [name, change, want] of rows)
    await t.test(name, () => {
      const status = dnsEndpointStatus({ ...base, ...change });
      const [accepted, ready] = status.conditions!;
      assert.deepEqual([accepted!.status, accepted!.reason, ready!.status, ready!.reason], want);
      assert.equal(status.observedGeneration, 3);
      assert.equal(ready!.observedGeneration, 3);
    });
});

test('a condition keeps its lastTransitionTime while its status stays', () => {
  const input = { generation: 1, endpoints: 1, problems: [], publishedRecords: 1, now: 'T1', previous: undefined };
  const first = dnsEndpointStatus(input);
  const again = dnsEndpointStatus({ ...input, generation: 2, now: 'T2', previous: first });
  assert.deepEqual(
    again.conditions!.map((c) => c.lastTransitionTime),
    ['T1', 'T1'],
  );
  const ref = { kind: 'DNSEndpoint' as const, apiVersion: 'v', namespace: 'dns', name: 's' };
  const broken = dnsEndpointStatus({
    ...input,
    now: 'T3',
    previous: again,
    problems: [{ object: ref, reason: 'RecordConflict', message: 'lost' }],
  });
  assert.deepEqual(
    broken.conditions!.map((c) => c.lastTransitionTime),
    ['T1', 'T3'],
  );
});

test('a status read back from the API server (fields sorted) is the status written: nothing to write again', () => {
  const written = dnsEndpointStatus({
    generation: 2,
    endpoints: 1,
    problems: [],
    publishedRecords: 1,
    now: 'T1',
    previous: undefined,
  });
  const stored = JSON.parse(
    JSON.stringify(written, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
        : v,
    ),
  );
  assert.notEqual(JSON.stringify(stored), JSON.stringify(written));
  assert.ok(sameStatus(stored, written));
  assert.ok(!sameStatus(stored, { ...written, observedGeneration: 3 }));
});
