// Table tests of the Knot signer's configuration (src/constructs/dnssec/knot-signer-config.ts), one test
// per row: what each input writes, and each mistake refused naming its field. Knot itself reads
// these in test/runtime/dns-server/transfer/dnssec-signer.e2e.test.ts (knotc conf-check, and the signing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knotSignerConfig, type KnotSignerConfigInput } from '../../../src/constructs/dnssec/knot-signer-config.ts';

const base: KnotSignerConfigInput = {
  zones: ['example.org.'],
  listen: '0.0.0.0@5353',
  storage: '/var/lib/knot',
  rundir: '/run/knot',
  primary: { address: '10.0.0.53', port: 5353 },
};

const rows: [name: string, input: Partial<KnotSignerConfigInput>, has: RegExp[], hasNot?: RegExp[]][] = [
  [
    'defaults: ECDSA P-256, ZSK 30 days, KSK by hand, NSEC3 without iterations or salt, CDS always',
    {},
    [
      /algorithm: ecdsap256sha256/,
      /zsk-lifetime: 30d/,
      /ksk-lifetime: 0/,
      /nsec3: on\n\s+nsec3-iterations: 0\n\s+nsec3-salt-length: 0/,
      /cds-cdnskey-publish: always/,
      /- domain: example\.org\.\n\s+master: etcdns\n\s+acl: \[notify-from-etcdns\]\n\s+dnssec-signing: on\n\s+dnssec-policy: etcdns/,
      /address: 10\.0\.0\.53@5353/,
    ],
    [/include:/, /key:/, /transfer-out/, /notify:/],
  ],
  ['NSEC', { policy: { nsec3: false } }, [/algorithm: ecdsap256sha256/], [/nsec3/]],
  [
    'TSIG: the key file included, the key on the remote and on the NOTIFY acl',
    { tsig: { id: 'xfr', file: '/etc/knot/tsig.conf' } },
    [
      /^include: \/etc\/knot\/tsig\.conf$/m,
      /address: 10\.0\.0\.53@5353\n\s+key: xfr/,
      /address: 10\.0\.0\.53\n\s+key: xfr\n\s+action: notify/,
    ],
  ],
  [
    'the outside secondaries: transfer acl and NOTIFY',
    { transferAllow: ['192.0.2.0/24', '198.51.100.7'], notify: ['192.0.2.53@53'] },
    [
      /address: \[192\.0\.2\.0\/24, 198\.51\.100\.7\]\n\s+action: transfer/,
      /acl: \[notify-from-etcdns, transfer-out\]/,
      /notify: \[secondary-0\]/,
      /id: secondary-0\n\s+address: 192\.0\.2\.53@53/,
    ],
  ],
  [
    'the optional times, by their Knot names',
    { policy: { dnskeyTtl: '1h', zoneMaxTtl: '1d', propagationDelay: '5m', rrsigLifetime: '14d', rrsigRefresh: '7d' } },
    [/dnskey-ttl: 1h/, /zone-max-ttl: 1d/, /propagation-delay: 5m/, /rrsig-lifetime: 14d/, /rrsig-refresh: 7d/],
  ],
  [
    'the primary from a file written at start: no NOTIFY acl (its address is unknown here); a refresh interval',
    { primary: { file: '/run/knot/primary.conf' }, refreshInterval: '5s' },
    [/^include: \/run\/knot\/primary\.conf$/m, /refresh-max-interval: 5s/],
    [/notify-from-etcdns/, /^acl:/m, /address: 10\.0\.0\.53/],
  ],
  ['two zones', { zones: ['example.org.', 'example.net.'] }, [/- domain: example\.org\./, /- domain: example\.net\./]],
];
for (const [name, input, has, hasNot = []] of rows)
  test(`knot signer config: ${name}`, () => {
    const text = knotSignerConfig({ ...base, ...input });
    for (const re of has) assert.match(text, re);
    for (const re of hasNot) assert.doesNotMatch(text, re);
  });

const bad: [name: string, input: Partial<KnotSignerConfigInput>, error: RegExp][] = [
  ['no zone', { zones: [] }, /zones: must list at least one zone/],
  ['a zone that is no name', { zones: ['bad name.'] }, /zones\[0\]: /],
  [
    'a time Knot would refuse',
    { policy: { zskLifetime: '30 days' } },
    /policy\.zskLifetime: must be a time such as "30d".*\(got "30 days"\)/,
  ],
  ["a refresh below Knot's floor of 2 s", { refreshInterval: '1s' }, /refreshInterval: must be a time of 2 s or more/],
  ['a refresh that is no time', { refreshInterval: '5 sec' }, /refreshInterval: must be a time of 2 s or more/],
];
for (const [name, input, error] of bad)
  test(`knot signer config refused, naming the field: ${name}`, () => {
    assert.throws(
      () => knotSignerConfig({ ...base, ...input }),
      (e: Error) => error.test(e.message),
    );
  });
