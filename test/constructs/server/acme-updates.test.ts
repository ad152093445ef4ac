// ACME updates in the constructs: `server.acme` renders the config's `update` (the key file a path
// into the Secret's read-only mount, no key in any manifest) for every view's servers, which the
// server's own loader accepts; a Secret shared with the transfer keys is mounted once; the
// servers' etcd users may then write their view's prefix (and only then); bad props fail naming
// the field.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { App, Chart } from 'cdk8s';
import { ConfigError } from '../../../src/config/config-error.ts';
import type { AcmeProps } from '../../../src/constructs/server/acme-updates.ts';
import { DnsStack, type DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { loadServerSettings } from '../../../src/runtime/dns-server/server-settings.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { podSpec, serverConfig, type Json } from './server-objects.ts';

const ACME: AcmeProps = {
  keySecret: { name: 'acme-keys', key: 'update.key' },
  keys: [
    { name: 'acme-prod', suffixes: ['example.org'] },
    { name: 'acme-lab', suffixes: ['lab.example.org'], names: 'any', updatesPerMinute: 20 },
  ],
  leaseSeconds: 900,
};
const base: DnsStackProps = { zones: [{ name: 'example.org' }], server: { acme: ACME } };

test("server.acme renders the config's update, which the server's loader accepts", () => {
  const config = serverConfig(synthObjects(base) as Json[], 'internal');
  assert.deepEqual(config.update, {
    keyFile: '/etc/etcdns/tsig/acme-keys/update.key',
    keys: ACME.keys,
    leaseSeconds: 900,
  });
  // The server's own loader accepts the file and reads the same settings.
  const file = join(tempDir('acme-config'), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  assert.deepEqual(loadServerSettings(['--config', file], {}).config.update, config.update);
});

test('the Secret is mounted once, read-only, with only its key; shared with the transfer keys, still once', () => {
  for (const transferSecret of ['acme-keys', 'xfr-corp']) {
    const props: DnsStackProps = {
      ...base,
      server: {
        acme: ACME,
        transfer: { allowCidrs: ['192.0.2.53/32'], keySecret: { name: transferSecret, key: 'tsig.key' } },
      },
    };
    const pod = podSpec(synthObjects(props) as Json[], 'internal');
    const volume = pod.volumes.find((v: Json) => v.secret?.secretName === 'acme-keys');
    const keys = transferSecret === 'acme-keys' ? ['tsig.key', 'update.key'] : ['update.key'];
    assert.deepEqual(
      volume.secret.items.map((i: Json) => i.key),
      keys,
    );
    assert.equal(pod.volumes.filter((v: Json) => v.secret?.secretName === 'acme-keys').length, 1);
    const mount = pod.containers[0].volumeMounts.find((m: Json) => m.name === volume.name);
    assert.deepEqual(mount, { name: volume.name, mountPath: '/etc/etcdns/tsig/acme-keys', readOnly: true });
  }
});

test("with acme the servers' etcd users may write their view's prefix; without, read only", () => {
  const grants = (props: DnsStackProps) => {
    const objects = synthObjects({ ...props, etcdRoles: { passwordSecret: 'etcd-users' } }) as Json[];
    const job = objects.find((o) => o.kind === 'Job' && o.metadata.name.includes('etcd-roles'))!;
    const args: string[] = job.spec.template.spec.containers[0].args;
    return args.filter((_, i) => args[i - 1] === '--grant');
  };
  assert.deepEqual(grants(base), ['etcdns-controller=readwrite:/skydns/', 'etcdns-server-internal=readwrite:/skydns/']);
  assert.deepEqual(grants({ zones: base.zones }), [
    'etcdns-controller=readwrite:/skydns/',
    'etcdns-server-internal=read:/skydns/',
  ]);
});

// [what, acme, the field the error names]
const BAD: [string, unknown, string][] = [
  [
    'a suffix in no zone',
    { ...ACME, keys: [{ name: 'a', suffixes: ['example.net'] }] },
    'server.acme.keys[0].suffixes[0]',
  ],
  ['a key file instead of a Secret', { ...ACME, keyFile: '/x' }, 'server.acme.keyFile: not a prop'],
  ['no Secret', { keys: ACME.keys }, 'server.acme.keySecret: required'],
  ['a Secret name that is none', { ...ACME, keySecret: { name: 'Not_A_Name' } }, 'server.acme.keySecret.name'],
  [
    'names neither scope',
    { ...ACME, keys: [{ name: 'a', suffixes: ['example.org'], names: 'all' }] },
    'server.acme.keys[0].names',
  ],
  ['a lease of 1 second', { ...ACME, leaseSeconds: 1 }, 'server.acme.leaseSeconds'],
  ['no keys', { ...ACME, keys: [] }, 'server.acme.keys'],
  ['keys not a list', { ...ACME, keys: 'acme' }, 'server.acme.keys'],
  [
    'a rate of 0',
    { ...ACME, keys: [{ name: 'a', suffixes: ['example.org'], updatesPerMinute: 0 }] },
    'server.acme.keys[0].updatesPerMinute',
  ],
];
for (const [what, acme, message] of BAD)
  test(`refused: ${what}`, () => {
    assert.throws(
      () =>
        new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', {
          ...base,
          server: { acme: acme as AcmeProps },
        }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });
