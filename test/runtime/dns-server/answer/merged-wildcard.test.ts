// A hub's wildcards across copies (answer/merged-lookup.ts): a wildcard of the view or of a
// member cluster answers a name only where its parent is the name's closest encloser in all
// copies together (RFC 4592 3.3.1), as a secondary holding the merged zone answers. Real record
// indexes and the real resolver; one row per case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubResolverData } from './hub-resolver-data.ts';
import { resolve } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';

/** The view holds the apex's name server, x.v and the wildcard *.w; dc1 the wildcard *.example.org and k.w; dc2 n.m and *.v. */
const VIEW: Record<string, object> = {
  '/skydns/org/example/dns/ns/ns1': { host: '10.0.0.53' },
  '/skydns/org/example/v/x/a1': { host: '10.0.0.9' },
  '/skydns/org/example/w/*/a2': { host: '10.0.0.7' },
};
const CLUSTERS: Record<string, object> = {
  '/skydns-clusters/dc1/org/example/*/b1': { host: '10.1.0.1' },
  '/skydns-clusters/dc1/org/example/w/k/b2': { host: '10.1.0.3' },
  '/skydns-clusters/dc2/org/example/m/n/c1': { host: '10.2.0.1' },
  '/skydns-clusters/dc2/org/example/v/*/c2': { host: '10.2.0.2' },
};

const hubData = () => hubResolverData({ clusterKeys: CLUSTERS, clusters: ['dc1', 'dc2'], viewKeys: VIEW });

// case, name, rcode, addresses answered (A)
const rows: [string, string, number, string[]][] = [
  ["a name below nothing any copy holds: dc1's wildcard", 'zz.example.org', RCODE.NOERROR, ['10.1.0.1']],
  [
    "below a name only the view holds (dns.example.org): not dc1's wildcard, NXDOMAIN",
    'zz.dns.example.org',
    RCODE.NXDOMAIN,
    [],
  ],
  ["below a name only dc2 holds (m.example.org): not dc1's wildcard, NXDOMAIN", 'zz.m.example.org', RCODE.NXDOMAIN, []],
  ["a name dc2 holds with no records of its own (m): no wildcard's", 'm.example.org', RCODE.NOERROR, []],
  [
    "below v, which the view holds: dc2's wildcard *.v answers, not dc1's *.example.org",
    'zz.v.example.org',
    RCODE.NOERROR,
    ['10.2.0.2'],
  ],
  ["below w: the view's wildcard *.w answers", 'zz.w.example.org', RCODE.NOERROR, ['10.0.0.7']],
  ["k.w, which dc1 holds: dc1's records, not the view's wildcard", 'k.w.example.org', RCODE.NOERROR, ['10.1.0.3']],
  ["below k.w, which only dc1 holds: not the view's wildcard, NXDOMAIN", 'a.k.w.example.org', RCODE.NXDOMAIN, []],
];

for (const [name, question, rcode, want] of rows)
  test(`a hub's wildcards across copies: ${name}`, () => {
    const answer = resolve({ name: `${question}.`, type: TYPE.A, class: 1 }, hubData(), 'zone');
    assert.equal(answer.rcode, rcode);
    assert.deepEqual(
      answer.answer.flatMap((r) => ('address' in r ? [r.address] : [])),
      want,
    );
  });
