// What the sources produce and the planner consumes: one DNS record a Kubernetes object asks
// for, and a problem found on the way (which becomes a log line and a Kubernetes Event). The
// record types and problem reasons are declared once here; metrics and status derive from them.
import { objectSpec, type ObjectKind } from '../../config/source-kinds.ts';
import type { RecordType } from '../../dns/record-types.ts';
import type { NamePolicy } from '../../skydns/name-policy.ts';

export { RECORD_TYPES, type RecordType } from '../../dns/record-types.ts';

export interface DesiredRecord {
  /** Canonical owner name, e.g. "nginx.example.org.". */
  name: string;
  type: RecordType;
  /**
   * An IP address (A/AAAA), a canonical name (CNAME, MX exchange, SRV, PTR and NS target), or the
   * text of a TXT record.
   */
  target: string;
  /** Seconds; absent means the zone default. */
  ttl?: number;
  /** SRV only. */
  port?: number;
  /** SRV priority, MX preference. */
  priority?: number;
  /** SRV only. */
  weight?: number;
  /** A spoke's: the object's policy for the name at the hub (src/skydns/name-policy.ts). */
  namePolicy?: NamePolicy;
  /** A spoke's Service that asked (etcdns.io/hub-health) and has no ready endpoint: the hub fails the name over. */
  unready?: true;
  /** The object that asked for it. */
  object: ObjectRef;
}

/** Enough of a Kubernetes object to name it in logs and to attach an Event to it. */
export interface ObjectRef {
  kind: ObjectKind;
  apiVersion: string;
  namespace: string;
  name: string;
  uid?: string;
}

export const PROBLEM_REASONS = [
  'InvalidHostname',
  'HostnameNotInDomain',
  /** A spoke of a hub: the name is outside its cluster's claims (or its namespace's), which the hub refuses. */
  'NameNotClaimed',
  'InvalidTTL',
  'InvalidTarget',
  'InvalidAnnotation',
  /** A reference to another object that is malformed or names none (an Istio Gateway's Ingress, a VirtualService's Gateway). */
  'InvalidReference',
  /** A DNSEndpoint's endpoint that cannot be published (type, targets, name); the others still are. */
  'InvalidEndpoint',
  /** A field of a DNSEndpoint's endpoint with no meaning here (providerSpecific, setIdentifier): ignored. */
  'IgnoredField',
  'RecordConflict',
  'NameOwnedByOthers',
  /** A per-object cap was reached (SRV records of one Service). */
  'TooManyRecords',
  /** --fqdn-template, --target-template or --fqdn-target-template failed on the object (fqdn/). */
  'TemplateFailed',
  /** An object whose addresses are its targets has none usable (a Node with only a Hostname address). */
  'NoAddress',
  /** An external view refused a private address (views/view-records.ts). */
  'PrivateAddressRefused',
] as const;
export type ProblemReason = (typeof PROBLEM_REASONS)[number];

export interface Problem {
  object: ObjectRef;
  reason: ProblemReason;
  /** One sentence for a human: what was skipped and why. */
  message: string;
  /** The DNS name concerned, when there is one. */
  name?: string;
}

/**
 * "service/default/nginx": the resource id written into every entry's value, as external-dns
 * writes it into its TXT registry (the wire format; in memory, records carry the ObjectRef).
 * A DNSEndpoint is "crd/<ns>/<name>", a route "httproute/<ns>/<name>", as external-dns names them.
 */
export function resourceId(ref: Pick<ObjectRef, 'kind' | 'namespace' | 'name'>): string {
  // A cluster-scoped object has no namespace part ("node/<name>"), but the unstructured
  // source's keep an empty one ("kind//name"), each as external-dns names them.
  const spec = objectSpec(ref.kind);
  const namespacePart = ref.namespace || spec.idKeepsEmptyNamespace ? `${ref.namespace}/` : '';
  return `${spec.resourcePrefix}/${namespacePart}${ref.name}`;
}

/** "httproute" of "httproute/apps/web": the source a resource id names. */
export function resourcePrefixOf(id: string): string {
  return id.slice(0, id.indexOf('/'));
}
