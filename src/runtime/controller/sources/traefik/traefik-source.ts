// Where Traefik's IngressRoute, IngressRouteTCP and IngressRouteUDP (traefik.io, and Traefik v2's
// traefik.containo.us with --traefik-enable-legacy) are turned into records, as external-dns
// v0.22's traefik-proxy source does it: the hosts of every route's match rule (traefik-rule.ts;
// UDP routes have none) and the hostname annotation point at the target annotation's targets;
// without that annotation external-dns publishes nothing (its #6457). etcdns extension: with
// --traefik-service NAMESPACE/NAME such a route takes that Service's load-balancer addresses
// instead, or those of the Service its etcdns.io/traefik-service annotation names.
import type { KubernetesObject } from '@kubernetes/client-node';
import { apiVersionOf, kubernetesKind, objectSpec, type ObjectKind } from '../../../../config/source-kinds.ts';
import { readAnnotation } from '../annotations.ts';
import { objectRef } from '../object-ref.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import { loadBalancerTargets } from '../service-source.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import type { SourceContext, SourceRuntime } from '../source-runtime.ts';
import type { Target } from '../targets.ts';
import { ruleHosts } from './traefik-rule.ts';

/** The Service whose addresses a route without a target annotation takes (etcdns extension). */
export const TRAEFIK_SERVICE_ANNOTATION = 'etcdns.io/traefik-service';

export interface TraefikRoute extends KubernetesObject {
  spec?: { routes?: { match?: string }[] };
}

/** "NAMESPACE/NAME" or "NAME" (in `namespace`); undefined when malformed. */
export function serviceRef(value: string, namespace: string): { namespace: string; name: string } | undefined {
  const parts = value.trim().split('/');
  if (parts.length > 2 || parts.some((p) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p))) return undefined;
  return parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { namespace, name: parts[0]! };
}

/** The Service a route takes its targets from, when it has no target annotation (annotation, else the flag). */
function traefikService(route: TraefikRoute, defaultService: string | undefined, b?: RecordBuilder) {
  const meta = route.metadata;
  if (readAnnotation(meta?.annotations, 'target') || !defaultService) return undefined;
  const value = meta?.annotations?.[TRAEFIK_SERVICE_ANNOTATION];
  if (value === undefined) return serviceRef(defaultService, meta?.namespace ?? 'default');
  const ref = serviceRef(value, meta?.namespace ?? 'default');
  if (!ref)
    b?.problem(
      'InvalidAnnotation',
      `annotation ${TRAEFIK_SERVICE_ANNOTATION}: "${value}" is not NAME or NAMESPACE/NAME; the route publishes nothing`,
    );
  return ref;
}

export function traefikRecords(
  route: TraefikRoute,
  kind: ObjectKind,
  context: Pick<SourceContext, 'object'>,
  options: SourceOptions,
  out: SourceResult,
): void {
  const meta = route.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  const ref = objectRef(
    kubernetesKind(kind) as ObjectKind,
    route.apiVersion ?? apiVersionOf(objectSpec(kind).api),
    meta,
  )!;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  let targets: Target[] | undefined = b.targetOverride;
  if (!targets) {
    const service = traefikService(route, options.switches.traefikService, b);
    const object = service && context.object('Service', service.namespace, service.name);
    targets = object ? b.targets(loadBalancerTargets(object as Parameters<typeof loadBalancerTargets>[0])) : [];
  }
  if (targets.length === 0) return;
  const hosts = [
    ...b.annotatedHostnames(),
    ...(route.spec?.routes ?? []).flatMap((r) => (ref.kind === 'IngressRouteUDP' ? [] : ruleHosts(r.match))),
  ];
  const names = new Set<string>();
  for (const host of hosts) {
    const name = b.acceptName(host);
    if (name) names.add(name);
  }
  for (const name of names) b.addresses(name, targets);
}

export const traefikSource: SourceRuntime = {
  records: (object, kind, context, options, out) => traefikRecords(object as TraefikRoute, kind, context, options, out),
  /** A route that takes a Service's addresses is re-planned when that Service changes. */
  indexKeys: (object, _kind, switches) => {
    const service = traefikService(object as TraefikRoute, switches.traefikService);
    return service ? [`Service/${service.namespace}/${service.name}`] : [];
  },
  changes: {
    Service: (service) => ({
      keys: [`Service/${service.metadata?.namespace ?? 'default'}/${service.metadata?.name ?? ''}`],
    }),
  },
};
