// Table tests of the pure resolver: etcd content in, question in, response out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLASS, RCODE, TYPE, rcodeName, typeName } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { Answer, ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import { resolve, stripTarget } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import type { LookupMode } from '../../../../src/runtime/dns-server/answer/name-lookup.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';
import type { ServerZoneConfig } from '../../../../src/config/zone-config.ts';

type Content = Record<string, object | string>;

function index(content: Content, zones: string[], revision = 100): RecordIndex {
  const kvs = Object.entries(content).map(([key, value], i) => ({
    key,
    value: typeof value === 'string' ? value : JSON.stringify(value),
    modRevision: i + 2,
  }));
  return RecordIndex.fromSnapshot('/skydns', zones, kvs, revision);
}

function show(r: ResourceRecord): string {
  const data = (() => {
    switch (r.type) {
      case TYPE.A:
      case TYPE.AAAA:
        return r.address;
      case TYPE.CNAME:
      case TYPE.PTR:
      case TYPE.NS:
        return r.target;
      case TYPE.TXT:
        return r.text.map((t) => JSON.stringify(t.toString())).join(' ');
      case TYPE.HINFO:
        return `${JSON.stringify(r.cpu)} ${JSON.stringify(r.os)}`;
      case TYPE.MX:
        return `${r.preference} ${r.exchange}`;
      case TYPE.SRV:
        return `${r.priority} ${r.weight} ${r.port} ${r.target}`;
      case TYPE.SOA:
        return `${r.mname} ${r.rname} ${r.serial} ${r.refresh} ${r.retry} ${r.expire} ${r.minimum}`;
    }
  })();
  return `${r.name} ${r.ttl} ${typeName(r.type)} ${data}`;
}

interface Shown {
  rcode: string;
  aa: boolean;
  answer: string[];
  authority?: string[];
  additional?: string[];
}

function shown(a: Answer, withAuthority: boolean): Shown {
  return {
    rcode: rcodeName(a.rcode),
    aa: a.authoritative,
    answer: a.answer.map(show),
    ...(withAuthority ? { authority: a.authority.map(show) } : {}),
    ...(a.additional.length > 0 ? { additional: a.additional.map(show) } : {}),
  };
}

interface Case {
  name: string;
  content: Content;
  q: [string, keyof typeof TYPE | number];
  want: Shown;
  lookup?: LookupMode;
  zones?: ServerZoneConfig[];
  qclass?: number;
}

const ZONE = [{ name: 'example.org' }];
const SOA = 'example.org. 30 SOA ns.dns.example.org. hostmaster.example.org.';

function run(c: Case) {
  const zones = new ZoneTable(c.zones ?? ZONE);
  const idx = index(c.content, zones.names);
  const [qname, qtype] = c.q;
  const type = typeof qtype === 'number' ? qtype : TYPE[qtype];
  const answer = resolve(
    { name: qname, type, class: c.qclass ?? CLASS.IN },
    { index: idx, zones, lookup: c.lookup ?? 'own' },
  );
  const got = shown(answer, c.want.authority !== undefined);
  // SOA serials are checked in their own tests; elsewhere compare the SOA without them.
  const noSerial = (s: string) => s.replace(/^(\S+ \d+ SOA \S+ \S+) \d+ .*$/, '$1');
  if (got.authority) got.authority = got.authority.map(noSerial);
  assert.deepEqual(got, c.want);
}

function table(title: string, cases: Case[]): void {
  describe(title, () => {
    for (const c of cases) test(c.name, () => run(c));
  });
}

table('answers (CoreDNS behaviour we match)', [
  {
    name: 'A from the entry at the name key, default TTL 300',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['www.example.org. 300 A 10.0.0.1'] },
  },
  {
    name: 'AAAA from an IPv6 host; A of an IPv4-mapped IPv6 host',
    content: {
      '/skydns/org/example/v6/a': { host: '2001:db8::1' },
      '/skydns/org/example/v6/b': { host: '::ffff:10.0.0.7' },
    },
    q: ['v6.example.org.', 'AAAA'],
    want: { rcode: 'NOERROR', aa: true, answer: ['v6.example.org. 300 AAAA 2001:db8:0:0:0:0:0:1'] },
  },
  {
    name: 'IPv4-mapped IPv6 counts as A',
    content: { '/skydns/org/example/m': { host: '::ffff:10.0.0.7' } },
    q: ['m.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['m.example.org. 300 A 10.0.0.7'] },
  },
  {
    name: 'each record keeps the TTL of its own entry; duplicates answered once (subtree mode; deviation 16)',
    lookup: 'subtree',
    content: {
      '/skydns/org/example/web/1': { host: '10.0.0.1', ttl: 60 },
      '/skydns/org/example/web/2': { host: '10.0.0.2', ttl: 120 },
      '/skydns/org/example/web/3': { host: '10.0.0.1', ttl: 90 },
    },
    q: ['web.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['web.example.org. 60 A 10.0.0.1', 'web.example.org. 120 A 10.0.0.2'] },
  },
  {
    name: 'zone default TTL applies to entries without one',
    zones: [{ name: 'example.org', defaultTtl: 42 }],
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['www.example.org. 42 A 10.0.0.1'] },
  },
  {
    name: 'a name host is a CNAME chased inside the zone',
    content: {
      '/skydns/org/example/alias': { host: 'www.example.org', ttl: 60 },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['alias.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['alias.example.org. 60 CNAME www.example.org.', 'www.example.org. 300 A 10.0.0.1'],
    },
  },
  {
    name: 'CNAME chains are followed link by link',
    content: {
      '/skydns/org/example/a': { host: 'b.example.org' },
      '/skydns/org/example/b': { host: 'c.example.org' },
      '/skydns/org/example/c': { host: '10.0.0.3' },
    },
    q: ['a.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: [
        'a.example.org. 300 CNAME b.example.org.',
        'b.example.org. 300 CNAME c.example.org.',
        'c.example.org. 300 A 10.0.0.3',
      ],
    },
  },
  {
    name: 'a CNAME loop ends (loop guard) and yields NODATA (subtree mode; deviation 13)',
    lookup: 'subtree',
    content: {
      '/skydns/org/example/a': { host: 'b.example.org' },
      '/skydns/org/example/b': { host: 'a.example.org' },
    },
    q: ['a.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'a dangling in-zone CNAME yields NODATA (subtree mode; deviation 12)',
    lookup: 'subtree',
    content: { '/skydns/org/example/alias': { host: 'missing.example.org' } },
    q: ['alias.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'a CNAME to a name outside our zones is answered for the client to follow',
    content: { '/skydns/org/example/ext': { host: 'example.net' } },
    q: ['ext.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['ext.example.org. 300 CNAME example.net.'] },
  },
  {
    name: 'a chain longer than 10 links is cut (subtree mode; deviation 13)',
    lookup: 'subtree',
    content: Object.fromEntries(
      Array.from({ length: 13 }, (_, i) => [
        `/skydns/org/example/c${i}`,
        i === 12 ? { host: '10.0.0.12' } : { host: `c${i + 1}.example.org` },
      ]),
    ),
    q: ['c0.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'TXT: one record per distinct text',
    content: {
      '/skydns/org/example/t/1': { text: 'one' },
      '/skydns/org/example/t/2': { text: 'two' },
      '/skydns/org/example/t/3': { text: 'one' },
    },
    q: ['t.example.org.', 'TXT'],
    want: { rcode: 'NOERROR', aa: true, answer: ['t.example.org. 300 TXT "one"', 't.example.org. 300 TXT "two"'] },
  },
  {
    name: 'TXT longer than 255 bytes is split into character-strings',
    content: { '/skydns/org/example/long': { text: 'x'.repeat(300) } },
    q: ['long.example.org.', 'TXT'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: [`long.example.org. 300 TXT ${JSON.stringify('x'.repeat(255))} ${JSON.stringify('x'.repeat(45))}`],
    },
  },
  {
    name: 'MX from entries with mail: true (priority is the preference, 0 means 10), glue in additional',
    content: {
      '/skydns/org/example/mail/1': { host: '10.0.0.25', mail: true, priority: 5 },
      '/skydns/org/example/mail/2': { host: '10.0.0.26', mail: true },
      '/skydns/org/example/mail/3': { host: '10.0.0.27' },
    },
    q: ['mail.example.org.', 'MX'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['mail.example.org. 300 MX 5 1.mail.example.org.', 'mail.example.org. 300 MX 10 2.mail.example.org.'],
      additional: ['1.mail.example.org. 300 A 10.0.0.25', '2.mail.example.org. 300 A 10.0.0.26'],
    },
  },
  {
    name: 'SRV from entries with a port; target synthesized from the key, glue in additional',
    content: {
      '/skydns/org/example/_http/_tcp/svc/a': { host: '10.0.0.1', port: 8080 },
      '/skydns/org/example/_http/_tcp/svc/b': { host: '10.0.0.2', port: 8080, weight: 300 },
      '/skydns/org/example/_http/_tcp/svc/c': { host: '10.0.0.3', port: -1 },
    },
    q: ['svc._tcp._http.example.org.', 'SRV'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: [
        'svc._tcp._http.example.org. 300 SRV 10 20 8080 a.svc._tcp._http.example.org.',
        'svc._tcp._http.example.org. 300 SRV 10 60 8080 b.svc._tcp._http.example.org.',
      ],
      additional: ['a.svc._tcp._http.example.org. 300 A 10.0.0.1', 'b.svc._tcp._http.example.org. 300 A 10.0.0.2'],
    },
  },
  {
    name: 'SRV to a name host: the target as is, its in-zone addresses in additional',
    content: {
      '/skydns/org/example/srv': { host: 'www.example.org', port: 443, priority: 1 },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['srv.example.org.', 'SRV'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['srv.example.org. 300 SRV 1 100 443 www.example.org.'],
      additional: ['www.example.org. 300 A 10.0.0.1'],
    },
  },
  {
    name: 'targetstrip removes leftmost labels of a synthesized target',
    content: { '/skydns/org/example/svc/x1': { host: '10.0.0.1', port: 80, targetstrip: 1 } },
    q: ['svc.example.org.', 'SRV'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['svc.example.org. 300 SRV 10 100 80 svc.example.org.'],
      additional: ['svc.example.org. 300 A 10.0.0.1'],
    },
  },
  {
    name: 'PTR from name hosts',
    zones: [{ name: '2.0.192.in-addr.arpa' }],
    content: { '/skydns/arpa/in-addr/192/0/2/10': { host: 'www.example.org' } },
    q: ['10.2.0.192.in-addr.arpa.', 'PTR'],
    want: { rcode: 'NOERROR', aa: true, answer: ['10.2.0.192.in-addr.arpa. 300 PTR www.example.org.'] },
  },
  {
    name: 'NXDOMAIN only when nothing exists at or below the name, with the SOA',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['nope.example.org.', 'A'],
    want: { rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'NODATA for a name with data of another type, with the SOA',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'AAAA'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'NODATA (not NXDOMAIN) for a name that only has children',
    content: { '/skydns/org/example/prod/www/x': { host: '10.0.0.1' } },
    q: ['prod.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'NODATA for an unsupported type at an existing name',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'HINFO'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'apex SOA synthesized from CoreDNS defaults',
    content: {},
    q: ['example.org.', 'SOA'],
    want: { rcode: 'NOERROR', aa: true, answer: [`${SOA} 1 7200 1800 86400 30`] },
  },
  {
    name: 'SOA at any name in the zone: the zone SOA in the answer, as CoreDNS answers (subtree mode; deviation 17)',
    lookup: 'subtree',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'SOA'],
    // The serial is the revision of the zone's last change: the one put, at revision 2.
    want: { rcode: 'NOERROR', aa: true, answer: [`${SOA} 2 7200 1800 86400 30`] },
  },
  {
    name: 'apex SOA fields from the zone config',
    zones: [
      {
        name: 'example.org',
        soa: { mname: 'ns1.example.org', rname: 'ops.example.org', refresh: 1, retry: 2, expire: 3, minimum: 60 },
      },
    ],
    content: {},
    q: ['example.org.', 'SOA'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 60 SOA ns1.example.org. ops.example.org. 1 1 2 3 60'] },
  },
  {
    name: 'apex NS from entries under dns/ns, targets from their keys, glue in additional',
    content: {
      '/skydns/org/example/dns/ns/ns1': { host: '10.0.0.53' },
      '/skydns/org/example/dns/ns/ns2': { host: '2001:db8::53' },
    },
    q: ['example.org.', 'NS'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['example.org. 300 NS ns1.ns.dns.example.org.', 'example.org. 300 NS ns2.ns.dns.example.org.'],
      additional: ['ns1.ns.dns.example.org. 300 A 10.0.0.53', 'ns2.ns.dns.example.org. 300 AAAA 2001:db8:0:0:0:0:0:53'],
    },
  },
  {
    name: 'apex NS from the zone config when it has name servers (glue for their addresses)',
    zones: [
      {
        name: 'example.org',
        nameServers: [
          { name: 'ns1.example.org', addresses: ['192.0.2.53', '2001:db8::53'] },
          { name: 'ns.example.net' },
        ],
      },
    ],
    content: { '/skydns/org/example/dns/ns/ns9': { host: '10.9.9.9' } },
    q: ['example.org.', 'NS'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['example.org. 300 NS ns1.example.org.', 'example.org. 300 NS ns.example.net.'],
      additional: ['ns1.example.org. 300 A 192.0.2.53', 'ns1.example.org. 300 AAAA 2001:db8:0:0:0:0:0:53'],
    },
  },
  {
    name: 'SOA mname defaults to the first configured name server',
    zones: [{ name: 'example.org', nameServers: [{ name: 'ns1.example.org' }] }],
    content: {},
    q: ['example.org.', 'SOA'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['example.org. 30 SOA ns1.example.org. hostmaster.example.org. 1 7200 1800 86400 30'],
    },
  },
  {
    name: 'apex A from entries under dns/apex',
    content: { '/skydns/org/example/dns/apex/x1': { host: '10.0.0.100' } },
    q: ['example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 A 10.0.0.100'] },
  },
  {
    name: 'wildcard label in the query name matches any label at that position (subtree mode; deviation 18)',
    lookup: 'subtree',
    content: {
      '/skydns/org/example/a/www': { host: '10.0.0.1' },
      '/skydns/org/example/b/www': { host: '10.0.0.2' },
      '/skydns/org/example/b/ftp': { host: '10.0.0.3' },
    },
    q: ['www.*.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['www.*.example.org. 300 A 10.0.0.1', 'www.*.example.org. 300 A 10.0.0.2'],
    },
  },
  {
    name: 'SkyDNS groups: entries of another group than the shortest key are not mixed in',
    content: {
      '/skydns/org/example/g/1': { host: '10.0.0.1', group: 'g1' },
      '/skydns/org/example/g/2': { host: '10.0.0.2', group: 'g2' },
    },
    q: ['g.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['g.example.org. 300 A 10.0.0.1', 'g.example.org. 300 A 10.0.0.2'] },
    lookup: 'own',
  },
  {
    name: 'SkyDNS groups: a group set at a shorter key filters the others',
    content: {
      '/skydns/org/example/g/1': { host: '10.0.0.1', group: 'g1' },
      '/skydns/org/example/g/x/2': { host: '10.0.0.2', group: 'g2' },
      '/skydns/org/example/g/x/3': { host: '10.0.0.3' },
    },
    q: ['g.example.org.', 'A'],
    lookup: 'subtree',
    want: { rcode: 'NOERROR', aa: true, answer: ['g.example.org. 300 A 10.0.0.1', 'g.example.org. 300 A 10.0.0.3'] },
  },
  {
    name: 'REFUSED outside our zones, marked for the forwarding decision',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.net.', 'A'],
    want: { rcode: 'REFUSED', aa: false, answer: [] },
  },
  {
    name: 'REFUSED for zone transfers',
    content: {},
    q: ['example.org.', 'AXFR'],
    want: { rcode: 'REFUSED', aa: false, answer: [] },
  },
  {
    name: 'REFUSED for a class other than IN',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'A'],
    qclass: 3,
    want: { rcode: 'REFUSED', aa: false, answer: [] },
  },
  {
    name: 'the most specific zone answers (its own SOA)',
    zones: [{ name: 'example.org' }, { name: 'sub.example.org' }],
    content: {},
    q: ['x.sub.example.org.', 'A'],
    want: {
      rcode: 'NXDOMAIN',
      aa: true,
      answer: [],
      authority: ['sub.example.org. 30 SOA ns.dns.sub.example.org. hostmaster.sub.example.org.'],
    },
  },
  {
    name: 'entries with neither host nor text are ignored but make the name exist',
    content: { '/skydns/org/example/empty': { port: 80 } },
    q: ['empty.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
]);

const REV = [{ name: '2.0.192.in-addr.arpa' }];
const REV_SOA = '2.0.192.in-addr.arpa. 30 SOA ns.dns.2.0.192.in-addr.arpa. hostmaster.2.0.192.in-addr.arpa.';
const WWW = { '/skydns/org/example/www': { host: '10.0.0.1' } };
const chainOf = (links: number) =>
  Object.fromEntries(
    Array.from({ length: links + 1 }, (_, i) => [
      `/skydns/org/example/c${i}`,
      i === links ? { host: '10.0.0.99' } : { host: `c${i + 1}.example.org` },
    ]),
  );
const cnames = (links: number) =>
  Array.from({ length: links }, (_, i) => `c${i}.example.org. 300 CNAME c${i + 1}.example.org.`);

// The default mode answers exactly the zone it transfers (issue 24): one row per rule, each a
// deviation of docs/skydns-layout.md; `lookup: subtree` keeps CoreDNS's answer (rows above).
table("the zone's answers (default mode): deviations 2, 12-18", [
  {
    name: 'deviation 12: an alias asked for a type its target lacks: the CNAME, then NODATA with the SOA',
    content: { '/skydns/org/example/alias': { host: 'www.example.org', ttl: 60 }, ...WWW },
    q: ['alias.example.org.', 'AAAA'],
    want: { rcode: 'NOERROR', aa: true, answer: ['alias.example.org. 60 CNAME www.example.org.'], authority: [SOA] },
  },
  {
    name: 'deviation 12: a dangling alias: the CNAME, then NXDOMAIN with the SOA (RFC 6604)',
    content: { '/skydns/org/example/alias': { host: 'missing.example.org' } },
    q: ['alias.example.org.', 'A'],
    want: {
      rcode: 'NXDOMAIN',
      aa: true,
      answer: ['alias.example.org. 300 CNAME missing.example.org.'],
      authority: [SOA],
    },
  },
  {
    name: "deviation 12: a chain: every link, then the last target's negative result",
    content: {
      '/skydns/org/example/a': { host: 'b.example.org' },
      '/skydns/org/example/b': { host: 'www.example.org' },
      ...WWW,
    },
    q: ['a.example.org.', 'TXT'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['a.example.org. 300 CNAME b.example.org.', 'b.example.org. 300 CNAME www.example.org.'],
      authority: [SOA],
    },
  },
  {
    name: 'deviation 12: an alias out of our zones: the CNAME alone, for the client to follow',
    content: { '/skydns/org/example/ext': { host: 'www.example.net' } },
    q: ['ext.example.org.', 'MX'],
    want: { rcode: 'NOERROR', aa: true, answer: ['ext.example.org. 300 CNAME www.example.net.'], authority: [] },
  },
  {
    name: 'deviation 12: an alias into another of our zones is not chased there (as BIND and Knot answer)',
    zones: [{ name: 'example.org' }, { name: 'example.com' }],
    content: {
      '/skydns/org/example/other': { host: 'www.example.com' },
      '/skydns/com/example/www': { host: '10.1.0.1' },
    },
    q: ['other.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['other.example.org. 300 CNAME www.example.com.'], authority: [] },
  },
  {
    name: 'deviation 12: an alias to a delegated name: the CNAME, then the referral (authoritative)',
    content: {
      '/skydns/org/example/todeleg': { host: 'www.team.example.org' },
      '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' },
    },
    q: ['todeleg.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['todeleg.example.org. 300 CNAME www.team.example.org.'],
      authority: ['team.example.org. 300 NS ns1.ns.dns.team.example.org.'],
      additional: ['ns1.ns.dns.team.example.org. 300 A 10.0.1.53'],
    },
  },
  {
    name: 'deviation 13: a chain of 11 links is answered whole',
    content: chainOf(11),
    q: ['c0.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [...cnames(11), 'c11.example.org. 300 A 10.0.0.99'], authority: [] },
  },
  {
    name: 'deviation 13: a chain not ended after 12 links is SERVFAIL with the links found (as BIND)',
    content: chainOf(12),
    q: ['c0.example.org.', 'A'],
    want: { rcode: 'SERVFAIL', aa: true, answer: cnames(12), authority: [] },
  },
  {
    name: 'deviation 13: a loop is SERVFAIL with each link once (RFC 1034 3.6.2)',
    content: { '/skydns/org/example/a': { host: 'b.example.org' }, '/skydns/org/example/b': { host: 'a.example.org' } },
    q: ['a.example.org.', 'A'],
    want: {
      rcode: 'SERVFAIL',
      aa: true,
      answer: ['a.example.org. 300 CNAME b.example.org.', 'b.example.org. 300 CNAME a.example.org.'],
      authority: [],
    },
  },
  {
    name: 'deviation 14: a host name in a reverse zone is a PTR only: an address question is NODATA, no CNAME',
    zones: REV,
    content: { '/skydns/arpa/in-addr/192/0/2/1/3f1a9c2e': { host: 'www.example.org' } },
    q: ['1.2.0.192.in-addr.arpa.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [REV_SOA] },
  },
  {
    name: 'deviation 14: an entry with `mail` and a host name is an MX only: no CNAME for address questions',
    content: { '/skydns/org/example/mailer': { host: 'mx.example.net', mail: true } },
    q: ['mailer.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 14: a host name with a port is an SRV only; a PTR question outside reverse zones is NODATA',
    content: { '/skydns/org/example/srv': { host: 'www.example.org', port: 443 } },
    q: ['srv.example.org.', 'PTR'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 14: a host name at a plain name is a CNAME for a PTR question too (chased)',
    content: { '/skydns/org/example/alias': { host: 'www.example.org' }, ...WWW },
    q: ['alias.example.org.', 'PTR'],
    want: { rcode: 'NOERROR', aa: true, answer: ['alias.example.org. 300 CNAME www.example.org.'], authority: [SOA] },
  },
  {
    name: 'deviation 14: an alias stands alone: the addresses beside it are not answered',
    content: {
      '/skydns/org/example/both': { host: 'www.example.org' },
      '/skydns/org/example/both/x1': { host: '10.0.0.5' },
      ...WWW,
    },
    q: ['both.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['both.example.org. 300 CNAME www.example.org.', 'www.example.org. 300 A 10.0.0.1'],
      authority: [],
    },
  },
  {
    name: 'deviation 14: a host name at the apex is no alias (the apex holds SOA and NS)',
    content: { '/skydns/org/example': { host: 'www.example.net' } },
    q: ['example.org.', 'CNAME'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: "deviation 14: a name synthesized from a wildcard gives the types decided at the wildcard's owner",
    content: { '/skydns/org/example/*/x1': { host: 'www.example.net' } },
    q: ['_http._tcp.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['_http._tcp.example.org. 300 CNAME www.example.net.'],
      authority: [],
    },
  },
  {
    name: 'deviation 2 (default mode): a name host with a text is an alias for TXT questions too',
    content: { '/skydns/org/example/both': { host: 'www.example.org', text: 'hello' }, ...WWW },
    q: ['both.example.org.', 'TXT'],
    want: { rcode: 'NOERROR', aa: true, answer: ['both.example.org. 300 CNAME www.example.org.'], authority: [SOA] },
  },
  {
    name: 'deviation 15: no SRV for an address at a plain name without a port',
    content: { '/skydns/org/example/plain': { host: '10.0.0.7' } },
    q: ['plain.example.org.', 'SRV'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 15: an address at a service name gives SRV without a port (port 0)',
    content: { '/skydns/org/example/_tcp/_ldap/dc1': { host: '10.0.0.5' } },
    q: ['_ldap._tcp.example.org.', 'SRV'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['_ldap._tcp.example.org. 300 SRV 10 100 0 dc1._ldap._tcp.example.org.'],
      additional: ['dc1._ldap._tcp.example.org. 300 A 10.0.0.5'],
      authority: [],
    },
  },
  {
    name: 'deviation 16: one TTL per RRset, the lowest (RFC 2181 5.2)',
    content: {
      '/skydns/org/example/web/1': { host: '10.0.0.1', ttl: 60 },
      '/skydns/org/example/web/2': { host: '10.0.0.2', ttl: 120 },
      '/skydns/org/example/web/3': { host: '10.0.0.1', ttl: 90 },
    },
    q: ['web.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['web.example.org. 60 A 10.0.0.1', 'web.example.org. 60 A 10.0.0.2'],
      authority: [],
    },
  },
  {
    name: 'deviation 16: two entries giving the same record answer it once (an RRset is a set, RFC 2181 5)',
    content: {
      '/skydns/org/example/s/_tcp/_http/x1': { host: 'web.example.org', port: 443, ttl: 60 },
      '/skydns/org/example/s/_tcp/_http/x2': { host: 'web.example.org', port: 443 },
    },
    q: ['_http._tcp.s.example.org.', 'SRV'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['_http._tcp.s.example.org. 60 SRV 10 50 443 web.example.org.'],
      authority: [],
    },
  },
  {
    name: 'deviation 17: SOA at a name below the apex: NODATA with the SOA',
    content: WWW,
    q: ['www.example.org.', 'SOA'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 18: a query label "*" is the label it is: the stored wildcard owner, not every name beside it',
    content: {
      '/skydns/org/example/wild/*': { host: '10.0.0.9' },
      '/skydns/org/example/wild/known': { host: '10.0.0.8' },
    },
    q: ['*.wild.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['*.wild.example.org. 300 A 10.0.0.9'], authority: [] },
  },
]);

table('deviations from CoreDNS (docs/skydns-layout.md)', [
  {
    name: 'deviation 1: a CNAME query finds its data in a child entry (external-dns layout)',
    content: { '/skydns/org/example/app/3f1a9c2e': { host: 'www.example.net', targetstrip: 1 } },
    q: ['app.example.org.', 'CNAME'],
    want: { rcode: 'NOERROR', aa: true, answer: ['app.example.org. 300 CNAME www.example.net.'] },
  },
  {
    name: 'deviation 1: a PTR query finds its data in a child entry',
    zones: [{ name: '2.0.192.in-addr.arpa' }],
    content: { '/skydns/arpa/in-addr/192/0/2/10/1a2b3c4d': { host: 'www.example.org' } },
    q: ['10.2.0.192.in-addr.arpa.', 'PTR'],
    want: { rcode: 'NOERROR', aa: true, answer: ['10.2.0.192.in-addr.arpa. 300 PTR www.example.org.'] },
  },
  {
    name: 'deviation 1 (subtree mode keeps CoreDNS): a child entry does not answer a CNAME query',
    lookup: 'subtree',
    content: { '/skydns/org/example/app/3f1a9c2e': { host: 'www.example.net' } },
    q: ['app.example.org.', 'CNAME'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 2: a name host with a text is a CNAME for non-TXT questions',
    content: {
      '/skydns/org/example/both': { host: 'www.example.org', text: 'hello' },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['both.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['both.example.org. 300 CNAME www.example.org.', 'www.example.org. 300 A 10.0.0.1'],
    },
  },
  {
    name: 'deviation 2 (subtree mode): the same entry is a TXT for TXT questions',
    lookup: 'subtree',
    content: { '/skydns/org/example/both': { host: 'www.example.org', text: 'hello' } },
    q: ['both.example.org.', 'TXT'],
    want: { rcode: 'NOERROR', aa: true, answer: ['both.example.org. 300 TXT "hello"'] },
  },
  {
    name: 'deviation 3: a stored * label answers names below it that have no data of their own',
    content: {
      '/skydns/org/example/*': { host: '10.0.0.42' },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['anything.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['anything.example.org. 300 A 10.0.0.42'] },
  },
  {
    name: 'deviation 3: the stored wildcard also answers deeper names (RFC 4592)',
    content: { '/skydns/org/example/*': { host: '10.0.0.42' } },
    q: ['a.b.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['a.b.example.org. 300 A 10.0.0.42'] },
  },
  {
    name: 'deviation 3: an existing name is not answered by the wildcard',
    content: {
      '/skydns/org/example/*': { host: '10.0.0.42' },
      '/skydns/org/example/www': { text: 'only text' },
    },
    q: ['www.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 3: the wildcard does not reach across an existing closer encloser',
    content: {
      '/skydns/org/example/*': { host: '10.0.0.42' },
      '/skydns/org/example/b/c': { host: '10.0.0.1' },
    },
    q: ['a.b.example.org.', 'A'],
    want: { rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: "deviation 4: an undecodable value is skipped; the name's other entries are still served",
    content: {
      '/skydns/org/example/web/1': { host: '10.0.0.1' },
      '/skydns/org/example/web/2': '{not json',
      '/skydns/org/example/web/3': { host: 7 },
    },
    q: ['web.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['web.example.org. 300 A 10.0.0.1'] },
  },
  {
    name: "deviation 6: a parent does not answer with its deeper descendants' addresses",
    content: {
      '/skydns/org/example/prod/www/x1': { host: '10.0.0.1' },
      '/skydns/org/example/prod/api/x1': { host: '10.0.0.2' },
    },
    q: ['prod.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 9: the leaf entries x and y directly under the apex are names of their own, not apex addresses',
    content: { '/skydns/org/example/x': { host: '10.0.0.1' }, '/skydns/org/example/y': { host: '10.0.0.2' } },
    q: ['example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 9: the apex answers addresses from <zone>/dns/apex only',
    content: {
      '/skydns/org/example/x': { host: '10.0.0.1' },
      '/skydns/org/example/dns/apex/a1': { host: '10.0.0.80' },
    },
    q: ['example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 A 10.0.0.80'] },
  },
  {
    name: 'deviation 9: the apex answers its other types from <zone>/dns/apex too (an MX, a TXT)',
    content: {
      '/skydns/org/example/dns/apex/m1': { host: 'mx.example.net', mail: true, priority: 10 },
      '/skydns/org/example/dns/apex/t1': { text: 'v=spf1 -all' },
      '/skydns/org/example/x': { host: 'mx2.example.net', mail: true },
    },
    q: ['example.org.', 'MX'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 MX 10 mx.example.net.'] },
  },
  {
    name: 'deviation 9: the apex answers TXT from <zone>/dns/apex (its SPF record), not from the leaves below it',
    content: {
      '/skydns/org/example/x': { text: 'not the apex' },
      '/skydns/org/example/dns/apex/t1': { text: 'v=spf1 -all' },
    },
    q: ['example.org.', 'TXT'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 TXT "v=spf1 -all"'] },
  },
  {
    name: 'deviation 9: the apex MX from <zone>/dns/apex, its exchange address in additional',
    content: {
      '/skydns/org/example/dns/apex/m1': { host: 'mail.example.org', mail: true, priority: 20 },
      '/skydns/org/example/mail/x1': { host: '10.0.0.25' },
    },
    q: ['example.org.', 'MX'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['example.org. 300 MX 20 mail.example.org.'],
      additional: ['mail.example.org. 300 A 10.0.0.25'],
    },
  },
  {
    name: 'deviation 9: the leaves under the apex are not its SRV targets either',
    content: { '/skydns/org/example/x': { host: '10.0.0.1', port: 80 } },
    q: ['example.org.', 'SRV'],
    want: { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 6: a name answers with its own entry and leaf entries directly below it',
    content: {
      '/skydns/org/example/app': { host: '10.0.0.1' },
      '/skydns/org/example/app/1f2e3d4c': { host: '10.0.0.2' },
      '/skydns/org/example/app/v2/1f2e3d4c': { host: '10.0.0.3' },
    },
    q: ['app.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['app.example.org. 300 A 10.0.0.1', 'app.example.org. 300 A 10.0.0.2'],
    },
  },
  {
    name: 'deviation 6 (lookup: subtree restores CoreDNS): a parent answers with the union below it',
    lookup: 'subtree',
    content: {
      '/skydns/org/example/prod/www/x1': { host: '10.0.0.1' },
      '/skydns/org/example/prod/api/x1': { host: '10.0.0.2' },
    },
    q: ['prod.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: ['prod.example.org. 300 A 10.0.0.2', 'prod.example.org. 300 A 10.0.0.1'],
    },
  },
  {
    name: 'deviation 6 (lookup: subtree restores CoreDNS): the apex without dns/apex answers with the whole zone',
    lookup: 'subtree',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 A 10.0.0.1'] },
  },
  {
    name: 'deviation 7: NS entries under <name>/dns/ns make a zone cut: referral with glue',
    content: {
      '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' },
      '/skydns/org/example/team/dns/ns/ns2': { host: 'ns.example.net' },
      '/skydns/org/example/team/www': { host: '10.0.0.9' },
    },
    q: ['www.team.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 300 NS ns1.ns.dns.team.example.org.', 'team.example.org. 300 NS ns.example.net.'],
      additional: ['ns1.ns.dns.team.example.org. 300 A 10.0.1.53'],
    },
  },
  {
    name: 'deviation 7: the cut itself is referred too, also for names that do not exist below it',
    content: { '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' } },
    q: ['nothing.team.example.org.', 'TXT'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 300 NS ns1.ns.dns.team.example.org.'],
      additional: ['ns1.ns.dns.team.example.org. 300 A 10.0.1.53'],
    },
  },
]);

/** A delegation as the controller writes a DNSEndpoint's `team NS ns1.team` and `ns1.team A`, `AAAA`. */
const DELEGATION = {
  '/skydns/org/example/team/dns/ns/1a2b3c4d': { host: 'ns1.team.example.org' },
  '/skydns/org/example/team/ns1/5e6f7a8b': { host: '10.0.1.30', targetstrip: 1 },
  '/skydns/org/example/team/ns1/9c0d1e2f': { host: '2001:db8::30', targetstrip: 1 },
};
const TEAM_REFERRAL: Shown = {
  rcode: 'NOERROR',
  aa: false,
  answer: [],
  authority: ['team.example.org. 300 NS ns1.team.example.org.'],
  additional: ['ns1.team.example.org. 300 A 10.0.1.30', 'ns1.team.example.org. 300 AAAA 2001:db8:0:0:0:0:0:30'],
};
const PARENT_NODATA: Shown = { rcode: 'NOERROR', aa: true, answer: [], authority: [SOA] };

table('delegations: glue from address records (RFC 9471), DS from the parent side (RFC 4035 3.1.4.1)', [
  {
    name: 'an NS name host below the cut gets its address records as glue (A and AAAA)',
    content: DELEGATION,
    q: ['www.team.example.org.', 'A'],
    want: TEAM_REFERRAL,
  },
  {
    name: 'a question for the name server itself is referred, with the glue',
    content: DELEGATION,
    q: ['ns1.team.example.org.', 'A'],
    want: TEAM_REFERRAL,
  },
  {
    name: 'NS at the cut is referred (the child is authoritative for its NS set)',
    content: DELEGATION,
    q: ['team.example.org.', 'NS'],
    want: TEAM_REFERRAL,
  },
  {
    name: 'other types at the cut are referred, entries at the cut itself are not answered',
    content: { ...DELEGATION, '/skydns/org/example/team/0a0b0c0d': { host: '10.0.0.9' } },
    q: ['team.example.org.', 'A'],
    want: TEAM_REFERRAL,
  },
  {
    name: 'SOA at the cut is referred too',
    content: DELEGATION,
    q: ['team.example.org.', 'SOA'],
    want: TEAM_REFERRAL,
  },
  {
    name: "DS at the cut is the parent's: NODATA with the parent's SOA, authoritative",
    content: DELEGATION,
    q: ['team.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS at the cut of the address form is the parent's too",
    content: { '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' } },
    q: ['team.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS at the cut is the parent's in subtree mode too",
    lookup: 'subtree',
    content: DELEGATION,
    q: ['team.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS below the cut is the child's: referred",
    content: DELEGATION,
    q: ['sub.team.example.org.', 'DS'],
    want: TEAM_REFERRAL,
  },
  {
    name: "DS through an alias to the cut: the CNAME, then the parent's NODATA",
    content: { ...DELEGATION, '/skydns/org/example/alias': { host: 'team.example.org' } },
    q: ['alias.example.org.', 'DS'],
    want: { ...PARENT_NODATA, answer: ['alias.example.org. 300 CNAME team.example.org.'] },
  },
  {
    name: 'DS at a name that is no cut is NODATA, as any type the name lacks',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['www.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS at the apex of a zone whose parent zone is ours too: the parent's NODATA (its apex NS set is the parent's cut)",
    zones: [{ name: 'example.org' }, { name: 'team.example.org' }],
    content: { '/skydns/org/example/team/dns/ns/ns1': { host: '10.0.1.53' } },
    q: ['team.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS at the apex of a zone whose parent zone is ours too, no NS entries: the parent's NODATA",
    zones: [{ name: 'example.org' }, { name: 'team.example.org' }],
    content: { '/skydns/org/example/team/www': { host: '10.0.1.1' } },
    q: ['team.example.org.', 'DS'],
    want: PARENT_NODATA,
  },
  {
    name: "DS at the apex of a zone whose parent is not ours: the zone's own NODATA",
    zones: [{ name: 'team.example.org' }],
    content: { '/skydns/org/example/team/www': { host: '10.0.1.1' } },
    q: ['team.example.org.', 'DS'],
    want: {
      rcode: 'NOERROR',
      aa: true,
      answer: [],
      authority: ['team.example.org. 30 SOA ns.dns.team.example.org. hostmaster.team.example.org.'],
    },
  },
  {
    name: 'both forms in one NS set: the address entry is its own glue, the name host gets its address records',
    content: { ...DELEGATION, '/skydns/org/example/team/dns/ns/ns2': { host: '10.0.1.53' } },
    q: ['team.example.org.', 'NS'],
    want: {
      ...TEAM_REFERRAL,
      authority: [
        'team.example.org. 300 NS ns1.team.example.org.',
        'team.example.org. 300 NS ns2.ns.dns.team.example.org.',
      ],
      additional: [...TEAM_REFERRAL.additional!, 'ns2.ns.dns.team.example.org. 300 A 10.0.1.53'],
    },
  },
  {
    name: 'name servers outside the cut get no glue: in the parent zone (sibling) or out of our zones',
    content: {
      '/skydns/org/example/team/dns/ns/a': { host: 'ns.example.org' },
      '/skydns/org/example/team/dns/ns/b': { host: 'ns.example.net' },
      '/skydns/org/example/ns/x1': { host: '10.0.0.53' },
    },
    q: ['team.example.org.', 'NS'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 300 NS ns.example.org.', 'team.example.org. 300 NS ns.example.net.'],
    },
  },
  {
    name: 'a name server at the cut itself: the addresses at the cut are its glue',
    content: {
      '/skydns/org/example/team/dns/ns/a': { host: 'team.example.org' },
      '/skydns/org/example/team/0a0b0c0d': { host: '10.0.1.30', ttl: 60 },
    },
    q: ['www.team.example.org.', 'A'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 300 NS team.example.org.'],
      additional: ['team.example.org. 60 A 10.0.1.30'],
    },
  },
  {
    name: 'no glue from a wildcard below the cut, nor from an alias',
    content: {
      '/skydns/org/example/team/dns/ns/a': { host: 'ns1.team.example.org' },
      '/skydns/org/example/team/dns/ns/b': { host: 'ns2.team.example.org' },
      '/skydns/org/example/team/*/x1': { host: '10.0.1.31' },
      '/skydns/org/example/team/ns2': { host: 'www.example.org' },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['team.example.org.', 'NS'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 300 NS ns1.team.example.org.', 'team.example.org. 300 NS ns2.team.example.org.'],
    },
  },
  {
    name: 'glue of one RRset shares the lowest TTL (RFC 2181 5.2)',
    content: {
      '/skydns/org/example/team/dns/ns/a': { host: 'ns1.team.example.org', ttl: 3600 },
      '/skydns/org/example/team/ns1/x1': { host: '10.0.1.30', ttl: 600 },
      '/skydns/org/example/team/ns1/x2': { host: '10.0.1.31', ttl: 60 },
    },
    q: ['team.example.org.', 'NS'],
    want: {
      rcode: 'NOERROR',
      aa: false,
      answer: [],
      authority: ['team.example.org. 3600 NS ns1.team.example.org.'],
      additional: ['ns1.team.example.org. 60 A 10.0.1.30', 'ns1.team.example.org. 60 A 10.0.1.31'],
    },
  },
  {
    name: 'subtree mode: the same glue for the usual form',
    lookup: 'subtree',
    content: DELEGATION,
    q: ['www.team.example.org.', 'A'],
    want: TEAM_REFERRAL,
  },
]);

const ENVIRONMENTS = {
  '/skydns/org/example/blue/prod/x1': { host: '10.0.0.1', port: 80 },
  '/skydns/org/example/green/prod/x1': { host: '10.0.0.2', port: 80 },
  '/skydns/org/example/green/test/x1': { host: '10.0.0.3', port: 80 },
};
const PROD_SRV = {
  rcode: 'NOERROR',
  aa: true,
  answer: [
    'prod.QUERY.example.org. 300 SRV 10 50 80 x1.prod.blue.example.org.',
    'prod.QUERY.example.org. 300 SRV 10 50 80 x1.prod.green.example.org.',
  ],
  additional: ['x1.prod.blue.example.org. 300 A 10.0.0.1', 'x1.prod.green.example.org. 300 A 10.0.0.2'],
};
const prodSrv = (label: string): Shown => ({
  ...PROD_SRV,
  answer: PROD_SRV.answer.map((r) => r.replace('QUERY', label)),
});

table('a query label "any" (CoreDNS: the same as "*"; deviation 10 in own mode)', [
  {
    name: 'subtree mode, as CoreDNS: "any" matches any label at its position, like "*"',
    lookup: 'subtree',
    content: ENVIRONMENTS,
    q: ['prod.any.example.org.', 'SRV'],
    want: prodSrv('any'),
  },
  {
    name: 'subtree mode: the same answer as "*"',
    lookup: 'subtree',
    content: ENVIRONMENTS,
    q: ['prod.*.example.org.', 'SRV'],
    want: prodSrv('*'),
  },
  {
    name: 'deviation 18: in own mode "*" is an ordinary label too, so prod.* is NXDOMAIN without a "*" name',
    content: ENVIRONMENTS,
    q: ['prod.*.example.org.', 'SRV'],
    want: { rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 10: in own mode "any" is an ordinary label, so prod.any is NXDOMAIN without an "any" name',
    content: ENVIRONMENTS,
    q: ['prod.any.example.org.', 'SRV'],
    want: { rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'deviation 10: in own mode a name called "any" answers its own records, not every name beside it',
    content: { ...ENVIRONMENTS, '/skydns/org/example/any/3f1a9c2e': { host: '10.0.0.9' } },
    q: ['any.example.org.', 'A'],
    want: { rcode: 'NOERROR', aa: true, answer: ['any.example.org. 300 A 10.0.0.9'] },
  },
]);

table('deviation 11: ANY questions get one RRset or a synthesized HINFO (RFC 8482)', [
  {
    name: 'a name with addresses answers one HINFO "RFC8482" with an empty OS, not an empty NOERROR',
    content: {
      '/skydns/org/example/www/x1': { host: '10.0.0.1' },
      '/skydns/org/example/www/x2': { text: 'hello' },
    },
    q: ['www.example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['www.example.org. 300 HINFO "RFC8482" ""'] },
  },
  {
    name: 'an alias answers its CNAME, unchased (its one RRset)',
    content: {
      '/skydns/org/example/alias': { host: 'www.example.org' },
      '/skydns/org/example/www': { host: '10.0.0.1' },
    },
    q: ['alias.example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['alias.example.org. 300 CNAME www.example.org.'] },
  },
  {
    name: 'an empty non-terminal exists: HINFO',
    content: { '/skydns/org/example/svc/default/cart': { host: '10.0.0.1' } },
    q: ['svc.example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['svc.example.org. 300 HINFO "RFC8482" ""'] },
  },
  {
    name: 'the apex: HINFO',
    content: {},
    q: ['example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['example.org. 300 HINFO "RFC8482" ""'] },
  },
  {
    name: 'a name that does not exist is still NXDOMAIN',
    content: { '/skydns/org/example/www': { host: '10.0.0.1' } },
    q: ['nothing.example.org.', 'ANY'],
    want: { rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA] },
  },
  {
    name: 'the HINFO has the zone default TTL',
    zones: [{ name: 'example.org', defaultTtl: 60 }],
    content: { '/skydns/org/example/www': { host: '10.0.0.1', ttl: 5 } },
    q: ['www.example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['www.example.org. 60 HINFO "RFC8482" ""'] },
  },
  {
    name: 'subtree mode answers ANY alike',
    lookup: 'subtree',
    content: { '/skydns/org/example/prod/www/x1': { host: '10.0.0.1' } },
    q: ['prod.example.org.', 'ANY'],
    want: { rcode: 'NOERROR', aa: true, answer: ['prod.example.org. 300 HINFO "RFC8482" ""'] },
  },
]);

describe('deviation 5: the SOA serial changes only when the zone data changes', () => {
  const zones = new ZoneTable(ZONE);
  const serialOf = (idx: RecordIndex) => {
    const a = resolve({ name: 'example.org.', type: TYPE.SOA, class: CLASS.IN }, { index: idx, zones, lookup: 'own' });
    const soa = a.answer[0];
    assert.ok(soa && soa.type === TYPE.SOA);
    return soa.serial;
  };

  test("the serial is the revision of the zone's last change, not the clock", () => {
    const idx = RecordIndex.fromSnapshot(
      '/skydns',
      zones.names,
      [
        { key: '/skydns/org/example/www', value: '{"host":"10.0.0.1"}', modRevision: 7 },
        { key: '/skydns/net/other/www', value: '{"host":"10.0.0.1"}', modRevision: 9 },
      ],
      9,
    );
    assert.equal(serialOf(idx), 7);
    idx.put('/skydns/net/other/x', '{"host":"10.0.0.2"}', 10);
    assert.equal(serialOf(idx), 7, 'a change outside the zone leaves the serial alone');
    idx.put('/skydns/org/example/x', '{"host":"10.0.0.2"}', 11);
    assert.equal(serialOf(idx), 11);
    idx.delete('/skydns/org/example/x', 12);
    assert.equal(serialOf(idx), 12, 'a deletion is a change');
  });

  test('a resync keeps the serial when the zone did not change and raises it when it did', () => {
    const kvs = [{ key: '/skydns/org/example/www', value: '{"host":"10.0.0.1"}', modRevision: 7 }];
    const before = RecordIndex.fromSnapshot('/skydns', zones.names, kvs, 20);
    before.put('/skydns/org/example/gone', '{"host":"10.0.0.3"}', 21);
    before.delete('/skydns/org/example/gone', 22);
    const same = RecordIndex.fromSnapshot('/skydns', zones.names, kvs, 30);
    same.inheritSerials(before);
    assert.equal(serialOf(same), 22);
    const changed = RecordIndex.fromSnapshot('/skydns', zones.names, [], 31);
    changed.inheritSerials(before);
    assert.ok(serialOf(changed) > 22);
  });
});

test('targetstrip never removes every label', () => {
  assert.equal(stripTarget('a.b.c.', 1), 'b.c.');
  assert.equal(stripTarget('a.b.c.', 3), 'a.b.c.');
  assert.equal(stripTarget('a.b.c.', 0), 'a.b.c.');
});

test('the resolver answers every question type without throwing', () => {
  const zones = new ZoneTable(ZONE);
  const idx = index({ '/skydns/org/example/www': { host: '10.0.0.1' } }, zones.names);
  for (let type = 0; type < 300; type++) {
    const a = resolve({ name: 'www.example.org.', type, class: CLASS.IN }, { index: idx, zones, lookup: 'own' });
    assert.ok([RCODE.NOERROR, RCODE.REFUSED].includes(a.rcode as 0 | 5), `type ${type}`);
  }
});
