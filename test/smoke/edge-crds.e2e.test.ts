// Smoke test: the CRDs of the edges external-dns reads (Traefik's two groups, Istio, Contour,
// OpenShift Route), as setup downloads them and test/support/crds/ keeps them, install into the
// real kube-apiserver and serve the resources the sources list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { installEdgeCrds } from '../support/crds.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll } from '../support/process.ts';

let kube: KubeHandle;
before(async () => {
  kube = await startKubeApiserver();
  await installEdgeCrds(kube.admin, 'traefik', 'traefik-legacy', 'istio', 'contour', 'openshift');
});
after(stopAll);

const served: [group: string, version: string, plural: string][] = [
  ['traefik.io', 'v1alpha1', 'ingressroutes'],
  ['traefik.io', 'v1alpha1', 'ingressroutetcps'],
  ['traefik.io', 'v1alpha1', 'ingressrouteudps'],
  ['traefik.containo.us', 'v1alpha1', 'ingressroutes'],
  ['traefik.containo.us', 'v1alpha1', 'ingressroutetcps'],
  ['traefik.containo.us', 'v1alpha1', 'ingressrouteudps'],
  ['networking.istio.io', 'v1', 'gateways'],
  ['networking.istio.io', 'v1', 'virtualservices'],
  ['projectcontour.io', 'v1', 'httpproxies'],
  ['route.openshift.io', 'v1', 'routes'],
];

for (const [group, version, plural] of served) {
  test(`${plural}.${group} ${version} is served`, async () => {
    const list = await kube.admin
      .makeApiClient(k8s.CustomObjectsApi)
      .listClusterCustomObject({ group, version, plural });
    assert.deepEqual((list as { items: unknown[] }).items, []);
  });
}
