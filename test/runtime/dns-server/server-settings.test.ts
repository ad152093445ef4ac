// Table tests of `etcdns server` settings: flags over environment over config file, and errors
// that name the field, where it came from, and what is allowed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadServerSettings } from '../../../src/runtime/dns-server/server-settings.ts';
import { mergeMetricPages } from '../../../src/runtime/dns-server/metrics-merge.ts';
import { tempDir } from '../../support/temp-dir.ts';

const dir = tempDir('server-settings');
function configFile(content: unknown): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const BASE = ['--etcd', 'http://127.0.0.1:2379', '--zone', 'example.org'];

describe('accepted settings', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string>; want: Record<string, unknown> }[] = [
    {
      name: 'flags only',
      args: [...BASE, '--zone', 'example.net', '--prefix', '/dns', '--listen', '127.0.0.1:5353', '--lookup', 'subtree'],
      want: {
        etcd: { endpoints: ['http://127.0.0.1:2379'] },
        zones: [{ name: 'example.org' }, { name: 'example.net' }],
        prefix: '/dns',
        listen: { host: '127.0.0.1', port: 5353 },
        lookup: 'subtree',
      },
    },
    {
      name: 'environment variables: ETCDNS_ and the flag',
      args: [],
      env: {
        ETCDNS_ETCD_URLS: 'https://a:2379,https://b:2379',
        ETCDNS_ETCD_CA_FILE: '/ca.pem',
        ETCDNS_ETCD_CERT_FILE: '/cert.pem',
        ETCDNS_ETCD_KEY_FILE: '/key.pem',
        ETCDNS_ETCD_USERNAME: 'dns',
        ETCDNS_ETCD_PASSWORD_FILE: '/password',
        ETCDNS_ZONE: 'example.org, example.net',
        ETCDNS_WORKERS: '2',
      },
      want: {
        etcd: {
          endpoints: ['https://a:2379', 'https://b:2379'],
          tls: { caFile: '/ca.pem', certFile: '/cert.pem', keyFile: '/key.pem' },
          auth: { username: 'dns', passwordFile: '/password' },
        },
        zones: [{ name: 'example.org' }, { name: 'example.net' }],
        workers: 2,
      },
    },
    {
      name: 'a catalog zone with the server-wide transfer',
      args: [...BASE, '--catalog-zone', 'catalog.etcdns.invalid.', '--transfer-allow-cidr', '192.0.2.53/32'],
      want: { catalog: { zone: 'catalog.etcdns.invalid.' }, transfer: { allowCidrs: ['192.0.2.53/32'] } },
    },
    {
      name: 'query ACL and identity flags',
      args: [
        ...BASE,
        '--allow-query-from',
        '10.0.0.0/8,fd00::/8',
        '--identity',
        'dns-a',
        '--identity-enabled=false',
        '--answer-version',
      ],
      want: { allowQueryFrom: ['10.0.0.0/8', 'fd00::/8'], identity: { name: 'dns-a', enabled: false, version: true } },
    },
    {
      name: 'answer order flags',
      args: [...BASE, '--answer-rotation', 'round-robin', '--answer-prefer', '10.1.0.0/16,fd00:1::/48'],
      want: { answerOrder: { rotation: 'round-robin', prefer: ['10.1.0.0/16', 'fd00:1::/48'] } },
    },
    {
      name: 'a flag overrides the environment',
      args: ['--etcd', 'http://flag:2379'],
      env: { ETCDNS_ETCD_URLS: 'http://env:2379', ETCDNS_ZONE: 'example.org' },
      want: { etcd: { endpoints: ['http://flag:2379'] } },
    },
    {
      name: 'the config file, with SOA fields and forwarding, and a flag over it',
      args: [
        '--config',
        configFile({
          etcd: { endpoints: ['http://file:2379'] },
          zones: [
            {
              name: 'example.org',
              defaultTtl: 60,
              soa: { rname: 'ops.example.org', minimum: 10 },
              nameServers: [{ name: 'ns1.example.org', addresses: ['192.0.2.53'] }],
            },
          ],
          forward: { upstreams: ['10.0.0.53', '[fd00::53]:5353'], clientCidrs: ['10.0.0.0/8'] },
          listen: '0.0.0.0:5353',
        }),
        '--listen',
        '127.0.0.1:5300',
      ],
      want: {
        etcd: { endpoints: ['http://file:2379'] },
        zones: [
          {
            name: 'example.org',
            defaultTtl: 60,
            soa: { rname: 'ops.example.org', minimum: 10 },
            nameServers: [{ name: 'ns1.example.org', addresses: ['192.0.2.53'] }],
          },
        ],
        forward: {
          upstreams: [
            { host: '10.0.0.53', port: 53 },
            { host: 'fd00::53', port: 5353 },
          ],
          clientCidrs: ['10.0.0.0/8'],
        },
        listen: { host: '127.0.0.1', port: 5300 },
      },
    },
    {
      name: 'drift: SOA timers may be 0, as in the constructs',
      args: [
        '--config',
        configFile({
          etcd: { endpoints: ['http://e:2379'] },
          zones: [{ name: 'example.org', soa: { refresh: 0, retry: 0, expire: 0, minimum: 0 } }],
        }),
      ],
      want: { zones: [{ name: 'example.org', soa: { refresh: 0, retry: 0, expire: 0, minimum: 0 } }] },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { config } = loadServerSettings(c.args, c.env ?? {});
      for (const [field, value] of Object.entries(c.want)) {
        assert.deepEqual(config[field as keyof typeof config], value, field);
      }
    });
  }

  const deprecated: [string, string, Record<string, string>, string][] = [
    ['ETCD_URLS', 'ETCDNS_ETCD_URLS', { ETCD_URLS: 'http://old:2379' }, 'etcd'],
    ['ETCD_CA_FILE', 'ETCDNS_ETCD_CA_FILE', { ETCD_CA_FILE: '/ca.pem' }, 'etcd'],
    ['ETCD_PASSWORD', 'ETCDNS_ETCD_PASSWORD', { ETCD_USERNAME: 'dns', ETCD_PASSWORD: 's' }, 'etcd'],
    ['ETCDNS_ZONES', 'ETCDNS_ZONE', { ETCDNS_ZONES: 'example.net' }, 'zones'],
    [
      'ETCDNS_FORWARD_UPSTREAMS',
      'ETCDNS_FORWARD_UPSTREAM',
      { ETCDNS_FORWARD_UPSTREAMS: '10.0.0.53', ETCDNS_FORWARD_CLIENT_CIDR: '10.0.0.0/8' },
      'forward',
    ],
  ];
  for (const [old, current, env, field] of deprecated) {
    test(`deprecated ${old} is still read, warning once with its new name ${current}`, () => {
      const warnings: string[] = [];
      // The flag of the deprecated variable is left out: a flag would win over it.
      const args = [
        ...(field === 'zones' ? [] : ['--zone', 'example.org']),
        ...(old === 'ETCD_URLS' ? [] : ['--etcd', 'http://e:2379']),
      ];
      const { config } = loadServerSettings(args, env, (m) => warnings.push(m));
      assert.deepEqual(
        warnings.filter((w) => w.startsWith(old)),
        [`${old} is deprecated; use ${current}`],
      );
      assert.notEqual(config[field as keyof typeof config], undefined);
    });
  }

  test('ETCDNS_ETCD_PASSWORD is a value, from the environment only', () => {
    const s = loadServerSettings(BASE, { ETCDNS_ETCD_USERNAME: 'dns', ETCDNS_ETCD_PASSWORD: 'secret' });
    assert.deepEqual(s.config.etcd.auth, { username: 'dns', password: 'secret' });
    assert.throws(() => loadServerSettings([...BASE, '--etcd-password', 'x'], {}), /unknown flag --etcd-password/);
  });
});

describe('rejected settings name the field', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string>; error: RegExp }[] = [
    { name: 'no etcd', args: ['--zone', 'example.org'], error: /^etcd: is required/ },
    { name: 'no zone', args: ['--etcd', 'http://e:2379'], error: /^zones: is required/ },
    {
      name: 'drift: an etcd URL with a path is refused, as by the controller (anchored)',
      args: ['--etcd', 'http://e:2379/v3', '--zone', 'example.org'],
      error: /^etcd\.endpoints\[0\] \(--etcd-urls\): must be an etcd client URL/,
    },
    {
      name: 'drift: the root zone is refused, as by the constructs',
      args: ['--etcd', 'http://e:2379', '--zone', '.'],
      error: /^zones\[0\]\.name \(--zone\): must not be the root zone/,
    },
    {
      name: 'a URL without scheme',
      args: ['--etcd', 'e:2379', '--zone', 'example.org'],
      error:
        /^etcd\.endpoints\[0\] \(--etcd-urls\): must be an etcd client URL, http\(s\):\/\/host:port \(got "e:2379"\)/,
    },
    {
      name: 'a bad zone from the environment',
      args: ['--etcd', 'http://e:2379'],
      env: { ETCDNS_ZONE: 'example.org,bad_zone!' },
      error: /^zones\[1\]\.name \(ETCDNS_ZONE\): .*"bad_zone!" has invalid label/,
    },
    { name: 'a zone twice', args: [...BASE, '--zone', 'EXAMPLE.org.'], error: /^zones\[1\]\.name .* is listed twice/ },
    {
      name: 'an update key whose suffix is in no served zone',
      args: [
        ...BASE,
        '--config',
        configFile({ update: { keyFile: '/k', keys: [{ name: 'acme', suffixes: ['example.org', 'example.net'] }] } }),
      ],
      error: /^update\.keys\[0\]\.suffixes\[1\] \(file .*\): must be in one of the served zones \(got "example\.net"\)/,
    },
    {
      name: 'an update key scope that is neither',
      args: [
        ...BASE,
        '--config',
        configFile({ update: { keyFile: '/k', keys: [{ name: 'acme', suffixes: ['example.org'], names: 'all' }] } }),
      ],
      error: /^update\.keys\[0\]\.names \(file .*\): must be one of "acme-challenge", "any"/,
    },
    {
      name: 'lookup',
      args: [...BASE, '--lookup', 'all'],
      error: /^lookup \(--lookup\): must be one of "own", "subtree" \(got "all"\)/,
    },
    {
      name: 'workers',
      args: [...BASE, '--workers', 'many'],
      error: /^workers \(--workers\): must be an integer from 1 to 64 \(got "many"\)/,
    },
    {
      name: 'prefix',
      args: [...BASE, '--prefix', 'skydns'],
      error: /^prefix \(--prefix\): must be an etcd key prefix .*\(got "skydns"\)/,
    },
    {
      name: 'an unknown flag',
      args: [...BASE, '--zones', 'x'],
      error: /^unknown flag --zones \(see etcdns server --help\)/,
    },
    {
      name: 'forwarding without client CIDRs',
      args: [...BASE, '--forward-upstream', '10.0.0.53'],
      error: /^forward\.clientCidrs: is required/,
    },
    {
      name: 'a bad client CIDR',
      args: [...BASE, '--forward-upstream', '10.0.0.53', '--forward-client-cidr', '10.0.0.0/33'],
      error: /^forward\.clientCidrs\[0\] \(--forward-client-cidr\): must be a CIDR/,
    },
    {
      name: 'a bad query ACL CIDR',
      args: [...BASE, '--allow-query-from', '10.0.0.0/8,192.0.2.0/33'],
      error: /^allowQueryFrom\[1\] \(--allow-query-from\): must be a CIDR/,
    },
    {
      name: 'a catalog without the server-wide transfer',
      args: [...BASE, '--catalog-zone', 'catalog.etcdns.invalid'],
      error: /^catalog\.zone \(--catalog-zone\): needs the server-wide transfer/,
    },
    {
      name: 'a catalog that is one of the zones',
      args: [...BASE, '--catalog-zone', 'Example.org.', '--transfer-allow-cidr', '192.0.2.53/32'],
      error: /^catalog\.zone \(--catalog-zone\): must be a name of its own, .*\(it clashes with "example\.org\."\)/,
    },
    {
      name: 'a catalog below one of the zones',
      args: [...BASE, '--catalog-zone', 'catalog.example.org', '--transfer-allow-cidr', '192.0.2.53/32'],
      error: /^catalog\.zone \(--catalog-zone\): must be a name of its own, .*\(it clashes with "example\.org\."\)/,
    },
    {
      name: 'a catalog zone that is not a name',
      args: [...BASE, '--catalog-zone', 'catalog..invalid', '--transfer-allow-cidr', '192.0.2.53/32'],
      error: /^catalog\.zone \(--catalog-zone\): must be a valid domain name/,
    },
    {
      name: 'an identity longer than one TXT string',
      args: [...BASE, '--identity', 'x'.repeat(256)],
      error: /^identity\.name \(--identity\): must be 1-255 bytes/,
    },
    {
      name: 'an answer rotation that is not known',
      args: [...BASE, '--answer-rotation', 'random'],
      error: /^answerOrder\.rotation \(--answer-rotation\): must be one of "off", "round-robin"/,
    },
    {
      name: 'a prefer network with host bits set',
      args: [...BASE, '--answer-prefer', '10.1.0.0/16,10.2.0.1/16'],
      error: /^answerOrder\.prefer\[1\] \(--answer-prefer\): .*host bits set/,
    },
    {
      name: 'more prefer networks than the server orders by',
      args: [...BASE, '--answer-prefer', Array.from({ length: 31 }, (_, i) => `10.${i}.0.0/16`).join(',')],
      error: /^answerOrder\.prefer \(--answer-prefer\): must list at most 30 networks/,
    },
    {
      name: 'an upstream that is not an address',
      args: [...BASE, '--forward-upstream', 'dns.google', '--forward-client-cidr', '10.0.0.0/8'],
      error:
        /^forward\.upstreams\[0\] \(--forward-upstream\): must be "ip", "ip:port" or "\[ipv6\]:port" \(got "dns\.google"\)/,
    },
    {
      name: 'TLS certificate without key',
      args: [...BASE, '--etcd-ca-file', '/ca', '--etcd-cert-file', '/cert'],
      error: /^etcd\.tls: needs both certFile and keyFile, or neither/,
    },
    {
      name: 'a user without password',
      args: [...BASE, '--etcd-username', 'dns'],
      error: /^etcd\.auth: needs a password/,
    },
    {
      name: 'a config file that is not JSON',
      args: ['--config', configFile('{ zones: ')],
      error: /^config file .*: .*JSON/,
    },
    {
      name: 'a config file field of the wrong type',
      args: [
        '--config',
        configFile({ etcd: { endpoints: ['http://e:2379'] }, zones: [{ name: 'example.org', defaultTtl: '5m' }] }),
      ],
      error:
        /^zones\[0\]\.defaultTtl \(file .*\.json\): must be a TTL in whole seconds from 1 to 2147483647 \(got "5m"\)/,
    },
    {
      name: 'a name server address that is not an IP',
      args: [
        '--config',
        configFile({
          etcd: { endpoints: ['http://e:2379'] },
          zones: [{ name: 'example.org', nameServers: [{ name: 'ns1.example.org', addresses: ['ns1'] }] }],
        }),
      ],
      error: /^zones\[0\]\.nameServers\[0\]\.addresses\[0\] \(file .*\): must be an IPv4 or IPv6 address \(got "ns1"\)/,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.throws(() => loadServerSettings(c.args, c.env ?? {}), { message: c.error });
    });
  }
});

test('--workers: one /metrics page from all workers, each series labelled, each family described once', () => {
  const page = (n: number) =>
    [
      '# HELP q_total Queries.',
      '# TYPE q_total counter',
      `q_total{type="A"} ${n}`,
      '# HELP up Up.',
      '# TYPE up gauge',
      `up ${n}`,
      '',
    ].join('\n');
  const merged = mergeMetricPages(
    new Map([
      ['0', page(1)],
      ['1', page(2)],
    ]),
  );
  assert.equal(
    merged,
    [
      '# HELP q_total Queries.',
      '# TYPE q_total counter',
      'q_total{worker="0",type="A"} 1',
      'q_total{worker="1",type="A"} 2',
      '# HELP up Up.',
      '# TYPE up gauge',
      'up{worker="0"} 1',
      'up{worker="1"} 2',
      '',
    ].join('\n'),
  );
});
