// What a zone transfer holds (zoneRecords, pure): the zone reading of the resolver in both lookup
// modes, so a secondary's zone has nothing beside a CNAME, one TTL per RRset and no SRV at plain
// names also where `lookup: subtree` answers as CoreDNS (whose entries of a name are the union
// below it, the apex's the whole zone); and the glue below a zone cut.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { typeName } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';
import type { LookupMode } from '../../../../src/runtime/dns-server/answer/name-lookup.ts';
import type { ResolverData } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import { ownerRecords, zoneRecords } from '../../../../src/runtime/dns-server/answer/zone-records.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';

const data = (r: ResourceRecord) =>
  'address' in r
    ? r.address
    : 'target' in r
      ? `${'port' in r ? `${r.port} ` : ''}${r.target}`
      : 'exchange' in r
        ? r.exchange
        : '';

const show = (r: ResourceRecord) => `${r.name} ${r.ttl} ${typeName(r.type)} ${data(r)}`;

function resolverData(content: Record<string, object>, zone: string, lookup: LookupMode): ResolverData {
  const zones = new ZoneTable([{ name: zone }]);
  const kvs = Object.entries(content).map(([key, value], i) => ({
    key,
    value: JSON.stringify(value),
    modRevision: i + 2,
  }));
  return { index: RecordIndex.fromSnapshot('/skydns', zones.names, kvs, 100), zones, lookup };
}

function transferred(content: Record<string, object>, zone: string, lookup: LookupMode): string[] {
  const resolved = resolverData(content, zone, lookup);
  return zoneRecords(resolved, resolved.zones.zones[0]!).map(show).sort();
}

const rows: {
  name: string;
  zone?: string;
  content: Record<string, object>;
  want: string[];
  /** Where `lookup: subtree` reads other entries for a name (CoreDNS's union below it, the apex's whole zone). */
  subtree?: string[];
}[] = [
  {
    name: 'a host name in a reverse zone: the PTR alone',
    zone: '2.0.192.in-addr.arpa',
    content: { '/skydns/arpa/in-addr/192/0/2/10': { host: 'www.example.org' } },
    want: ['10.2.0.192.in-addr.arpa. 300 PTR www.example.org.'],
    subtree: ['10.2.0.192.in-addr.arpa. 300 PTR www.example.org.', '2.0.192.in-addr.arpa. 300 PTR www.example.org.'],
  },
  {
    name: 'an address at a plain name: no SRV',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    want: ['www.example.org. 300 A 10.0.0.1'],
    subtree: ['example.org. 300 A 10.0.0.1', 'www.example.org. 300 A 10.0.0.1'],
  },
  {
    name: 'an alias beside addresses: the CNAME alone',
    content: {
      '/skydns/org/example/www': { host: 'lb.example.net' },
      '/skydns/org/example/www/x1': { host: '10.0.0.1' },
    },
    want: ['www.example.org. 300 CNAME lb.example.net.', 'x1.www.example.org. 300 A 10.0.0.1'],
    // CoreDNS reads www's children for everything but CNAME questions, so the addresses win there.
    subtree: ['example.org. 300 A 10.0.0.1', 'www.example.org. 300 A 10.0.0.1', 'x1.www.example.org. 300 A 10.0.0.1'],
  },
  {
    name: 'mixed TTLs in one RRset: the lowest',
    content: {
      '/skydns/org/example/web/x1': { host: '10.0.0.1', ttl: 60 },
      '/skydns/org/example/web/x2': { host: '10.0.0.2', ttl: 120 },
    },
    want: [
      'web.example.org. 60 A 10.0.0.1',
      'web.example.org. 60 A 10.0.0.2',
      'x1.web.example.org. 60 A 10.0.0.1',
      'x2.web.example.org. 120 A 10.0.0.2',
    ],
    subtree: [
      'example.org. 60 A 10.0.0.1',
      'example.org. 60 A 10.0.0.2',
      'web.example.org. 60 A 10.0.0.1',
      'web.example.org. 60 A 10.0.0.2',
      'x1.web.example.org. 60 A 10.0.0.1',
      'x2.web.example.org. 120 A 10.0.0.2',
    ],
  },
  {
    name: 'a delegation: its NS set and the glue below it, nothing else below it',
    content: {
      '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' },
      '/skydns/org/example/team/www': { host: '10.0.0.9' },
    },
    want: ['ns1.ns.dns.team.example.org. 300 A 10.0.1.53', 'team.example.org. 300 NS ns1.ns.dns.team.example.org.'],
    subtree: [
      'example.org. 300 A 10.0.0.9',
      'example.org. 300 A 10.0.1.53',
      'ns1.ns.dns.team.example.org. 300 A 10.0.1.53',
      'team.example.org. 300 NS ns1.ns.dns.team.example.org.',
    ],
  },
  {
    name: "a delegation as a DNSEndpoint writes it: the NS set, its name server's address records below the cut (glue), nothing else below it",
    content: {
      '/skydns/org/example/team/dns/ns/1a2b3c4d': { host: 'ns1.team.example.org' },
      '/skydns/org/example/team/dns/ns/5e6f7a8b': { host: 'ns.example.net' },
      '/skydns/org/example/team/ns1/9c0d1e2f': { host: '10.0.1.30', targetstrip: 1 },
      '/skydns/org/example/team/ns1/3a4b5c6d': { host: '2001:db8::30', targetstrip: 1 },
      '/skydns/org/example/team/www/7e8f9a0b': { host: '10.0.0.9', targetstrip: 1 },
    },
    want: [
      'ns1.team.example.org. 300 A 10.0.1.30',
      'ns1.team.example.org. 300 AAAA 2001:db8:0:0:0:0:0:30',
      'team.example.org. 300 NS ns.example.net.',
      'team.example.org. 300 NS ns1.team.example.org.',
    ],
    subtree: [
      'example.org. 300 A 10.0.0.9',
      'example.org. 300 A 10.0.1.30',
      'example.org. 300 AAAA 2001:db8:0:0:0:0:0:30',
      'ns1.team.example.org. 300 A 10.0.1.30',
      'ns1.team.example.org. 300 AAAA 2001:db8:0:0:0:0:0:30',
      'team.example.org. 300 NS ns.example.net.',
      'team.example.org. 300 NS ns1.team.example.org.',
    ],
  },
];

for (const lookup of ['own', 'subtree'] as const) {
  describe(`the zone a transfer holds (lookup: ${lookup})`, () => {
    for (const row of rows) {
      test(row.name, () => {
        const got = transferred(row.content, row.zone ?? 'example.org', lookup);
        assert.deepEqual(got, lookup === 'subtree' ? (row.subtree ?? row.want) : row.want);
      });
    }
  });
}

test("an IXFR's records of a changed glue name: its glue, nothing else below the cut", () => {
  const resolved = resolverData(
    {
      '/skydns/org/example/team/dns/ns/a': { host: 'ns1.team.example.org' },
      '/skydns/org/example/team/ns1/x1': { host: '10.0.1.30' },
      '/skydns/org/example/team/www/x1': { host: '10.0.0.9' },
    },
    'example.org',
    'own',
  );
  const owned = (name: string) => ownerRecords(resolved, resolved.zones.zones[0]!, name).map(show);
  assert.deepEqual(owned('ns1.team.example.org.'), ['ns1.team.example.org. 300 A 10.0.1.30']);
  assert.deepEqual(owned('www.team.example.org.'), []);
  assert.deepEqual(owned('team.example.org.'), ['team.example.org. 300 NS ns1.team.example.org.']);
});
