// Which Istio objects a change re-plans. A Gateway's records and its VirtualServices' records
// read the Gateway, the Services its selector selects and the Ingress its ingress annotation
// names; so a Gateway and every VirtualService naming it in spec.gateways carry the Gateway's key,
// and a change of a Gateway, of a Service (before or after: the Gateways whose selector it
// matches) or of an Ingress (the Gateways whose annotation names it) touches those Gateways' keys.
// Gateways are few (one per edge); a Service or Ingress change looks through them.
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import { readAnnotation } from '../annotations.ts';
import type { ClusterReader, Touched } from '../source-runtime.ts';
import { selects } from './gateway-targets.ts';
import { MESH_GATEWAY, type IstioGateway, type VirtualService } from './istio-api.ts';
import { parseObjectReference } from './object-reference.ts';

/** "IstioGateway/<ns>/<name>": the key of a Gateway's records and of its VirtualServices'. */
export const istioGatewayKey = (namespace: string, name: string) => `IstioGateway/${namespace}/${name}`;

const namespaceOf = (o: KubernetesObject) => o.metadata?.namespace ?? 'default';

export function gatewayIndexKeys(gateway: KubernetesObject): string[] {
  return [istioGatewayKey(namespaceOf(gateway), gateway.metadata?.name ?? '')];
}

/** The Gateways a VirtualService names (malformed references and "mesh" left out). */
export function virtualServiceIndexKeys(vs: KubernetesObject): string[] {
  const keys: string[] = [];
  for (const value of (vs as VirtualService).spec?.gateways ?? []) {
    if (value === '' || value === MESH_GATEWAY) continue;
    const ref = parseObjectReference(value, namespaceOf(vs));
    if (ref.ok) keys.push(istioGatewayKey(ref.namespace, ref.name));
  }
  return keys;
}

/** The keys of the Gateways whose selector a Service's selector matches. */
export function serviceTouches(service: KubernetesObject, gateways: Iterable<KubernetesObject>): string[] {
  const selector = (service as V1Service).spec?.selector;
  const keys: string[] = [];
  for (const gateway of gateways as Iterable<IstioGateway>)
    if (selects(Object.entries(gateway.spec?.selector ?? {}), selector))
      keys.push(istioGatewayKey(namespaceOf(gateway), gateway.metadata?.name ?? ''));
  return keys;
}

/** The keys of the Gateways whose ingress annotation names an Ingress. */
export function ingressTouches(ingress: KubernetesObject, gateways: Iterable<KubernetesObject>): string[] {
  const [namespace, name] = [namespaceOf(ingress), ingress.metadata?.name];
  const keys: string[] = [];
  for (const gateway of gateways) {
    const value = readAnnotation(gateway.metadata?.annotations, 'ingress')?.value;
    const ref = value ? parseObjectReference(value, namespaceOf(gateway)) : undefined;
    if (ref?.ok && ref.namespace === namespace && ref.name === name)
      keys.push(istioGatewayKey(namespaceOf(gateway), gateway.metadata?.name ?? ''));
  }
  return keys;
}

/** A Gateway's change: the VirtualServices naming it (the Gateway itself is re-planned as the object changed). */
export const gatewayChanged = (gateway: KubernetesObject): Touched => ({ keys: gatewayIndexKeys(gateway) });

export const serviceChanged = (service: KubernetesObject, cluster: ClusterReader): Touched => ({
  keys: serviceTouches(service, cluster.objects('IstioGateway')),
});

export const ingressChanged = (ingress: KubernetesObject, cluster: ClusterReader): Touched => ({
  keys: ingressTouches(ingress, cluster.objects('IstioGateway')),
});
