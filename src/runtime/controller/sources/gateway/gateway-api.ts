// The parts of Gateway API objects (gateway.networking.k8s.io) the route sources read. The
// fields are the same in every version the controller lists (v1, and v1alpha2/v1alpha3 of the
// TLS, TCP and UDP routes). @kubernetes/client-node has no types for them.

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface AllowedRoutes {
  namespaces?: { from?: 'All' | 'Same' | 'Selector' | string; selector?: LabelSelector };
  kinds?: { group?: string; kind: string }[];
}

export interface Listener {
  name: string;
  hostname?: string;
  port: number;
  protocol: string;
  allowedRoutes?: AllowedRoutes;
}

export interface Gateway {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    gatewayClassName?: string;
    listeners?: Listener[];
    /** Which ListenerSets may attach (default: none). */
    allowedListeners?: {
      namespaces?: { from?: 'All' | 'Same' | 'Selector' | 'None' | string; selector?: LabelSelector };
    };
  };
  status?: { addresses?: { type?: string; value: string }[] };
}

export interface ParentReference {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

export interface ListenerSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { parentRef: ParentReference; listeners?: Listener[] };
  status?: { conditions?: Condition[]; listeners?: { name: string; conditions?: Condition[] }[] };
}

export interface Route {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { parentRefs?: ParentReference[]; hostnames?: string[] };
  status?: { parents?: { parentRef: ParentReference; controllerName?: string; conditions?: Condition[] }[] };
}

export interface Namespace {
  metadata?: ObjectMeta;
}

/** The condition of this type is present and True. */
export function conditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return conditions?.find((c) => c.type === type)?.status === 'True';
}
