// Istio's Gateway and VirtualService as the tests create them, through the CRDs of istio.io/api
// (installEdgeCrds(kc, 'istio') in crds.ts). No Istio control plane runs here; neither source reads
// a status.
import * as k8s from '@kubernetes/client-node';

const ISTIO_GROUP = 'networking.istio.io';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const plural = { Gateway: 'gateways', VirtualService: 'virtualservices' } as const;

/** Creates an Istio Gateway or VirtualService (apiVersion, kind and metadata.namespace set). */
export async function createIstioObject(kc: k8s.KubeConfig, object: Json): Promise<void> {
  const kind = object.kind as keyof typeof plural;
  await kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    group: ISTIO_GROUP,
    version: 'v1',
    namespace: object.metadata.namespace,
    plural: plural[kind],
    body: object,
  });
}

export async function deleteIstioObject(
  kc: k8s.KubeConfig,
  kind: keyof typeof plural,
  namespace: string,
  name: string,
): Promise<void> {
  await kc
    .makeApiClient(k8s.CustomObjectsApi)
    .deleteNamespacedCustomObject({ group: ISTIO_GROUP, version: 'v1', namespace, plural: plural[kind], name });
}
