// Whether a listener takes a route, as Gateway API defines it and external-dns v0.22 reads it:
// the protocols match (HTTP and HTTPS count as one; a TCP route also attaches to a TLS listener),
// and the listener's allowedRoutes admit the route's namespace (Same: the listener's owner's
// namespace, the default; All; Selector: the namespace's labels) and its kind (when kinds are
// listed). Pure.
import { GATEWAY_GROUP } from '../../../../config/source-kinds.ts';
import { matchesSelector, selectorOf } from '../../../../config/label-selector.ts';
import type { Listener } from './gateway-api.ts';

/** The protocol each route kind speaks, as external-dns assigns them. */
export const ROUTE_PROTOCOLS = {
  HTTPRoute: 'HTTP',
  GRPCRoute: 'HTTPS',
  TLSRoute: 'TLS',
  TCPRoute: 'TCP',
  UDPRoute: 'UDP',
} as const;
export type RouteKind = keyof typeof ROUTE_PROTOCOLS;

export function protocolMatches(routeProtocol: string, listenerProtocol: string): boolean {
  const http = (p: string) => (p === 'HTTPS' ? 'HTTP' : p);
  const route = http(routeProtocol);
  let listener = http(listenerProtocol);
  if (route === 'TCP' && listener === 'TLS') listener = 'TCP';
  return route === listener;
}

export interface RouteIdentity {
  kind: RouteKind;
  namespace: string;
  /** Labels of the route's namespace (undefined: the Namespace is not known). */
  namespaceLabels: Record<string, string> | undefined;
}

/** Whether the listener admits the route, or why not. */
export function listenerAdmits(
  listener: Listener,
  ownerNamespace: string,
  route: RouteIdentity,
): { ok: true } | { ok: false; reason: string } {
  const allowed = listener.allowedRoutes;
  const from = allowed?.namespaces?.from ?? 'Same';
  switch (from) {
    case 'All':
      break;
    case 'Same':
      if (route.namespace !== ownerNamespace)
        return { ok: false, reason: `listener "${listener.name}" admits routes of namespace ${ownerNamespace} only` };
      break;
    case 'Selector': {
      const selector = selectorOf(allowed?.namespaces?.selector);
      if (!selector) return { ok: false, reason: `listener "${listener.name}" has no valid namespace selector` };
      if (!route.namespaceLabels) return { ok: false, reason: `namespace ${route.namespace} is not known (yet)` };
      if (!matchesSelector(selector, route.namespaceLabels))
        return { ok: false, reason: `listener "${listener.name}" does not select namespace ${route.namespace}` };
      break;
    }
    default:
      return { ok: false, reason: `listener "${listener.name}" admits routes from "${from}", which is unknown` };
  }
  const kinds = allowed?.kinds ?? [];
  if (kinds.length > 0 && !kinds.some((k) => (k.group || GATEWAY_GROUP) === GATEWAY_GROUP && k.kind === route.kind))
    return { ok: false, reason: `listener "${listener.name}" does not admit ${route.kind}s` };
  return { ok: true };
}
