// Proof against the real kube-apiserver: every committed object of every example environment
// is accepted (server-side dry-run apply, every field kept; dev also for real, twice, and once
// more moved into another namespace by a kustomize overlay), namespaces match the API's own
// discovery, every workload's pod passes Pod Security "restricted" (also with zone transfers'
// key Secrets mounted), and the controller's
// synthesized RBAC is sufficient and minimal when acting as its ServiceAccount with a real token.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENT_FILES, ENVIRONMENTS, SPOKE_ENVIRONMENTS } from '../../src/environments/index.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../support/process.ts';
import { notKept, serverSideApply } from '../support/server-side-apply.ts';
import { renderWithNamespace } from './kustomize-overlay.ts';

const FIELD_MANAGER = 'etcdns-test';
const dist = join(import.meta.dirname, '../../dist');
// The synthesized JSON, loosely typed for inspection.
type Obj = k8s.KubernetesObject & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What users apply: the committed files of one environment (dist-drift.test.ts ties them to the code). */
function distObjects(env: string): Obj[] {
  return readdirSync(join(dist, env))
    .filter((f) => f !== 'kustomization.yaml')
    .sort()
    .flatMap((f) => loadAll(readFileSync(join(dist, env, f), 'utf8')) as Obj[]);
}
const id = (o: Obj) => `${o.kind}/${o.metadata?.name}`;
const code = (e: unknown) =>
  (e as { code?: number; statusCode?: number }).code ?? (e as { statusCode?: number }).statusCode;

/** KubernetesObjectApi with its API discovery opened up: is a kind namespaced? */
class ObjectApi extends k8s.KubernetesObjectApi {
  async namespaced(apiVersion: string, kind: string): Promise<boolean | undefined> {
    return (await this.resource(apiVersion, kind))?.namespaced;
  }
}

let kube: KubeHandle;
let api: ObjectApi;
before(async () => {
  kube = await startKubeApiserver();
  api = kube.admin.makeApiClient(ObjectApi);
});
after(stopAll);

/** Server-side apply; the API must keep every field we set (it drops unknown or misspelled ones). */
async function apply(object: Obj, dryRun: boolean): Promise<Obj> {
  let stored: Obj;
  try {
    // Not KubernetesObjectApi.patch: its typed models drop a plain object's NetworkPolicy `from`
    // (kustomize's output is plain JSON), see test/support/server-side-apply.ts.
    stored = (await serverSideApply(kube.admin, object, { dryRun, fieldManager: FIELD_MANAGER })) as Obj;
  } catch (error) {
    const reason = (error as { body?: unknown }).body ?? (error as Error).message;
    throw new Error(`${dryRun ? 'dry-run ' : ''}apply of ${id(object)} failed: ${JSON.stringify(reason)}`, {
      cause: error,
    });
  }
  assert.deepEqual(notKept(object, JSON.parse(JSON.stringify(stored))), [], `${id(object)}: every field kept`);
  return stored;
}

/**
 * Watches `path` from `resourceVersion` as an informer does after its list, runs `touch` once the
 * watch is open, and resolves with the first event; rejects with the API's refusal.
 */
async function watchEvent(
  config: k8s.KubeConfig,
  path: string,
  resourceVersion?: string,
  touch: () => Promise<unknown> = async () => undefined,
): Promise<string> {
  let abort: AbortController | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no event on ${path} within 10 s`)), 10_000);
      new k8s.Watch(config)
        .watch(
          path,
          resourceVersion ? { resourceVersion } : {},
          (phase, object) => {
            clearTimeout(timer);
            if (phase === 'ERROR') reject(new Error(`watch ${path}: ${JSON.stringify(object)}`));
            else resolve(phase);
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err ?? new Error(`watch on ${path} ended`));
          },
        )
        .then((controller) => {
          abort = controller;
          touch().catch(reject);
        }, reject);
    });
  } finally {
    abort?.abort();
  }
}

test('the controller RBAC: sufficient and minimal, acting as its ServiceAccount', async () => {
  // Only the synthesized RBAC (and the ServiceAccount and Namespace it refers to) is applied.
  const rbacKinds = new Set([
    'Namespace',
    'ServiceAccount',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
  ]);
  const rbac = distObjects('prod').filter((o) => rbacKinds.has(o.kind!));
  assert.deepEqual(rbac.map(id).sort(), [
    'ClusterRole/etcdns-controller',
    'ClusterRoleBinding/etcdns-controller',
    'Namespace/etcdns',
    'Role/etcdns-controller',
    'Role/etcdns-etcd',
    // The DNS servers read their EndpointSlices (test/runtime/dns-server/shutdown-drain.e2e.test.ts).
    'Role/etcdns-server-external',
    'Role/etcdns-server-internal',
    'RoleBinding/etcdns-controller',
    'RoleBinding/etcdns-etcd',
    'RoleBinding/etcdns-server-external',
    'RoleBinding/etcdns-server-internal',
    'ServiceAccount/etcdns-controller',
    'ServiceAccount/etcdns-etcd',
    'ServiceAccount/etcdns-server-external',
    'ServiceAccount/etcdns-server-internal',
  ]);
  for (const object of rbac) await apply(object, false);

  // Something to see in every watched collection, created by the admin.
  const adminCore = kube.admin.makeApiClient(k8s.CoreV1Api);
  await adminCore.createNode({ body: { metadata: { name: 'node-1' } } });
  await adminCore.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name: 'web' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'web' } },
    },
  });
  await kube.admin.makeApiClient(k8s.DiscoveryV1Api).createNamespacedEndpointSlice({
    namespace: 'default',
    body: {
      metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [],
    },
  });
  await kube.admin.makeApiClient(k8s.NetworkingV1Api).createNamespacedIngress({
    namespace: 'default',
    body: { metadata: { name: 'web' }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
  });
  await adminCore.createNamespacedSecret({
    namespace: 'default',
    body: { metadata: { name: 'private' }, stringData: { a: 'b' } },
  });

  const sa = await kube.asServiceAccount('etcdns', 'etcdns-controller');
  const core = sa.makeApiClient(k8s.CoreV1Api);
  const discovery = sa.makeApiClient(k8s.DiscoveryV1Api);
  const networking = sa.makeApiClient(k8s.NetworkingV1Api);
  const coordination = sa.makeApiClient(k8s.CoordinationV1Api);

  // Sufficient: list and watch everything the controller reads, cluster-wide, as its informers
  // do (list, then watch from the list's resourceVersion; a change by the admin shows up).
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  const touchBody = () => ({ metadata: { labels: { touched: String(Date.now()) } } });
  const adminDiscovery = kube.admin.makeApiClient(k8s.DiscoveryV1Api);
  const adminNetworking = kube.admin.makeApiClient(k8s.NetworkingV1Api);
  const reads: [
    string,
    () => Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    string,
    () => Promise<unknown>,
  ][] = [
    [
      'services',
      () => core.listServiceForAllNamespaces(),
      '/api/v1/services',
      () => adminCore.patchNamespacedService({ name: 'web', namespace: 'default', body: touchBody() }, merge),
    ],
    [
      'nodes',
      () => core.listNode(),
      '/api/v1/nodes',
      () => adminCore.patchNode({ name: 'node-1', body: touchBody() }, merge),
    ],
    [
      'endpointslices',
      () => discovery.listEndpointSliceForAllNamespaces(),
      '/apis/discovery.k8s.io/v1/endpointslices',
      () =>
        adminDiscovery.patchNamespacedEndpointSlice({ name: 'web-1', namespace: 'default', body: touchBody() }, merge),
    ],
    [
      'ingresses',
      () => networking.listIngressForAllNamespaces(),
      '/apis/networking.k8s.io/v1/ingresses',
      () => adminNetworking.patchNamespacedIngress({ name: 'web', namespace: 'default', body: touchBody() }, merge),
    ],
  ];
  for (const [what, list, path, touch] of reads) {
    const listed = await list();
    assert.ok(listed.items.length > 0, `list ${what}`);
    assert.equal(await watchEvent(sa, path, listed.metadata?.resourceVersion, touch), 'MODIFIED', `watch ${what}`);
  }
  await core.readNamespacedService({ name: 'web', namespace: 'default' });
  // ... report Events about what it did ...
  const event = await core.createNamespacedEvent({
    namespace: 'default',
    body: {
      metadata: { name: 'web.published' },
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web', apiVersion: 'v1' },
      reason: 'Published',
      message: 'web.example.org -> 10.9.176.213',
      type: 'Normal',
      count: 1,
    },
  });
  await core.patchNamespacedEvent(
    { name: event.metadata!.name!, namespace: 'default', body: { count: 2 } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  // ... and hold its leader-election Lease in its own namespace.
  const lease = await coordination.createNamespacedLease({
    namespace: 'etcdns',
    body: {
      metadata: { name: 'etcdns-controller' },
      spec: { holderIdentity: 'etcdns-controller-0', leaseDurationSeconds: 15 },
    },
  });
  const held = await coordination.readNamespacedLease({ name: 'etcdns-controller', namespace: 'etcdns' });
  await coordination.replaceNamespacedLease({
    name: 'etcdns-controller',
    namespace: 'etcdns',
    body: { ...held, spec: { ...held.spec, holderIdentity: 'etcdns-controller-1' } },
  });
  assert.equal(lease.metadata?.name, 'etcdns-controller');

  // Minimal: no Secrets, no writes to what it watches, no other Leases, nothing else.
  const forbidden: [string, () => Promise<unknown>][] = [
    ['list secrets (all namespaces)', () => core.listSecretForAllNamespaces()],
    ['read a secret', () => core.readNamespacedSecret({ name: 'private', namespace: 'default' })],
    ['list secrets in its own namespace', () => core.listNamespacedSecret({ namespace: 'etcdns' })],
    [
      'create a service',
      () =>
        core.createNamespacedService({
          namespace: 'default',
          body: { metadata: { name: 'x' }, spec: { ports: [{ port: 1 }] } },
        }),
    ],
    [
      'patch a service',
      () =>
        core.patchNamespacedService(
          { name: 'web', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
    ],
    [
      'patch a service status',
      () =>
        core.patchNamespacedServiceStatus(
          { name: 'web', namespace: 'default', body: { status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
    ],
    ['delete a service', () => core.deleteNamespacedService({ name: 'web', namespace: 'default' })],
    ['delete an ingress', () => networking.deleteNamespacedIngress({ name: 'web', namespace: 'default' })],
    ['list configmaps', () => core.listConfigMapForAllNamespaces()],
    ['list pods', () => core.listPodForAllNamespaces()],
    ['read events', () => core.listNamespacedEvent({ namespace: 'default' })],
    ['delete an event', () => core.deleteNamespacedEvent({ name: 'web.published', namespace: 'default' })],
    ['read another lease', () => coordination.readNamespacedLease({ name: 'kube-scheduler', namespace: 'etcdns' })],
    [
      'create a lease elsewhere',
      () =>
        coordination.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'etcdns-controller' } } }),
    ],
    ['delete its lease', () => coordination.deleteNamespacedLease({ name: 'etcdns-controller', namespace: 'etcdns' })],
  ];
  for (const [what, call] of forbidden) await assert.rejects(call(), (e) => code(e) === 403, `forbidden: ${what}`);
  await assert.rejects(watchEvent(sa, '/api/v1/secrets'), (e) => code(e) === 403, 'forbidden: watch secrets');
});

test("etcd-member's leave sidecar may read its own StatefulSet's replicas and nothing else", async () => {
  // The RBAC objects are applied by the test above.
  const apps = (await kube.asServiceAccount('etcdns', 'etcdns-etcd')).makeApiClient(k8s.AppsV1Api);
  // Allowed: the get reaches the API server's own answer (no such StatefulSet applied here).
  await assert.rejects(
    apps.readNamespacedStatefulSet({ name: 'etcdns-etcd', namespace: 'etcdns' }),
    (e) => code(e) === 404,
  );
  for (const [what, call] of [
    ['another StatefulSet', () => apps.readNamespacedStatefulSet({ name: 'other', namespace: 'etcdns' })],
    ['a list', () => apps.listNamespacedStatefulSet({ namespace: 'etcdns' })],
    ['a change', () => apps.deleteNamespacedStatefulSet({ name: 'etcdns-etcd', namespace: 'etcdns' })],
  ] as const)
    await assert.rejects(call(), (e) => code(e) === 403, `forbidden: ${what}`);
});

test('every object of every environment passes server-side dry-run apply', async () => {
  const envs = Object.keys(ENVIRONMENT_FILES).sort();
  for (const env of envs) {
    const objects = distObjects(env);
    // An environment without a Namespace object relies on Argo CD's CreateNamespace.
    if (!objects.some((o) => o.kind === 'Namespace')) {
      const name = (ENVIRONMENTS[env] ?? SPOKE_ENVIRONMENTS[env])!.namespace!.name!;
      await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name } } });
    }
    for (const object of objects.filter((o) => o.kind === 'Namespace')) await apply(object, false);
    // CRDs the environment brings are applied first, as Flux does and Argo CD's sync waves do.
    for (const crd of objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
      await apply(crd, false);
      await established(crd.metadata!.name!);
    }
    for (const object of objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition')) {
      if (CRD_STAND_INS[object.kind!]) {
        // Without its CRD the API refuses it; the annotation lets Argo CD's first sync pass.
        await assert.rejects(apply(object, true), `${id(object)} needs its CRD`);
        assert.equal(
          object.metadata?.annotations?.['argocd.argoproj.io/sync-options'],
          'SkipDryRunOnMissingResource=true',
        );
      } else await apply(object, true);
    }
  }

  // With a CRD for each such kind (the fields we emit; the projects' own CRDs are not available
  // offline) those objects are accepted too.
  const crds = kube.admin.makeApiClient(k8s.ApiextensionsV1Api);
  for (const crd of Object.values(CRD_STAND_INS)) {
    await crds.createCustomResourceDefinition({ body: crd });
    await established(crd.metadata!.name!);
  }
  const custom = envs.flatMap((env) => distObjects(env).filter((o) => CRD_STAND_INS[o.kind!]));
  assert.deepEqual([...new Set(custom.map((o) => o.kind))].sort(), Object.keys(CRD_STAND_INS).sort());
  // Discovery of a new CRD takes a moment to reach the client.
  for (const object of custom) await waitFor(`dry-run of ${id(object)}`, () => apply(object, true), 10_000, 200);
});

/** Waits until the API server serves a CRD's kind. */
async function established(name: string): Promise<void> {
  const crds = kube.admin.makeApiClient(k8s.ApiextensionsV1Api);
  await waitFor(`CRD ${name} established`, async () => {
    const status = (await crds.readCustomResourceDefinition({ name })).status;
    return status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

test('namespaces are set on exactly the objects the API server says are namespaced', async () => {
  for (const env of Object.keys(ENVIRONMENT_FILES).sort())
    for (const object of distObjects(env)) {
      // Custom kinds: the scope of their CRD (a stand-in's, or the one the environment brings).
      const crd =
        CRD_STAND_INS[object.kind!] ??
        distObjects(env).find((o) => o.kind === 'CustomResourceDefinition' && o.spec.names.kind === object.kind);
      const namespaced = crd ? crd.spec.scope === 'Namespaced' : await api.namespaced(object.apiVersion!, object.kind!);
      assert.equal(typeof namespaced, 'boolean', `${id(object)} is served`);
      assert.equal(object.metadata?.namespace !== undefined, namespaced, `${env}: ${id(object)}`);
    }
});

test('dev applies for real; claim templates need no server defaults; a second apply changes nothing', async () => {
  // CRDs first and established, then everything else (Flux's order; Argo CD's sync waves).
  const objects = distObjects('dev').sort(
    (a, b) => Number(b.kind === 'CustomResourceDefinition') - Number(a.kind === 'CustomResourceDefinition'),
  );
  const first = new Map<string, string>();
  for (const object of objects) {
    first.set(id(object), (await apply(object, false)).metadata!.resourceVersion!);
    if (object.kind === 'CustomResourceDefinition') await established(object.metadata!.name!);
  }

  const statefulSet = objects.find((o) => o.kind === 'StatefulSet')!;
  const stored = await api.read<k8s.V1StatefulSet>({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: statefulSet.metadata!.name!, namespace: statefulSet.metadata!.namespace! },
  });
  const claim = stored.spec!.volumeClaimTemplates![0]!;
  const ours = statefulSet.spec.volumeClaimTemplates[0];
  assert.equal(claim.apiVersion, ours.apiVersion);
  assert.equal(claim.kind, ours.kind);
  assert.deepEqual(
    Object.keys(claim.spec!).sort(),
    Object.keys(ours.spec).sort(),
    'the server added nothing to the claim spec',
  );
  assert.equal(claim.spec!.volumeMode, 'Filesystem');

  for (const object of objects)
    assert.equal(
      (await apply(object, false)).metadata!.resourceVersion,
      first.get(id(object)),
      `${id(object)} unchanged`,
    );
});

/** A CRD stand-in: the group, kind and scope of the real one, a schema of the fields we emit. */
function crd(group: string, kind: string, spec: k8s.V1JSONSchemaProps): k8s.V1CustomResourceDefinition {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}
const str: k8s.V1JSONSchemaProps = { type: 'string' };
const strings: k8s.V1JSONSchemaProps = { type: 'array', items: str };

const CRD_STAND_INS: Record<string, k8s.V1CustomResourceDefinition> = {
  ServiceMonitor: crd('monitoring.coreos.com', 'ServiceMonitor', {
    type: 'object',
    required: ['selector', 'endpoints'],
    properties: {
      selector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: str } } },
      namespaceSelector: { type: 'object', properties: { matchNames: strings } },
      endpoints: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            port: str,
            path: str,
            interval: str,
            relabelings: {
              type: 'array',
              items: { type: 'object', properties: { sourceLabels: strings, targetLabel: str } },
            },
          },
        },
      },
    },
  }),
  PrometheusRule: crd('monitoring.coreos.com', 'PrometheusRule', {
    type: 'object',
    properties: {
      groups: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'rules'],
          properties: {
            name: str,
            rules: {
              type: 'array',
              items: {
                type: 'object',
                required: ['expr'],
                properties: {
                  alert: str,
                  expr: str,
                  for: str,
                  labels: { type: 'object', additionalProperties: str },
                  annotations: { type: 'object', additionalProperties: str },
                },
              },
            },
          },
        },
      },
    },
  }),
  ExternalSecret: crd('external-secrets.io', 'ExternalSecret', {
    type: 'object',
    required: ['secretStoreRef', 'target', 'data'],
    properties: {
      refreshInterval: str,
      secretStoreRef: { type: 'object', required: ['name'], properties: { name: str, kind: str } },
      target: { type: 'object', properties: { name: str, creationPolicy: str, deletionPolicy: str } },
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['secretKey', 'remoteRef'],
          properties: {
            secretKey: str,
            remoteRef: {
              type: 'object',
              required: ['key'],
              properties: {
                key: str,
                property: str,
                conversionStrategy: str,
                decodingStrategy: str,
                metadataPolicy: str,
              },
            },
          },
        },
      },
    },
  }),
  Certificate: crd('cert-manager.io', 'Certificate', {
    type: 'object',
    required: ['secretName', 'issuerRef'],
    properties: {
      secretName: str,
      commonName: str,
      dnsNames: strings,
      ipAddresses: strings,
      duration: str,
      renewBefore: str,
      usages: {
        type: 'array',
        items: { type: 'string', _enum: ['digital signature', 'key encipherment', 'server auth', 'client auth'] },
      },
      issuerRef: { type: 'object', required: ['name'], properties: { name: str, kind: str, group: str } },
      privateKey: {
        type: 'object',
        properties: {
          algorithm: { type: 'string', _enum: ['RSA', 'ECDSA', 'Ed25519'] },
          size: { type: 'integer' },
          rotationPolicy: { type: 'string', _enum: ['Never', 'Always'] },
        },
      },
    },
  }),
};

test("every pod the workloads create is admitted under Pod Security 'restricted'", async () => {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const namespace = 'etcdns';
  const labels = (await core.readNamespace({ name: namespace })).metadata?.labels ?? {};
  assert.equal(labels['pod-security.kubernetes.io/enforce'], 'restricted', 'the synthesized Namespace enforces it');
  // What the controller-manager (not running here) would have created.
  await core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'default' } } })
    .catch((e: unknown) => {
      if (code(e) !== 409) throw e;
    });
  await core
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'etcdns-controller' } } })
    .catch((e: unknown) => {
      if (code(e) !== 409) throw e;
    });
  const dryRunPod = (name: string, spec: k8s.V1PodSpec) =>
    core.createNamespacedPod({ namespace, dryRun: 'All', body: { metadata: { name }, spec } });

  await assert.rejects(
    dryRunPod('plain', { containers: [{ name: 'c', image: 'busybox:1' }] }),
    (e) => code(e) === 403 && JSON.stringify((e as { body?: unknown }).body).includes('violates PodSecurity'),
    'a pod without a restricted security context is refused: enforcement is on',
  );
  for (const env of Object.keys(ENVIRONMENT_FILES).sort())
    for (const workload of distObjects(env).filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')) {
      const spec = structuredClone(workload.spec.template.spec) as k8s.V1PodSpec;
      // The StatefulSet controller adds a volume per claim template.
      for (const claim of workload.spec.volumeClaimTemplates ?? [])
        (spec.volumes ??= []).push({
          name: claim.metadata.name,
          persistentVolumeClaim: { claimName: `${claim.metadata.name}-0` },
        });
      await dryRunPod(`${env}-${workload.metadata!.name}`, spec).catch((e: unknown) => {
        throw new Error(
          `${env}: a pod of ${id(workload)} is refused: ${JSON.stringify((e as { body?: unknown }).body)}`,
        );
      });
    }
});

test('a stack with zone transfers (server-wide, per zone, per view, key Secrets mounted) passes dry-run apply and Pod Security', async () => {
  const namespace = 'etcdns-transfers';
  const props: DnsStackProps = {
    namespace: { name: namespace },
    zones: [
      {
        name: 'example.org',
        transfer: { allowCidrs: ['198.51.100.7/32'], keySecret: { name: 'xfr-org', key: 'org.key' } },
      },
      { name: 'example.net' },
    ],
    server: {
      transfer: { allowCidrs: ['192.0.2.53/32'], notify: ['192.0.2.53'], keySecret: { name: 'xfr.corp.example' } },
    },
    views: [
      { name: 'internal' },
      {
        name: 'external',
        prefix: '/skydns-external',
        exposure: 'external',
        transfer: { allowCidrs: ['203.0.113.0/24', '2001:db8::/64'], notify: ['203.0.113.10:5300'] },
      },
    ],
    networkPolicy: { dnsFrom: { cidrs: ['10.0.0.0/8'] } },
  };
  const objects = JSON.parse(JSON.stringify(synthObjects(props))) as Obj[];
  // For real: the Namespace, and the ServiceAccounts the servers' pods run as (admission looks them up).
  const real = new Set(['Namespace', 'ServiceAccount']);
  for (const object of objects.filter((o) => o.kind === 'Namespace')) await apply(object, false);
  for (const object of objects.filter((o) => o.kind === 'ServiceAccount')) await apply(object, false);
  for (const object of objects.filter((o) => !real.has(o.kind!))) await apply(object, true);

  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'default' } } });
  const servers = objects.filter((o) => o.kind === 'Deployment' && o.metadata?.name?.startsWith('etcdns-server-'));
  assert.equal(servers.length, 2);
  for (const server of servers) {
    const spec = server.spec.template.spec as k8s.V1PodSpec;
    assert.ok(
      spec.volumes!.some((v) => v.secret?.secretName === 'xfr-org'),
      `${id(server)} mounts the zone's key Secret`,
    );
    await core
      .createNamespacedPod({ namespace, dryRun: 'All', body: { metadata: { name: server.metadata!.name }, spec } })
      .catch((e: unknown) => {
        throw new Error(`a pod of ${id(server)} is refused: ${JSON.stringify((e as { body?: unknown }).body)}`);
      });
  }
});

test('dev, moved into another namespace by a kustomize overlay, applies for real and its RBAC follows', async () => {
  const moved = 'etcdns-moved';
  const objects = renderWithNamespace('dev', moved) as Obj[];
  for (const object of objects.filter((o) => o.kind === 'Namespace')) await apply(object, false);
  const namespace = await kube.admin.makeApiClient(k8s.CoreV1Api).readNamespace({ name: moved });
  assert.equal(namespace.metadata?.annotations?.['kustomize.toolkit.fluxcd.io/prune'], 'disabled');
  assert.equal(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
  // The moved ServiceAccount reads nothing until the overlaid ClusterRoleBinding names it.
  const sa = await kube.asServiceAccount(moved, 'etcdns-controller');
  const listServices = () => sa.makeApiClient(k8s.CoreV1Api).listServiceForAllNamespaces();
  await assert.rejects(listServices(), (e) => code(e) === 403, 'not granted before the overlay is applied');
  for (const object of objects.filter((o) => o.kind !== 'Namespace')) await apply(object, false);
  await waitFor('the moved ServiceAccount to be granted', listServices, 10_000, 200);
  await sa.makeApiClient(k8s.NetworkingV1Api).listIngressForAllNamespaces();
});
