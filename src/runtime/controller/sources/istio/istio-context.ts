// The Istio sources' view of the cluster, from the controller's: Ingresses, Services and Istio
// Gateways (listed in --namespace, or everywhere, as external-dns lists them).
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import type { SourceContext } from '../source-runtime.ts';
import type { IstioGateway } from './istio-api.ts';
import type { VirtualServiceContext } from './virtual-service-source.ts';

export function istioContext(context: SourceContext): VirtualServiceContext {
  return {
    ingress: (namespace, name) => context.object('Ingress', namespace, name) as V1Ingress | undefined,
    services: () => context.objects('Service') as Iterable<V1Service>,
    istioGateway: (namespace, name) => context.object('IstioGateway', namespace, name) as IstioGateway | undefined,
  };
}
