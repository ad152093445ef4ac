// Split horizon in the constructs: one DnsServer (ConfigMap, Deployment, Service) per view, each
// serving the prefix the controller writes for that view; an external view never forwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';
import { controllerViews } from '../../../src/runtime/controller/views/controller-views.ts';
import { parseConfig } from '../../../src/config/schema-problems.ts';
import { serverConfigSchema } from '../../../src/config/server-config.ts';
import { ENVIRONMENTS } from '../../../src/environments/index.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const dir = tempDir('views-stack');
const configOf = (list: Json[], name: string) =>
  JSON.parse(list.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)!.data['config.json']) as Json;

/**
 * The controller container's environment as its pod sees it: literal values, and the downward API's
 * fieldRefs resolved against a pod of the Deployment (its namespace is the Deployment's).
 */
function podEnv(list: Json[]): NodeJS.ProcessEnv {
  const deployment = list.find((o) => o.kind === 'Deployment' && o.metadata.name === 'etcdns-controller')!;
  const pod: Json = { metadata: { name: 'etcdns-controller-7d9f-abcde', namespace: deployment.metadata.namespace } };
  const env: NodeJS.ProcessEnv = {};
  for (const item of deployment.spec.template.spec.containers[0].env ?? []) {
    const fieldPath = item.valueFrom?.fieldRef?.fieldPath as string | undefined;
    env[item.name] = fieldPath ? fieldPath.split('.').reduce((at: Json, key) => at?.[key], pod) : item.value;
  }
  return env;
}

/** The controller's views as the controller itself loads them from the synthesized ConfigMap, in its pod. */
function loadedViews(list: Json[]) {
  const file = join(dir, `controller-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(configOf(list, 'etcdns-controller')));
  return controllerViews(parseControllerOptions(['--config', file], podEnv(list)).config);
}

test('prod: every view has its own server and Service, serving the prefix the controller writes', () => {
  const list = synthObjects(ENVIRONMENTS.prod!) as Json[];
  const views = loadedViews(list);
  assert.deepEqual(
    views.map((v) => [v.name, v.prefix, v.exposure]),
    [
      ['internal', '/skydns', 'internal'],
      ['external', '/skydns-external', 'external'],
    ],
  );
  const addresses = new Set<string>();
  for (const view of views) {
    const server = parseConfig(serverConfigSchema, configOf(list, `etcdns-server-${view.name}`));
    assert.equal(server.prefix, view.prefix, view.name);
    assert.equal(server.exposure === 'external', view.exposure === 'external', view.name);
    const service = list.find((o) => o.kind === 'Service' && o.metadata.name === `etcdns-server-${view.name}`)!;
    assert.equal(service.spec.selector['app.kubernetes.io/component'], `server-${view.name}`);
    addresses.add(service.metadata.annotations['metallb.universe.tf/loadBalancerIPs']);
  }
  assert.equal(addresses.size, 2, 'each view is reached at its own load-balancer address');
  const external = views.find((v) => v.name === 'external')!;
  assert.equal(external.selection.mode, 'opt-in');
  assert.deepEqual(external.rules[0]!.action, { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } });
});

test('forwarding is rendered for internal views only', () => {
  const props: DnsStackProps = {
    ...ENVIRONMENTS.dev!,
    server: { forward: { upstreams: ['192.0.2.53'], clientCidrs: ['10.0.0.0/8'] } },
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
  };
  const list = synthObjects(props) as Json[];
  assert.deepEqual(configOf(list, 'etcdns-server-internal').forward, props.server!.forward);
  const external = configOf(list, 'etcdns-server-external');
  assert.equal(external.forward, undefined);
  assert.equal(external.exposure, 'external');
  assert.equal(parseConfig(serverConfigSchema, external).exposure, 'external');
});

test('one plain view keeps the controller config of today (prefix, no views)', () => {
  const config = configOf(synthObjects(ENVIRONMENTS.dev!) as Json[], 'etcdns-controller');
  assert.equal(config.prefix, '/skydns');
  assert.equal(config.views, undefined);
});

test('a bad view fails synth naming the field', () => {
  assert.throws(
    () =>
      synthObjects({
        ...ENVIRONMENTS.dev!,
        views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns/external', exposure: 'external' }],
      }),
    /views\[1\]\.prefix: "\/skydns\/external" overlaps "\/skydns"/,
  );
});
