// Table tests of `etcdns server` settings: flags over environment over config file, and errors
// that name the field, where it came from, and what is allowed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadServerSettings } from '../../src/runtime/dns-server/server-settings.ts';
import { mergeMetricPages } from '../../src/runtime/dns-server/metrics-merge.ts';
import { tempDir } from '../support/temp-dir.ts';

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
        listen: '127.0.0.1:5353',
        lookup: 'subtree',
      },
    },
    {
      name: 'environment variables named as external-dns names them',
      args: [],
      env: {
        ETCD_URLS: 'https://a:2379,https://b:2379',
        ETCD_CA_FILE: '/ca.pem',
        ETCD_CERT_FILE: '/cert.pem',
        ETCD_KEY_FILE: '/key.pem',
        ETCD_USERNAME: 'dns',
        ETCD_PASSWORD_FILE: '/password',
        ETCDNS_ZONES: 'example.org, example.net',
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
      name: 'a flag overrides the environment',
      args: ['--etcd', 'http://flag:2379'],
      env: { ETCD_URLS: 'http://env:2379', ETCDNS_ZONES: 'example.org' },
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
        forward: { upstreams: ['10.0.0.53', '[fd00::53]:5353'], clientCidrs: ['10.0.0.0/8'] },
        listen: '127.0.0.1:5300',
      },
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

  test('ETCD_PASSWORD is kept as a value, not written into the config', () => {
    const s = loadServerSettings(BASE, { ETCD_USERNAME: 'dns', ETCD_PASSWORD: 'secret' });
    assert.equal(s.etcdPassword, 'secret');
    assert.deepEqual(s.config.etcd.auth, { username: 'dns', passwordFile: '' });
  });
});

describe('rejected settings name the field', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string>; error: RegExp }[] = [
    { name: 'no etcd', args: ['--zone', 'example.org'], error: /^etcd\.endpoints is required/ },
    { name: 'no zone', args: ['--etcd', 'http://e:2379'], error: /^zones needs at least one zone/ },
    {
      name: 'a URL without scheme',
      args: ['--etcd', 'e:2379', '--zone', 'example.org'],
      error: /^etcd\.endpoints\[0\] \(from --etcd\) "e:2379" is not an http:\/\/ or https:\/\/ URL/,
    },
    {
      name: 'a bad zone from the environment',
      args: ['--etcd', 'http://e:2379'],
      env: { ETCDNS_ZONES: 'example.org,bad_zone!' },
      error: /^zones\[1\]\.name \(from ETCDNS_ZONES\) "bad_zone!" has invalid label/,
    },
    { name: 'a zone twice', args: [...BASE, '--zone', 'EXAMPLE.org.'], error: /^zones\[1\]\.name .* is listed twice/ },
    {
      name: 'lookup',
      args: [...BASE, '--lookup', 'all'],
      error: /^lookup \(from --lookup\) must be one of own, subtree/,
    },
    {
      name: 'workers',
      args: [...BASE, '--workers', 'many'],
      error: /^workers \(from --workers\) must be an integer from 1 to 64/,
    },
    {
      name: 'prefix',
      args: [...BASE, '--prefix', 'skydns'],
      error: /^prefix \(from --prefix\) "skydns" must start with "\/"/,
    },
    { name: 'an unknown flag', args: [...BASE, '--zones', 'x'], error: /Unknown option '--zones'/ },
    {
      name: 'forwarding without client CIDRs',
      args: [...BASE, '--forward-upstream', '10.0.0.53'],
      error: /^forward\.clientCidrs must be a non-empty list/,
    },
    {
      name: 'a bad client CIDR',
      args: [...BASE, '--forward-upstream', '10.0.0.53', '--forward-client-cidr', '10.0.0.0/33'],
      error: /^forward\.clientCidrs\[0\] \(from --forward-client-cidr\) "10\.0\.0\.0\/33" is not a CIDR/,
    },
    {
      name: 'an upstream that is not an address',
      args: [...BASE, '--forward-upstream', 'dns.google', '--forward-client-cidr', '10.0.0.0/8'],
      error:
        /^forward\.upstreams\[0\] \(from --forward-upstream\) "dns\.google" is not an IP address with an optional port/,
    },
    {
      name: 'TLS certificate without key',
      args: [...BASE, '--etcd-ca-file', '/ca', '--etcd-cert-file', '/cert'],
      error: /^etcd\.tls needs both certFile and keyFile, or neither/,
    },
    {
      name: 'a user without password',
      args: [...BASE, '--etcd-username', 'dns'],
      error: /etcd\.auth needs a password/,
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
      error: /^zones\[0\]\.defaultTtl \(from config file .*\) must be an integer from 1 to 2147483647, got "5m"/,
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
      error:
        /^zones\[0\]\.nameServers\[0\]\.addresses\[0\] \(from config file .*\) "ns1" is not an IPv4 or IPv6 address/,
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
