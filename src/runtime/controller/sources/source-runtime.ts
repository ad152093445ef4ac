// The runtime half of a source (its declaration is its row in src/config/source-kinds.ts): how one
// object becomes records, and which changes of other objects re-plan it. Each source exports one
// SourceRuntime beside its record function; sources/source-registry.ts maps every source name to
// it. Pure: the cluster is read through the context and the reader given.
import type { KubernetesObject, V1EndpointSlice, V1Node } from '@kubernetes/client-node';
import type { ClusterKind, ObjectKind, ReadKind, SourceSwitches } from '../../../config/source-kinds.ts';
import type { Gateway, ListenerSet } from './gateway/gateway-api.ts';
import type { SourceResult } from './record-builder.ts';
import type { SourceOptions } from './source-options.ts';

/** What the sources read besides the object itself. */
export interface SourceContext {
  nodes: readonly V1Node[];
  /** EndpointSlices of a Service (by their kubernetes.io/service-name label). */
  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[];
  gateway(namespace: string, name: string): Gateway | undefined;
  /** Undefined for every name when ListenerSets are not read. */
  listenerSet(namespace: string, name: string): ListenerSet | undefined;
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** Any object the controller reads (its source's objects, or a kind of its row's `reads`). */
  object(kind: ClusterKind, namespace: string | undefined, name: string): KubernetesObject | undefined;
  objects(kind: ClusterKind): Iterable<KubernetesObject>;
}

/** A source object, by kind, namespace and name. */
export interface ObjectKey {
  kind: ObjectKind;
  namespace: string;
  name: string;
}

/**
 * What a change of an object a source reads touches: index keys (those its objects' indexKeys
 * gave), source objects named directly, or everything.
 */
export type Touched = { keys?: string[]; objects?: ObjectKey[] } | 'all';

/** What a change handler may look up: the objects of every kind read. */
export interface ClusterReader {
  objects(kind: ClusterKind): Iterable<KubernetesObject>;
}

export interface SourceRuntime {
  /** Adds the records one object asks for, and its problems, to `out`. */
  records(
    object: KubernetesObject,
    kind: ObjectKind,
    context: SourceContext,
    options: SourceOptions,
    out: SourceResult,
  ): void;
  /**
   * The index keys of what the object's records read besides itself ("Gateway/<ns>/<name>"): a
   * change that touches one of them (`changes`) re-plans the object.
   */
  indexKeys?(object: KubernetesObject, kind: ObjectKind, switches: SourceSwitches): string[];
  /** For each kind of the row's `reads`: what a change of one such object (before or after) touches. */
  changes?: Partial<
    Record<ReadKind, (object: KubernetesObject, cluster: ClusterReader, switches: SourceSwitches) => Touched>
  >;
  /**
   * The records of --fqdn-template's names for the object, for a source that does not publish
   * them as its hostname annotation's (node: at its addresses; pod: at its IPs; a VirtualService:
   * at its Gateways' targets, not its target annotation).
   */
  templateRecords?(
    object: KubernetesObject,
    names: string[],
    context: SourceContext,
    options: SourceOptions,
    out: SourceResult,
  ): void;
  /** The class views match (`ingressClasses`), for sources whose objects have one. */
  ingressClass?(object: KubernetesObject): string | undefined;
}
