// The controller's configuration: flags > environment > file, and errors that name the field.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseControllerOptions } from '../../src/runtime/controller/controller-options.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../support/tools.ts';

const base = ['--etcd', 'http://127.0.0.1:2379', '--owner-id', 'me'];

test('defaults', () => {
  const { config, once, dryRun } = parseControllerOptions(base, {});
  assert.deepEqual(config, {
    etcd: { endpoints: ['http://127.0.0.1:2379'] },
    ownerId: 'me',
    prefix: '/skydns',
    sources: ['service', 'ingress'],
    policy: 'sync',
    resyncSeconds: 300,
    debounceMs: 5,
    httpListen: '0.0.0.0:8080',
    logLevel: 'info',
  });
  assert.deepEqual([once, dryRun], [false, false]);
});

test('flags beat environment, environment beats the file; lists repeat and split on commas', () => {
  const file = join(tmpdir(), `controller-config-${process.pid}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      etcd: { endpoints: ['http://file:2379'] },
      ownerId: 'from-file',
      policy: 'create-only',
      prefix: '/file',
      resyncSeconds: 60,
    }),
  );
  const { config, once, dryRun } = parseControllerOptions(
    [
      '--config',
      file,
      '--policy=upsert-only',
      '--domain-filter',
      'a.example.org,b.example.org',
      '--domain-filter',
      'c.example.org',
      '--once',
      '--dry-run',
      '--leader-elect',
      '--leader-election-namespace',
      'dns',
    ],
    { ETCDNS_POLICY: 'sync', ETCDNS_PREFIX: '/env/', ETCDNS_OWNER_ID: 'from-env', POD_NAME: 'pod-1' },
  );
  assert.equal(config.policy, 'upsert-only');
  assert.equal(config.prefix, '/env');
  assert.equal(config.ownerId, 'from-env');
  assert.equal(config.resyncSeconds, 60);
  assert.deepEqual(config.etcd.endpoints, ['http://file:2379']);
  assert.deepEqual(config.domainFilter, ['a.example.org', 'b.example.org', 'c.example.org']);
  assert.equal(config.leaderElection?.enabled, true);
  assert.equal(config.leaderElection?.namespace, 'dns');
  assert.equal(config.leaderElection?.leaseName, 'etcdns-controller');
  assert.deepEqual([once, dryRun], [true, true]);
});

const bad: [string, string[], Record<string, string>, RegExp][] = [
  ['no etcd', ['--owner-id', 'me'], {}, /config field "etcd\.endpoints": at least one/],
  [
    'etcd not a URL',
    ['--etcd', 'localhost:2379', '--owner-id', 'me'],
    {},
    /"etcd\.endpoints": "localhost:2379" is not/,
  ],
  ['no owner', ['--etcd', 'http://e:1'], {}, /"ownerId": required/],
  ['owner with quotes', ['--etcd', 'http://e:1', '--owner-id', 'a"b'], {}, /"ownerId": "a"b" may contain only/],
  [
    'policy',
    [...base, '--policy', 'delete-all'],
    {},
    /"policy": "delete-all" is not one of sync, upsert-only, create-only/,
  ],
  ['source', [...base, '--source', 'pod'], {}, /"sources": \["pod"\]/],
  ['domain', [...base, '--domain-filter', 'bad..org'], {}, /"domainFilter": "bad\.\.org" has an empty label/],
  ['selector', [...base, '--label-selector', 'app in web'], {}, /"labelSelector": "app in web" is not a selector/],
  [
    'resync from env',
    base,
    { ETCDNS_RESYNC_SECONDS: 'soon' },
    /"resyncSeconds" \(ETCDNS_RESYNC_SECONDS\): "soon" is not a whole number/,
  ],
  [
    'bool',
    [...base, '--publish-cluster-ip=maybe'],
    {},
    /"publishClusterIp" \(--publish-cluster-ip\): "maybe" is not true or false/,
  ],
  ['http listen', [...base, '--http-listen', '8080'], {}, /"httpListen": "8080" is not host:port/],
  ['lease namespace', [...base, '--leader-elect'], {}, /"leaderElection\.namespace": required/],
  ['unknown flag', [...base, '--zone', 'x'], {}, /unknown flag --zone/],
  ['missing value', [...base, '--prefix'], {}, /--prefix needs a value \(config field "prefix"\)/],
];
for (const [name, args, env, error] of bad) {
  test(`bad config fails naming the field: ${name}`, () => {
    assert.throws(() => parseControllerOptions(args, env), error);
  });
}

test('a bad config file names the file', () => {
  const file = join(tmpdir(), `controller-bad-${process.pid}.json`);
  writeFileSync(file, '{"ownerId": ');
  assert.throws(() => parseControllerOptions(['--config', file], {}), new RegExp(`--config ${file}: `));
  writeFileSync(file, JSON.stringify({ etcd: { endpoints: ['http://e:1'] }, ownerId: 'me', resyncSeconds: '5' }));
  assert.throws(() => parseControllerOptions(['--config', file], {}), /"resyncSeconds": "5" must be a whole number/);
});

test('leader election takes the pod identity from the environment it is given', () => {
  const env = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'etcdns' };
  const { config } = parseControllerOptions([...base, '--leader-elect'], env);
  assert.equal(config.leaderElection?.identity, 'etcdns-controller-7d9f-abcde');
  assert.equal(config.leaderElection?.namespace, 'etcdns');
  assert.throws(() => parseControllerOptions([...base, '--leader-elect'], {}), /leaderElection\.namespace/);
});

test('the commands refuse a bad flag or an unusable kubeconfig in one line naming it, exit code 2', () => {
  const dir = tempDir('bad-kubeconfig');
  writeFileSync(join(dir, 'config'), 'current-context: gone\n');
  const run = (args: string[]) => spawnSync(nodeBin, [etcdnsBin, ...args], { encoding: 'utf8', timeout: 20_000 });
  const common = ['--etcd', 'http://127.0.0.1:1', '--owner-id', 't'];
  for (const [args, message] of [
    [['controller', ...common, '--policy', 'nope'], /^etcdns controller: .*policy.*nope/],
    [
      ['controller', ...common, '--kubeconfig', join(dir, 'config')],
      /^etcdns controller: .*config: contexts has no entry named "gone"\n$/,
    ],
    [
      ['plan', ...common, '--kubeconfig', join(dir, 'missing')],
      /^etcdns plan: cannot read kubeconfig .*missing: ENOENT\n$/,
    ],
  ] as const) {
    const r = run([...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
