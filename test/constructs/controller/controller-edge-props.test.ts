// The props of the edge sources (sources.openshiftRouterName, excludeUnschedulable,
// exposeInternalIpv6, podSourceDomain, ignoreNonHostNetworkPods): synth puts them in the
// controller's config, which the controller's own loader accepts with the same meaning; a mistake
// fails synth naming the field (one test per row).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '../../../src/config/config-error.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';
import { sourceOptions } from '../../../src/runtime/controller/sources/source-options.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = mkdtempSync(join(tmpdir(), 'etcdns-edge-props-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const base: DnsStackProps = { zones: [{ name: 'example.org' }] };
const podEnv = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'dns' };

function loadedOptions(sources: NonNullable<DnsStackProps['sources']>) {
  const configMap = (synthObjects({ ...base, sources }) as Json[]).find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-controller',
  )!;
  const file = join(dir, 'controller.json');
  writeFileSync(file, configMap.data['config.json']);
  return sourceOptions(parseControllerOptions(['--config', file], podEnv).config);
}

test('the edge props reach the sources as loaded config', () => {
  const options = loadedOptions({
    kinds: ['openshift-route', 'node', 'pod'],
    openshiftRouterName: 'internal',
    excludeUnschedulable: false,
    exposeInternalIpv6: true,
    podSourceDomain: 'pods.example.org',
    ignoreNonHostNetworkPods: true,
  });
  assert.deepEqual(
    { router: options.openshiftRouterName, node: options.node, pod: options.pod },
    {
      router: 'internal',
      node: { excludeUnschedulable: false, exposeInternalIpv6: true },
      pod: { sourceDomain: 'pods.example.org', ignoreNonHostNetwork: true },
    },
  );
});

test("unset, they are external-dns v0.22's defaults", () => {
  const options = loadedOptions({ kinds: ['node', 'pod'] });
  assert.deepEqual(
    { router: options.openshiftRouterName, node: options.node, pod: options.pod },
    {
      router: undefined,
      node: { excludeUnschedulable: true, exposeInternalIpv6: false },
      pod: { ignoreNonHostNetwork: false },
    },
  );
});

const rejected: [string, NonNullable<DnsStackProps['sources']>, string][] = [
  ['a router name that is no object name', { openshiftRouterName: 'Not A Name' }, 'sources.openshiftRouterName'],
  ['a pod source domain that is no domain', { podSourceDomain: 'bad_domain!' }, 'sources.podSourceDomain'],
  [
    'excludeUnschedulable not a boolean',
    { excludeUnschedulable: 'yes' as unknown as boolean },
    'sources.excludeUnschedulable',
  ],
  ['exposeInternalIpv6 not a boolean', { exposeInternalIpv6: 1 as unknown as boolean }, 'sources.exposeInternalIpv6'],
  [
    'ignoreNonHostNetworkPods not a boolean',
    { ignoreNonHostNetworkPods: 'true' as unknown as boolean },
    'sources.ignoreNonHostNetworkPods',
  ],
];
for (const [what, sources, field] of rejected) {
  test(`rejected: ${what}`, () => {
    assert.throws(
      () => synthObjects({ ...base, sources }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
        assert.ok(
          error.problems.some((p) => p.startsWith(`${field}: `)),
          `a problem naming ${field}, got:\n${error.message}`,
        );
        return true;
      },
    );
  });
}
