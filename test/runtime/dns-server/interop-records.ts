// The etcd content both servers answer in the interoperability test: a broad, realistic set of
// SkyDNS entries (what users, external-dns and our controller write), and the questions asked.
// Keys are relative to the prefix; values are the JSON stored at them (or raw text when broken).

export const ZONES = ['example.org.', 'example.com.', '10.in-addr.arpa.'];

export const ENTRIES: Record<string, string | object> = {
  // Apex: NS from dns/ns (targets made from the keys, glue in additional), addresses from dns/apex.
  'org/example/dns/ns/ns1': { host: '10.0.0.53' },
  'org/example/dns/ns/ns2': { host: '10.0.0.54' },
  'org/example/dns/apex/a1': { host: '10.0.0.80' },
  'org/example/dns/apex/a2': { host: '2001:db8::80' },

  // A and AAAA at a name's own key, with and without a TTL.
  'org/example/www': { host: '10.0.0.1', ttl: 60 },
  'org/example/v6': { host: '2001:db8::1' },
  'org/example/mapped': { host: '::ffff:10.0.0.9' },
  'org/example/dual/x1': { host: '10.0.0.2' },
  'org/example/dual/x2': { host: '2001:db8::2' },
  // Duplicates (same host in two entries) are answered once.
  'org/example/dup/x1': { host: '10.0.0.3' },
  'org/example/dup/x2': { host: '10.0.0.3' },

  // external-dns's layout: one child per target with a random 8-hex label, plus its TXT registry.
  'org/example/nginx/3f1a9c2e': { host: '10.9.176.213', targetstrip: 1 },
  'org/example/nginx/7b2d4e6f': { host: '10.9.176.214', targetstrip: 1, ttl: 120 },
  'org/example/a-nginx/5c6d7e8f': {
    text: '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/nginx-frontend"',
    targetstrip: 1,
  },
  // Our controller's layout: child entries with owner and resource (unknown to CoreDNS, ignored).
  'org/example/api/0a1b2c3d': { host: '10.0.0.10', targetstrip: 1, owner: 'etcdns', resource: 'service/default/api' },

  // CNAMEs: at the exact key, chains inside the zone, out of the zone, dangling, a loop.
  'org/example/alias': { host: 'www.example.org', ttl: 90 },
  'org/example/alias2': { host: 'alias.example.org' },
  'org/example/outside': { host: 'target.example.net' },
  'org/example/dangling': { host: 'nothing.example.org' },
  'org/example/loop1': { host: 'loop2.example.org' },
  'org/example/loop2': { host: 'loop1.example.org' },
  // A CNAME written as external-dns writes it: in a child entry (deviation 1).
  'org/example/shop/9e8d7c6b': { host: 'www.example.org', targetstrip: 1 },

  // TXT, including one longer than a 255-byte character-string.
  'org/example/txt/t1': { text: 'hello world' },
  'org/example/txt/t2': { text: 'v=spf1 -all' },
  'org/example/longtxt': { text: 'x'.repeat(300) },

  // SRV: an IP host (target synthesized from the key, glue), a name host, weights per priority,
  // and an entry with port -1 that gives no SRV.
  'org/example/web/_tcp/_http/s1': { host: '10.0.1.1', port: 8080, priority: 10, weight: 30 },
  'org/example/web/_tcp/_http/s2': { host: '10.0.1.2', port: 8080, priority: 10, weight: 10 },
  'org/example/web/_tcp/_http/s3': { host: 'www.example.org', port: 8443, priority: 20 },
  'org/example/web/_tcp/_http/s4': { host: '10.0.1.4', port: -1 },

  // MX: entries with mail: true (priority is the preference).
  'org/example/mx/m1': { host: 'mail1.example.org', mail: true, priority: 10 },
  'org/example/mx/m2': { host: '10.0.2.2', mail: true, priority: 20 },
  'org/example/mail1': { host: '10.0.2.1' },

  // Groups: entries of one name with different groups are not mixed.
  'org/example/grp/g1': { host: '10.0.3.1', group: 'blue' },
  'org/example/grp/g2': { host: '10.0.3.2', group: 'blue' },
  'org/example/mixed/g1': { host: '10.0.3.3', group: 'blue' },
  'org/example/mixed/g2': { host: '10.0.3.4', group: 'green' },
  'org/example/mixed/g3': { host: '10.0.3.5' },

  // A name with its own entry and deeper names below it (deviation 6).
  'org/example/team/x1': { host: '10.0.5.1' },
  'org/example/team/app/x1': { host: '10.0.5.2' },
  'org/example/team/db/x1': { host: '10.0.5.3' },
  // A name that exists only because of names below it (empty non-terminal): NODATA, not NXDOMAIN.
  'org/example/svc/default/cart/x1': { host: '10.0.5.4' },

  // A stored wildcard (deviation 3) and names asked with a wildcard label.
  'org/example/wild/*/x1': { host: '10.0.4.1' },
  'org/example/wild/known/x1': { host: '10.0.4.2' },

  // Both a name host and a text (deviation 2), and its twin without the text.
  'org/example/both': { host: 'www.example.org', text: 'why not both' },
  'org/example/cname': { host: 'www.example.org' },

  // One undecodable value next to a good one (deviation 4).
  'org/example/broken/x1': '{"host": "10.0.6.1"',
  'org/example/broken/x2': { host: '10.0.6.2' },

  // A delegation (deviation 7): NS entries under a child name's dns/ns.
  'org/example/sub/dns/ns/ns1': { host: '10.0.7.1' },
  'org/example/sub/host/x1': { host: '10.0.7.2' },

  // Reverse zone: PTR at the exact key, and in a child entry (deviation 1).
  'arpa/in-addr/10/0/0/1': { host: 'www.example.org' },
  'arpa/in-addr/10/9/176/213/3f1a9c2e': { host: 'nginx.example.org', targetstrip: 1 },

  // A second zone without dns/apex: its apex has no addresses of its own (deviation 6), also not
  // from the leaf entries directly under it (deviation 9: those are the names x and y).
  'com/example/app/x1': { host: '10.1.0.1' },
  'com/example/app/x2': { host: '10.1.0.2' },
  'com/example/x': { host: '10.1.0.3' },
  'com/example/y': { host: '10.1.0.4' },

  // The same service name in two environments, asked with a query wildcard "*" or "any" (deviation 10).
  'org/example/blue/prod/x1': { host: '10.0.8.1', port: 8080 },
  'org/example/green/prod/x1': { host: '10.0.8.2', port: 8080 },
  'org/example/green/test/x1': { host: '10.0.8.3', port: 8080 },
};

/** The questions: every name of interest with every type we serve. */
export const NAMES = [
  'example.org.',
  'www.example.org.',
  'WwW.ExAmPlE.oRg.',
  'v6.example.org.',
  'mapped.example.org.',
  'dual.example.org.',
  'dup.example.org.',
  'nginx.example.org.',
  'a-nginx.example.org.',
  'api.example.org.',
  'alias.example.org.',
  'alias2.example.org.',
  'outside.example.org.',
  'dangling.example.org.',
  'loop1.example.org.',
  'shop.example.org.',
  'txt.example.org.',
  'longtxt.example.org.',
  '_http._tcp.web.example.org.',
  'mx.example.org.',
  'mail1.example.org.',
  'grp.example.org.',
  'mixed.example.org.',
  'team.example.org.',
  'app.team.example.org.',
  'svc.example.org.',
  'default.svc.example.org.',
  'cart.default.svc.example.org.',
  'anything.wild.example.org.',
  'known.wild.example.org.',
  '*.wild.example.org.',
  'both.example.org.',
  'cname.example.org.',
  'broken.example.org.',
  'sub.example.org.',
  'host.sub.example.org.',
  'nothere.example.org.',
  'deep.nothere.example.org.',
  '1.0.0.10.in-addr.arpa.',
  '213.176.9.10.in-addr.arpa.',
  '2.0.0.10.in-addr.arpa.',
  'example.com.',
  'app.example.com.',
  'x.example.com.',
  'prod.*.example.org.',
  'prod.any.example.org.',
  'any.wild.example.org.',
  'example.net.',
];

export const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'MX', 'PTR', 'NS', 'SOA'];

/** ANY questions (deviation 11), asked of a few names besides NAMES x TYPES. */
export const ANY_NAMES = ['www.example.org.', 'alias.example.org.', 'svc.example.org.', 'nothere.example.org.'];
