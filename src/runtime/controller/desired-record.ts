// What the sources produce and the planner consumes: one DNS record a Kubernetes object asks
// for, and a problem found on the way (which becomes a log line and a Kubernetes Event).

export type RecordType = 'A' | 'AAAA' | 'CNAME' | 'SRV' | 'PTR';

export interface DesiredRecord {
  /** Canonical owner name, e.g. "nginx.example.org.". */
  name: string;
  type: RecordType;
  /** An IP address (A/AAAA) or a canonical name (CNAME, SRV and PTR target). */
  target: string;
  /** Seconds; absent means the zone default. */
  ttl?: number;
  /** SRV only. */
  port?: number;
  priority?: number;
  weight?: number;
  /** The object that asked for it. */
  object: ObjectRef;
}

/** Enough of a Kubernetes object to name it in logs and to attach an Event to it. */
export interface ObjectRef {
  kind: 'Service' | 'Ingress';
  apiVersion: string;
  namespace: string;
  name: string;
  uid?: string;
}

export type ProblemReason =
  | 'InvalidHostname'
  | 'HostnameNotInDomain'
  | 'InvalidTTL'
  | 'InvalidTarget'
  | 'InvalidAnnotation'
  | 'RecordConflict'
  | 'NameOwnedByOthers'
  /** A per-object cap was reached (SRV records of one Service). */
  | 'TooManyRecords'
  /** An external view refused a private address (views/view-records.ts). */
  | 'PrivateAddressRefused';

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
 */
export function resourceId(ref: ObjectRef): string {
  return `${ref.kind.toLowerCase()}/${ref.namespace}/${ref.name}`;
}
