// Where an OpenShift Route is turned into records, as external-dns v0.22's openshift-route source
// does it: of the routers in status.ingress[] that admitted the route (condition Admitted=True)
// and have a routerCanonicalHostname, the first (or the one --openshift-router-name names) gives
// the name (its host, the route's spec.host as that router serves it) and the target (its
// canonical hostname, a CNAME), unless the target annotation says otherwise. The hostname
// annotation adds names with the same targets. A route no router admitted publishes no host.
import { objectRef, type ObjectMeta } from './object-ref.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import type { SourceRuntime } from './source-runtime.ts';

export const ROUTE_API_VERSION = 'route.openshift.io/v1';

export interface RouteIngress {
  host?: string;
  routerName?: string;
  routerCanonicalHostname?: string;
  conditions?: { type: string; status: string }[];
}

/** The parts of route.openshift.io/v1 Route the source reads. */
export interface OpenShiftRoute {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { host?: string };
  status?: { ingress?: RouteIngress[] };
}

export function openshiftRouteRecords(route: OpenShiftRoute, options: SourceOptions, out: SourceResult): void {
  const meta = route.metadata;
  const ref = objectRef('Route', route.apiVersion ?? ROUTE_API_VERSION, meta);
  if (!ref || !objectSelected(meta, options)) return;
  const b = new RecordBuilder(ref, meta?.annotations, options, out);
  const router = admittingRouter(route, options.openshiftRouterName);
  const hosts = new Set([...(router?.host ? [router.host] : []), ...b.annotatedHostnames()]);
  if (hosts.size === 0) return;
  b.hostnames([...hosts], b.targetOverride ?? b.targets(router ? [router.routerCanonicalHostname!] : []));
}

/** The first router that admitted the route and names its canonical hostname (of `routerName`, when set). */
export function admittingRouter(route: OpenShiftRoute, routerName: string | undefined): RouteIngress | undefined {
  return route.status?.ingress?.find(
    (ing) =>
      !!ing.routerCanonicalHostname &&
      ing.conditions?.find((c) => c.type === 'Admitted')?.status === 'True' &&
      (!routerName || ing.routerName === routerName),
  );
}

/** Routes read nothing else: a change re-plans that route alone. */
export const openshiftRouteSource: SourceRuntime = {
  records: (object, _kind, _context, options, out) => openshiftRouteRecords(object as OpenShiftRoute, options, out),
};
