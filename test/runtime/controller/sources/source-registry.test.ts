// One row per source (src/config/source-kinds.ts, and its runtime half in
// sources/source-registry.ts); everything else derives from it. For every source, each place that
// must know it is checked against its row: the informers, the RBAC, the change handlers of what
// it reads, the planner, the views' rule kinds, the config's allowed values and --help. A source
// added to the registry and missing in any of them fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import * as v from 'valibot';
import {
  READ_KINDS,
  RULE_KINDS,
  SOURCE_KINDS,
  objectsOf,
  readsOf,
  sourceSpec,
  type ApiResource,
  type ClusterKind,
  type SourceSwitches,
} from '../../../../src/config/source-kinds.ts';
import { sourceKinds } from '../../../../src/config/controller-config.ts';
import { viewsSchema } from '../../../../src/config/view-config.ts';
import { controllerClusterRules } from '../../../../src/constructs/controller/controller-rbac.ts';
import { controllerUsage } from '../../../../src/runtime/controller/controller-options.ts';
import { IncrementalPlanner } from '../../../../src/runtime/controller/incremental/incremental-planner.ts';
import { ClusterCache } from '../../../../src/runtime/controller/kube/cluster-cache.ts';
import { KubeClient } from '../../../../src/runtime/kube/kube-client.ts';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { SOURCE_RUNTIMES } from '../../../../src/runtime/controller/sources/source-registry.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';

/** Each source at its widest. */
const ALL_ON: Required<SourceSwitches> = {
  gatewayListenerSets: true,
  traefikEnableLegacy: true,
  traefikDisableNew: false,
  traefikService: 'kube-system/traefik',
  unstructuredResources: ['configmaps.v1'],
};

const api = (r: ApiResource) => `${r.resource}.${r.group || 'core'}`;

/** What a source lists: its objects, then what it reads (as the row says, every switch on). */
function rowKinds(source: (typeof SOURCE_KINDS)[number]): Map<ClusterKind, ApiResource> {
  return new Map<ClusterKind, ApiResource>([
    ...objectsOf(source, ALL_ON).map((o) => [o.kind as ClusterKind, o.api] as const),
    ...readsOf(source, ALL_ON).map((k) => [k, READ_KINDS[k]] as const),
  ]);
}

test('object kinds are unique across sources, and a kind read by one source and listed by another is one API', () => {
  const seen = new Map<string, ApiResource>(Object.entries(READ_KINDS));
  const owners = new Set<string>();
  for (const source of SOURCE_KINDS)
    for (const o of sourceSpec(source).objects) {
      assert.ok(!owners.has(o.kind), `${o.kind} listed by two sources`);
      owners.add(o.kind);
      if (seen.has(o.kind)) assert.deepEqual(o.api, seen.get(o.kind), `${o.kind}: one API wherever it is named`);
    }
});

for (const source of SOURCE_KINDS) {
  test(`${source}: a runtime whose change handlers are exactly the kinds its row reads`, () => {
    const runtime = SOURCE_RUNTIMES[source];
    assert.equal(typeof runtime?.records, 'function');
    const reads = sourceSpec(source).reads.map((r) => r.kind);
    assert.deepEqual(Object.keys(runtime.changes ?? {}).sort(), [...reads].sort());
  });

  test(`${source}: one informer for each kind its row lists and reads`, () => {
    const client = new KubeClient({ server: 'http://127.0.0.1:1', insecureSkipTlsVerify: false, source: 'test' });
    const cache = new ClusterCache(client, {
      sources: [source],
      switches: ALL_ON,
      onChange: () => undefined,
      log: createLogger('error', {}, () => undefined),
    });
    try {
      assert.deepEqual(
        cache.servedState().map((s) => s.kind),
        [...rowKinds(source).keys()],
      );
    } finally {
      cache.stop();
      client.close();
    }
  });

  test(`${source}: the ClusterRole reads exactly what its informers list`, () => {
    const rules = controllerClusterRules([source], ALL_ON);
    const granted = rules
      .filter((r) => r.verbs.join() === 'get,list,watch')
      .flatMap((r) => r.resources!.map((res) => `${res}.${r.apiGroups![0] || 'core'}`));
    assert.deepEqual(granted.sort(), [...rowKinds(source).values()].map(api).sort());
    const status = rules.filter((r) => r.resources!.some((res) => res.endsWith('/status')));
    assert.equal(status.length, sourceSpec(source).writesStatus ? sourceSpec(source).objects.length : 0);
  });

  test(`${source}: the planner reads each of its object kinds`, () => {
    const asked = new Set<string>();
    const planner = new IncrementalPlanner(
      [],
      sourceOptions({ sources: [source], ...ALL_ON, unstructuredResources: [...ALL_ON.unstructuredResources] }),
      { ownerId: 'me', policy: 'sync' },
    );
    planner.rebuild({
      objects: (kind) => (asked.add(kind), [] as KubernetesObject[]),
      object: () => undefined,
      endpointSlices: () => [],
      unseenResources: () => new Set(),
    });
    for (const o of objectsOf(source, ALL_ON)) assert.ok(asked.has(o.kind), `planner lists ${o.kind}`);
  });

  test(`${source}: views' rules and the config accept it, --help names it`, () => {
    assert.ok(v.safeParse(sourceKinds, [source]).success, 'config accepts the source name');
    assert.match(controllerUsage('controller'), new RegExp(`\\b${source}\\b`));
    for (const o of sourceSpec(source).objects) {
      const kind = o.kubernetesKind ?? o.kind;
      assert.ok(RULE_KINDS.includes(kind.toLowerCase()));
      const views = [
        {
          name: 'internal',
          prefix: '/skydns',
          rules: [{ name: 'x', match: { kinds: [kind.toLowerCase()] }, action: { keep: true } }],
        },
      ];
      const parsed = v.safeParse(viewsSchema, views);
      assert.ok(parsed.success, `a view rule may name ${kind.toLowerCase()}: ${JSON.stringify(parsed.issues)}`);
    }
  });
}
