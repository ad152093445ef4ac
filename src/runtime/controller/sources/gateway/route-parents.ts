// Which listeners a route attaches to, as external-dns v0.22 decides it: a parent counts only when
// it is in the route's spec.parentRefs *and* in its status.parents with Accepted=True (the Gateway
// controller has accepted the route), is a Gateway the filters select, or a ListenerSet (with
// --gateway-listener-sets) attached to such a Gateway. Its sectionName picks one listener (none:
// all of them), its port narrows them further. Pure.
import { GATEWAY_GROUP } from '../../../../config/source-kinds.ts';
import { matchesSelector, selectorOf, type Selector } from '../../../../config/label-selector.ts';
import { readAnnotation, splitList, type Annotations } from '../annotations.ts';
import {
  conditionTrue,
  type Gateway,
  type Listener,
  type ListenerSet,
  type ParentReference,
  type Route,
} from './gateway-api.ts';

/** What the route sources read besides the routes. */
export interface GatewayContext {
  gateway(namespace: string, name: string): Gateway | undefined;
  /** Undefined for every name when ListenerSets are not read. */
  listenerSet(namespace: string, name: string): ListenerSet | undefined;
  namespaceLabels(name: string): Record<string, string> | undefined;
}

/** external-dns's Gateway filters. */
export interface GatewayFilters {
  /** --gateway-name: only Gateways of this name (ListenerSets: of this parent). */
  name?: string;
  /** --gateway-namespace: only Gateways in this namespace. */
  namespace?: string;
  /** --gateway-label-filter. */
  labels: Selector;
  /** --gateway-listener-sets: routes may attach to ListenerSets. */
  listenerSets: boolean;
}

export interface AttachedParent {
  /** The Gateway whose addresses the route's names point at. */
  gateway: Gateway;
  /** The namespace allowedRoutes "Same" means: the Gateway's, or the ListenerSet's. */
  ownerNamespace: string;
  /** The listeners the route may attach to through this parent. */
  listeners: Listener[];
  /** The parent reference's port, when given. */
  port: number | undefined;
  /** The target annotation's targets (the ListenerSet's, else the Gateway's); empty when neither sets one. */
  targetOverride: string[];
}

const refGroup = (ref: ParentReference) => ref.group || GATEWAY_GROUP;
const refKind = (ref: ParentReference) => ref.kind || 'Gateway';

function sameParent(a: ParentReference, b: ParentReference, routeNamespace: string): boolean {
  return (
    refGroup(a) === refGroup(b) &&
    refKind(a) === refKind(b) &&
    a.name === b.name &&
    (a.namespace || routeNamespace) === (b.namespace || routeNamespace)
  );
}

function gatewaySelected(gateway: Gateway | undefined, filters: GatewayFilters): gateway is Gateway {
  if (!gateway) return false;
  const meta = gateway.metadata;
  if (filters.namespace !== undefined && meta?.namespace !== filters.namespace) return false;
  return matchesSelector(filters.labels, meta?.labels);
}

/** Whether a Gateway lets a ListenerSet of `namespace` attach (spec.allowedListeners; default: none). */
function allowsListenerSet(gateway: Gateway, namespace: string, context: GatewayContext): boolean {
  const rule = gateway.spec?.allowedListeners?.namespaces;
  switch (rule?.from ?? 'None') {
    case 'All':
      return true;
    case 'Same':
      return gateway.metadata?.namespace === namespace;
    case 'Selector': {
      const selector = selectorOf(rule?.selector);
      const labels = context.namespaceLabels(namespace);
      return selector !== undefined && labels !== undefined && matchesSelector(selector, labels);
    }
    default:
      return false;
  }
}

/** The listeners of a parent by section name ('' for all), each with whether it is attached. */
function gatewayParent(gateway: Gateway): {
  ownerNamespace: string;
  sections: { listener: Listener; attached: boolean }[];
} {
  return {
    ownerNamespace: gateway.metadata?.namespace ?? 'default',
    sections: (gateway.spec?.listeners ?? []).map((listener) => ({ listener, attached: true })),
  };
}

function listenerSetParent(
  set: ListenerSet,
  filters: GatewayFilters,
  context: GatewayContext,
): { gateway: Gateway; ownerNamespace: string; sections: { listener: Listener; attached: boolean }[] } | undefined {
  const namespace = set.metadata?.namespace ?? 'default';
  const parent = set.spec?.parentRef;
  if (!parent) return undefined;
  const gateway = context.gateway(parent.namespace || namespace, parent.name);
  if (!gatewaySelected(gateway, filters)) return undefined;
  const attached = allowsListenerSet(gateway, namespace, context) && conditionTrue(set.status?.conditions, 'Accepted');
  return {
    gateway,
    ownerNamespace: namespace,
    sections: (set.spec?.listeners ?? []).map((listener) => ({
      listener,
      attached:
        attached && conditionTrue(set.status?.listeners?.find((l) => l.name === listener.name)?.conditions, 'Accepted'),
    })),
  };
}

const targets = (annotations: Annotations) => splitList(readAnnotation(annotations, 'target')?.value);

/** The parents a route is attached to, in the order of its status. */
export function attachedParents(route: Route, filters: GatewayFilters, context: GatewayContext): AttachedParent[] {
  const routeNamespace = route.metadata?.namespace ?? 'default';
  const specRefs = route.spec?.parentRefs ?? [];
  const out: AttachedParent[] = [];
  for (const status of route.status?.parents ?? []) {
    const ref = status.parentRef;
    if (!ref || !specRefs.some((r) => sameParent(r, ref, routeNamespace))) continue;
    if (refGroup(ref) !== GATEWAY_GROUP) continue;
    const namespace = ref.namespace || routeNamespace;
    let parent: ReturnType<typeof listenerSetParent>;
    let own: Annotations;
    if (refKind(ref) === 'Gateway') {
      const gateway = context.gateway(namespace, ref.name);
      if (!gatewaySelected(gateway, filters)) continue;
      parent = { gateway, ...gatewayParent(gateway) };
      own = undefined;
    } else if (refKind(ref) === 'ListenerSet' && filters.listenerSets) {
      const set = context.listenerSet(namespace, ref.name);
      parent = set && listenerSetParent(set, filters, context);
      own = set?.metadata?.annotations;
    } else continue;
    if (!parent) continue;
    if (filters.name !== undefined && parent.gateway.metadata?.name !== filters.name) continue;
    if (!conditionTrue(status.conditions, 'Accepted')) continue;
    const section = ref.sectionName ?? '';
    const sections = section === '' ? parent.sections : parent.sections.filter((s) => s.listener.name === section);
    out.push({
      gateway: parent.gateway,
      ownerNamespace: parent.ownerNamespace,
      listeners: sections.filter((s) => s.attached).map((s) => s.listener),
      port: ref.port,
      targetOverride: targets(own).length > 0 ? targets(own) : targets(parent.gateway.metadata?.annotations),
    });
  }
  return out;
}
