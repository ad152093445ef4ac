// Every source's runtime half, by its name in src/config/source-kinds.ts (its declaration: objects,
// what it reads, RBAC). A source added there and missing here is a type error.
import type { SourceKind } from '../../../config/source-kinds.ts';
import { httpProxySource } from './contour-httpproxy-source.ts';
import { dnsEndpointSource } from './dns-endpoint/dns-endpoint-source.ts';
import { routeSource } from './gateway/route-source.ts';
import { ingressSource } from './ingress-source.ts';
import { nodeSource } from './node-source.ts';
import { openshiftRouteSource } from './openshift-route-source.ts';
import { podSource } from './pod-source.ts';
import { istioGatewaySource } from './istio/istio-gateway-source.ts';
import { virtualServiceSource } from './istio/virtual-service-source.ts';
import { serviceSource } from './service-source.ts';
import { traefikSource } from './traefik/traefik-source.ts';
import type { SourceRuntime } from './source-runtime.ts';
import { unstructuredSource } from './unstructured/unstructured-records.ts';

export const SOURCE_RUNTIMES: Readonly<Record<SourceKind, SourceRuntime>> = {
  service: serviceSource,
  ingress: ingressSource,
  'gateway-httproute': routeSource,
  'gateway-grpcroute': routeSource,
  'gateway-tlsroute': routeSource,
  'gateway-tcproute': routeSource,
  'gateway-udproute': routeSource,
  crd: dnsEndpointSource,
  'traefik-proxy': traefikSource,
  unstructured: unstructuredSource,
  'contour-httpproxy': httpProxySource,
  'openshift-route': openshiftRouteSource,
  node: nodeSource,
  pod: podSource,
  'istio-gateway': istioGatewaySource,
  'istio-virtualservice': virtualServiceSource,
};
