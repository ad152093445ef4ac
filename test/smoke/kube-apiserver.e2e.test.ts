// Smoke test: the real kube-apiserver accepts Services and Ingresses through
// @kubernetes/client-node, lets a load-balancer controller patch status, and enforces RBAC.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll } from '../support/process.ts';

let kube: KubeHandle;
before(async () => {
  kube = await startKubeApiserver();
});
after(stopAll);

test('create a Service and an Ingress, read them back, patch the Service status', async () => {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const net = kube.admin.makeApiClient(k8s.NetworkingV1Api);
  await core.createNamespacedService({
    namespace: 'default',
    body: {
      metadata: { name: 'nginx', annotations: { 'external-dns.alpha.kubernetes.io/hostname': 'nginx.example.org' } },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'nginx' } },
    },
  });
  await net.createNamespacedIngress({
    namespace: 'default',
    body: {
      metadata: { name: 'web' },
      spec: {
        rules: [
          {
            host: 'web.example.org',
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'nginx', port: { number: 80 } } } }],
            },
          },
        ],
      },
    },
  });

  const service = await core.readNamespacedService({ name: 'nginx', namespace: 'default' });
  assert.equal(service.metadata?.annotations?.['external-dns.alpha.kubernetes.io/hostname'], 'nginx.example.org');
  assert.match(service.spec?.clusterIP ?? '', /^10\.96\./, 'the API server allocated a cluster IP');
  const ingress = await net.readNamespacedIngress({ name: 'web', namespace: 'default' });
  assert.equal(ingress.spec?.rules?.[0]?.host, 'web.example.org');

  // What MetalLB does when it assigns an address.
  await core.patchNamespacedServiceStatus(
    { name: 'nginx', namespace: 'default', body: { status: { loadBalancer: { ingress: [{ ip: '10.9.176.213' }] } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  const patched = await core.readNamespacedService({ name: 'nginx', namespace: 'default' });
  assert.deepEqual(
    patched.status?.loadBalancer?.ingress?.map((i) => i.ip),
    ['10.9.176.213'],
  );
});

test('a ServiceAccount with no RBAC is forbidden; a bound Role lets it read', async () => {
  const sa = await kube.asServiceAccount('default', 'reader');
  const saCore = sa.makeApiClient(k8s.CoreV1Api);
  await assert.rejects(
    saCore.listNamespacedService({ namespace: 'default' }),
    (e: { code?: number }) => e.code === 403,
  );

  const rbac = kube.admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: 'default',
    body: {
      metadata: { name: 'read-services' },
      rules: [{ apiGroups: [''], resources: ['services'], verbs: ['list'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: 'default',
    body: {
      metadata: { name: 'reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-services' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    },
  });
  const list = await saCore.listNamespacedService({ namespace: 'default' });
  assert.ok(list.items.some((s) => s.metadata?.name === 'nginx'));
  await assert.rejects(saCore.listNamespacedSecret({ namespace: 'default' }), (e: { code?: number }) => e.code === 403);
});
