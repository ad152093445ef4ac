// Test shorthand for the Istio source tables: Gateways, VirtualServices, the Services and
// Ingresses they point at, and the context the sources read them through (the Services of
// --namespace only, as the controller's informer lists them).
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import type { IstioGateway, VirtualService } from '../../../../../src/runtime/controller/sources/istio/istio-api.ts';
import type { VirtualServiceContext } from '../../../../../src/runtime/controller/sources/istio/virtual-service-source.ts';

export const N = 'external-dns.kubernetes.io/';
export const A = 'external-dns.alpha.kubernetes.io/';

type Meta = { namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
const meta = (name: string, m: Meta, namespace: string) => ({
  name,
  namespace: m.namespace ?? namespace,
  uid: `uid-${name}`,
  annotations: m.annotations ?? {},
  labels: m.labels ?? {},
});

/** A Gateway in "infra"; each entry of servers is one server's hosts. */
export function gw(name: string, o: Meta & { servers?: string[][]; selector?: Record<string, string> }): IstioGateway {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'Gateway',
    metadata: meta(name, o, 'infra'),
    spec: {
      ...(o.selector ? { selector: o.selector } : {}),
      servers: (o.servers ?? []).map((hosts, i) => ({
        hosts,
        port: { number: 80 + i, name: `http-${i}`, protocol: 'HTTP' },
      })),
    },
  };
}

/** A VirtualService in "apps". */
export function vs(
  name: string,
  o: Meta & { hosts?: string[]; gateways?: string[]; exportTo?: string[] } = {},
): VirtualService {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: meta(name, o, 'apps'),
    spec: {
      hosts: o.hosts ?? [],
      ...(o.gateways ? { gateways: o.gateways } : {}),
      ...(o.exportTo ? { exportTo: o.exportTo } : {}),
      http: [{ route: [{ destination: { host: 'web.apps.svc.cluster.local' } }] }],
    } as VirtualService['spec'],
  };
}

/** A LoadBalancer Service with a selector and load-balancer status. */
export function svc(
  name: string,
  o: {
    selector: Record<string, string> | undefined;
    addresses: { ip?: string; hostname?: string }[];
    namespace: string;
    spec?: Partial<V1Service['spec']>;
  },
): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: o.namespace },
    spec: { type: 'LoadBalancer', ...(o.selector ? { selector: o.selector } : {}), ports: [{ port: 80 }], ...o.spec },
    status: { loadBalancer: { ingress: o.addresses } },
  };
}

export function ingress(name: string, namespace: string, addresses: { ip?: string; hostname?: string }[]): V1Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace },
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    status: { loadBalancer: { ingress: addresses } },
  };
}

export function istioContext(o: {
  services?: V1Service[];
  ingresses?: V1Ingress[];
  gateways?: IstioGateway[];
  namespace?: string | undefined;
}): VirtualServiceContext {
  const inScope = <T extends { metadata?: { namespace?: string } }>(list: T[] = []) =>
    list.filter((x) => o.namespace === undefined || x.metadata?.namespace === o.namespace);
  const find = <T extends { metadata?: { namespace?: string; name?: string } }>(list: T[], ns: string, name: string) =>
    list.find((x) => x.metadata?.namespace === ns && x.metadata?.name === name);
  return {
    services: () => inScope(o.services),
    ingress: (ns, name) => find(inScope(o.ingresses), ns, name),
    istioGateway: (ns, name) => find(inScope(o.gateways), ns, name),
  };
}
