// Random SkyDNS content for the "answers equal the transfer" property: a forward zone, a second
// forward zone and a reverse zone, with names drawn from a small set (so entries meet: aliases
// find targets, names have children, wildcards cover names), and values of every kind the layout
// has: addresses, host names (aliases in, out of and across our zones, SRV with ports, MX), texts,
// TTLs, port -1, wildcards and delegations. Keys are relative to the prefix.
import fc from 'fast-check';

export const RANDOM_ZONES = ['example.org.', 'example.com.', '2.0.192.in-addr.arpa.'];

const FORWARD_LABELS = [
  'a',
  'b',
  'www',
  'x.a',
  'y.x.a',
  '*',
  '*.w',
  '_http._tcp.s',
  '_http._tcp',
  'm',
  'd',
  'h.d',
  'ns2.d',
  'apex.dns',
];
const REVERSE_LABELS = ['1', '2', '3', '*', '4.3'];

/** Every name the content can hold, so host names point at names that may or may not exist. */
const TARGETS = [
  ...FORWARD_LABELS.filter((l) => !l.includes('*')).flatMap((l) => [`${l}.example.org`, `${l}.example.com`]),
  'nothing.example.org',
  'www.example.net',
];

const keyOf = (name: string, zone: string) =>
  [...zone.slice(0, -1).split('.').reverse(), ...name.split('.').reverse()].join('/');

const ttl = fc.constantFrom(undefined, 30, 60, 120);
const ipv4 = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => `10.0.${a}.${b}`);
const ipv6 = fc.integer({ min: 1, max: 9 }).map((n) => `2001:db8::${n}`);

const value = fc.oneof(
  fc.record({ host: fc.oneof(ipv4, ipv6), ttl }),
  fc.record({ host: fc.constantFrom(...TARGETS), ttl }),
  fc.record({ host: fc.constantFrom(...TARGETS), port: fc.constantFrom(443, -1), ttl }),
  fc.record({
    host: fc.oneof(fc.constantFrom(...TARGETS), ipv4),
    mail: fc.constant(true),
    priority: fc.constantFrom(5, 10),
    ttl,
  }),
  fc.record({ host: ipv4, port: fc.constantFrom(80, 0, -1), ttl }),
  fc.record({ text: fc.constantFrom('one', 'two', 'v=spf1 -all'), ttl }),
);

/** One entry: at a name's own key or in a child entry below it. */
const entry = (zone: string, labels: string[]) =>
  fc
    .tuple(fc.constantFrom(...labels), fc.constantFrom('', 'x1', 'x2'), value)
    .map(([name, child, v]) => [`${keyOf(name, zone)}${child ? `/${child}` : ''}`, v] as const);

/**
 * The delegation of d.example.org in either form or both: an NS entry holding its server's address
 * (its own glue), and an NS entry naming a server below the cut whose address records are the
 * glue (as a DNSEndpoint writes them: `d NS ns2.d`, `ns2.d A`, `ns2.d AAAA`), beside one out of
 * our zones (no glue). Random entries may land at and below the cut too, at ns2.d as well.
 */
const DELEGATIONS = {
  address: { 'ns1.ns.dns.d': { host: '10.0.9.53' } },
  'address records': {
    'ns2.ns.dns.d': { host: 'ns2.d.example.org' },
    'ns3.ns.dns.d': { host: 'ns.example.net' },
    'g4.ns2.d': { host: '10.0.9.54', targetstrip: 1 },
    'g6.ns2.d': { host: '2001:db8::954', targetstrip: 1 },
  },
};
const delegation = fc
  .subarray(['address', 'address records'] as const)
  .map((forms) => forms.flatMap((form) => Object.entries(DELEGATIONS[form])));

/** Zone content: each zone's apex NS (secondaries refuse a zone without), maybe a delegation, random entries. */
export const randomZone = fc
  .tuple(
    fc.array(entry('example.org.', FORWARD_LABELS), { minLength: 4, maxLength: 18 }),
    fc.array(entry('example.com.', FORWARD_LABELS), { minLength: 1, maxLength: 6 }),
    fc.array(entry('2.0.192.in-addr.arpa.', REVERSE_LABELS), { minLength: 1, maxLength: 6 }),
    delegation,
  )
  .map(([org, com, rev, delegated]) => {
    const entries: Record<string, object> = {};
    for (const zone of RANDOM_ZONES) entries[`${keyOf('ns.dns', zone)}/ns1`] = { host: '10.0.0.53' };
    for (const [name, v] of delegated) entries[keyOf(name, 'example.org.')] = v;
    for (const [key, v] of [...org, ...com, ...rev]) {
      // Undefined fields are left out, as a writer leaves them out.
      entries[key] = Object.fromEntries(Object.entries(v).filter(([, f]) => f !== undefined));
    }
    return entries;
  });
