// The configs synth renders into ConfigMaps, with the container arguments of the Deployments,
// are accepted by the DNS server's and the controller's own loaders (the code that reads them in
// the pod), and mean what the props said.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../src/environments/index.ts';
import { parseControllerOptions } from '../../src/runtime/controller/controller-options.ts';
import { loadServerSettings } from '../../src/runtime/dns-server/server-settings.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = mkdtempSync(join(tmpdir(), 'etcdns-runtime-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The container's arguments (after the subcommand) with the mounted config file placed on disk. */
function podCommand(props: DnsStackProps, name: string, env: string): { subcommand: string; args: string[] } {
  const objects = synthObjects(props) as Json[];
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)!;
  const file = join(dir, `${env}-${name}.json`);
  writeFileSync(file, configMap.data['config.json']);
  const [subcommand, ...args] = deployment.spec.template.spec.containers[0].args as string[];
  const at = args.indexOf('--config');
  assert.ok(at >= 0 && args[at + 1] === '/etc/etcdns/config.json', 'the config file is passed with --config');
  args[at + 1] = file;
  return { subcommand: subcommand!, args };
}

// A namespace other than the synthesized one, as after a kustomize namespace overlay.
const podEnv = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'other-ns' };

for (const [env, props] of Object.entries(ENVIRONMENTS)) {
  test(`${env}: the DNS server loads its synthesized config`, () => {
    const { subcommand, args } = podCommand(props, 'etcdns-server-internal', env);
    assert.equal(subcommand, 'server');
    const { config } = loadServerSettings(args, {});
    assert.deepEqual(
      config.zones.map((z) => z.name.replace(/\.$/, '')),
      props.zones.map((z) => z.name),
    );
    assert.equal(config.prefix, '/skydns');
    const dual = props.server?.service?.ipFamilyPolicy === 'PreferDualStack';
    assert.deepEqual(config.listen, { host: dual ? '::' : '0.0.0.0', port: 5353 });
    assert.deepEqual(config.etcd.endpoints, [`${props.etcd?.tls ? 'https' : 'http'}://etcdns-etcd:2379`]);
    assert.equal(config.etcd.tls?.caFile, props.etcd?.tls ? '/etc/etcdns/etcd-tls/ca.crt' : undefined);
  });

  test(`${env}: the controller loads its synthesized config`, () => {
    const { subcommand, args } = podCommand(props, 'etcdns-controller', env);
    assert.equal(subcommand, 'controller');
    const { config } = parseControllerOptions(args, podEnv);
    assert.equal(config.ownerId, props.ownership?.ownerId);
    assert.equal(config.prefix, '/skydns');
    assert.deepEqual(config.sources, [...(props.sources?.kinds ?? [])].sort());
    const elected = (props.controller?.replicas ?? 1) > 1;
    assert.equal(config.leaderElection?.enabled ?? false, elected);
    if (elected) {
      assert.equal(config.leaderElection?.namespace, 'other-ns', "the pod's own namespace");
      assert.equal(config.leaderElection?.leaseName, 'etcdns-controller');
    }
  });
}

test('etcd authentication: the password file from the Secret reference reaches both loaders', () => {
  const props: DnsStackProps = {
    zones: [{ name: 'example.org' }],
    etcd: { replicas: 1, auth: { username: 'dns', password: { name: 'etcd-credentials', key: 'password' } } },
  };
  const server = loadServerSettings(podCommand(props, 'etcdns-server-internal', 'auth').args, {}).config;
  assert.deepEqual(server.etcd.auth, { username: 'dns', passwordFile: '/etc/etcdns/etcd-auth/password' });
  const controller = parseControllerOptions(podCommand(props, 'etcdns-controller', 'auth').args, podEnv).config;
  assert.deepEqual(controller.etcd.auth, { username: 'dns', passwordFile: '/etc/etcdns/etcd-auth/password' });
});

test("identity: the prop reaches the server's loader; absent, the config says nothing (the server takes its pod's name)", () => {
  const identity = { name: 'dns-a', enabled: true, version: true };
  const given: DnsStackProps = { zones: [{ name: 'example.org' }], server: { identity } };
  assert.deepEqual(
    loadServerSettings(podCommand(given, 'etcdns-server-internal', 'id').args, {}).config.identity,
    identity,
  );
  const absent: DnsStackProps = { zones: [{ name: 'example.org' }] };
  assert.equal(
    loadServerSettings(podCommand(absent, 'etcdns-server-internal', 'noid').args, {}).config.identity,
    undefined,
  );
});

test("a view's allowQueryFrom reaches its server's loader, and only that view's", () => {
  const props: DnsStackProps = {
    zones: [{ name: 'example.org' }],
    views: [
      { name: 'internal', allowQueryFrom: ['10.0.0.0/8', 'fd00::/8'] },
      { name: 'external', prefix: '/external', exposure: 'external' },
    ],
  };
  const internal = loadServerSettings(podCommand(props, 'etcdns-server-internal', 'acl').args, {}).config;
  assert.deepEqual(internal.allowQueryFrom, ['10.0.0.0/8', 'fd00::/8']);
  const external = loadServerSettings(podCommand(props, 'etcdns-server-external', 'acl').args, {}).config;
  assert.equal(external.allowQueryFrom, undefined);
});

test("answerOrder: the server's reaches every view's loader, a view's own fields replace it there; absent, none", () => {
  const props: DnsStackProps = {
    zones: [{ name: 'example.org' }],
    server: { answerOrder: { rotation: 'round-robin' } },
    views: [
      { name: 'internal', answerOrder: { prefer: ['10.1.0.0/16', '10.2.0.0/16'] } },
      { name: 'external', prefix: '/external', exposure: 'external' },
    ],
  };
  const config = (p: DnsStackProps, view: string) =>
    loadServerSettings(podCommand(p, `etcdns-server-${view}`, 'order').args, {}).config.answerOrder;
  assert.deepEqual(config(props, 'internal'), { rotation: 'round-robin', prefer: ['10.1.0.0/16', '10.2.0.0/16'] });
  assert.deepEqual(config(props, 'external'), { rotation: 'round-robin' });
  assert.equal(config({ zones: [{ name: 'example.org' }] }, 'internal'), undefined);
});

test("catalog: the server's reaches every view's loader with transfer, a view's own replaces it there; absent, none", () => {
  const transfer = { allowCidrs: ['192.0.2.53/32'], notify: ['192.0.2.53'] };
  const props: DnsStackProps = {
    zones: [{ name: 'example.org' }],
    server: { transfer, catalog: { zone: 'catalog.etcdns.invalid.' } },
    views: [
      { name: 'internal' },
      { name: 'external', prefix: '/external', exposure: 'external', catalog: { zone: 'external.catalog.invalid.' } },
    ],
  };
  const config = (p: DnsStackProps, view: string) =>
    loadServerSettings(podCommand(p, `etcdns-server-${view}`, 'catalog').args, {}).config;
  assert.deepEqual(config(props, 'internal').catalog, { zone: 'catalog.etcdns.invalid.' });
  assert.deepEqual(config(props, 'external').catalog, { zone: 'external.catalog.invalid.' });
  assert.deepEqual(config(props, 'external').transfer?.allowCidrs, transfer.allowCidrs);
  assert.equal(config({ zones: [{ name: 'example.org' }] }, 'internal').catalog, undefined);
});
