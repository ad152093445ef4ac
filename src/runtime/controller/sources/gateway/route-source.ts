// Where a Gateway API route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute) is turned into
// records, as external-dns v0.22's gateway-* sources do it: for each listener the route is
// attached to (route-parents.ts, listener-attachment.ts), each of the route's hostnames meets the
// listener's (listener-hostname.ts), and the name that results points at the Gateway's addresses,
// or at the target annotation of the ListenerSet or Gateway. The route's own annotations give
// extra hostnames, the TTL and the controller; TCP and UDP routes have no hostnames of their own.
import { readAnnotation } from '../annotations.ts';
import { objectRef } from '../object-ref.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import type { Route } from './gateway-api.ts';
import { listenerAdmits, protocolMatches, ROUTE_PROTOCOLS, type RouteKind } from './listener-attachment.ts';
import { matchingHost } from './listener-hostname.ts';
import type { SourceRuntime } from '../source-runtime.ts';
import { routeChanges, routeIndexKeys } from './route-index.ts';
import { attachedParents, type GatewayContext } from './route-parents.ts';

const HOSTNAMELESS: ReadonlySet<RouteKind> = new Set(['TCPRoute', 'UDPRoute']);

export function routeRecords(
  route: Route,
  kind: RouteKind,
  context: GatewayContext,
  options: SourceOptions,
  out: SourceResult,
): void {
  const meta = route.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  const namespace = meta.namespace ?? 'default';
  const ref = objectRef(kind, route.apiVersion ?? 'gateway.networking.k8s.io/v1', meta)!;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const routeHosts = hostnames(route, kind, b);
  const identity = { kind, namespace, namespaceLabels: context.namespaceLabels(namespace) };
  const targetsByHost = new Map<string, Set<string>>();
  for (const parent of attachedParents(route, options.gateway, context)) {
    for (const listener of parent.listeners) {
      if (!protocolMatches(ROUTE_PROTOCOLS[kind], listener.protocol)) continue;
      if (parent.port !== undefined && parent.port !== listener.port) continue;
      if (!listenerAdmits(listener, parent.ownerNamespace, identity).ok) continue;
      for (const routeHost of routeHosts) {
        const listenerHost = listener.hostname ?? '';
        if (listenerHost === '' && routeHost === '') continue;
        const host = matchingHost(listenerHost, routeHost);
        if (host === undefined) continue;
        const targets =
          parent.targetOverride.length > 0
            ? parent.targetOverride
            : (parent.gateway.status?.addresses ?? []).map((a) => a.value);
        let set = targetsByHost.get(host);
        if (!set) targetsByHost.set(host, (set = new Set()));
        for (const t of targets) set.add(t);
      }
    }
  }
  for (const [host, targets] of [...targetsByHost].sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0))) {
    const name = b.acceptName(host);
    if (name) b.addresses(name, b.targets([...targets].sort()));
  }
}

/**
 * The route's hostnames ('' for "the listener's"): spec.hostnames (none for TCP and UDP routes)
 * and the hostname annotation, or one of them as the gateway-hostname-source annotation says. An
 * unknown value of it is reported and read as absent, as external-dns does.
 */
function hostnames(route: Route, kind: RouteKind, b: RecordBuilder): string[] {
  const own = HOSTNAMELESS.has(kind) ? [] : (route.spec?.hostnames ?? []);
  const annotations = route.metadata?.annotations;
  const annotated = () => b.annotatedHostnames();
  const source = readAnnotation(annotations, 'gateway-hostname-source');
  const value = source?.value.toLowerCase();
  if (value === 'annotation-only') return annotated();
  if (value === 'defined-hosts-only') return [...own];
  if (source)
    b.problem(
      'InvalidAnnotation',
      `annotation ${source.key}: "${source.value}" is neither "defined-hosts-only" nor "annotation-only"; read as absent`,
    );
  return [...own, ...(own.length === 0 ? [''] : []), ...annotated()];
}

/** The route sources' runtime: records, and the index of the Gateways, ListenerSets and Namespaces they read. */
export const routeSource: SourceRuntime = {
  records: (object, kind, context, options, out) =>
    routeRecords(object as Route, kind as RouteKind, context, options, out),
  indexKeys: routeIndexKeys,
  changes: routeChanges,
};
