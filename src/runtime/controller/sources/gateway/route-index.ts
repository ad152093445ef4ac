// Which routes a change re-plans: a route's index keys name the Gateways and ListenerSets of its
// spec.parentRefs and its Namespace; a Gateway's change touches its own key and those of the
// ListenerSets attached to it, a ListenerSet's its own, a Namespace's (its labels decide Selector
// listeners) its own and those of its ListenerSets.
import type { KubernetesObject } from '@kubernetes/client-node';
import { GATEWAY_GROUP } from '../../../../config/source-kinds.ts';
import type { ClusterReader, SourceRuntime, Touched } from '../source-runtime.ts';
import type { ListenerSet, Route } from './gateway-api.ts';

/** "Gateway/<ns>/<name>" or "ListenerSet/<ns>/<name>": a route's parent, as the index keys it. */
const parentKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;
const namespaceKey = (name: string) => `Namespace/${name}`;

export function routeIndexKeys(route: KubernetesObject): string[] {
  const namespace = route.metadata?.namespace ?? 'default';
  const keys = [namespaceKey(namespace)];
  for (const ref of (route as Route).spec?.parentRefs ?? []) {
    if ((ref.group || GATEWAY_GROUP) !== GATEWAY_GROUP) continue;
    keys.push(parentKey(ref.kind || 'Gateway', ref.namespace || namespace, ref.name));
  }
  return keys;
}

const listenerSets = (cluster: ClusterReader) => cluster.objects('ListenerSet') as Iterable<ListenerSet>;
const setKey = (set: ListenerSet) =>
  parentKey('ListenerSet', set.metadata?.namespace ?? 'default', set.metadata?.name ?? '');

/** A Gateway: its routes, and those of the ListenerSets whose parentRef names it. */
function gatewayChanged(gateway: KubernetesObject, cluster: ClusterReader): Touched {
  const meta = gateway.metadata;
  if (!meta?.name) return 'all';
  const namespace = meta.namespace ?? 'default';
  const keys = [parentKey('Gateway', namespace, meta.name)];
  for (const set of listenerSets(cluster)) {
    const parent = set.spec?.parentRef;
    if (parent?.name === meta.name && (parent.namespace || (set.metadata?.namespace ?? 'default')) === namespace)
      keys.push(setKey(set));
  }
  return { keys };
}

function listenerSetChanged(set: KubernetesObject): Touched {
  const meta = set.metadata;
  if (!meta?.name) return 'all';
  return { keys: [parentKey('ListenerSet', meta.namespace ?? 'default', meta.name)] };
}

/** A Namespace: its routes, and the routes of its ListenerSets. */
function namespaceChanged(namespace: KubernetesObject, cluster: ClusterReader): Touched {
  const name = namespace.metadata?.name;
  if (!name) return 'all';
  const keys = [namespaceKey(name)];
  for (const set of listenerSets(cluster)) if ((set.metadata?.namespace ?? 'default') === name) keys.push(setKey(set));
  return { keys };
}

export const routeChanges: NonNullable<SourceRuntime['changes']> = {
  Gateway: gatewayChanged,
  ListenerSet: listenerSetChanged,
  Namespace: namespaceChanged,
};
