// external-dns's DNSEndpoint (externaldns.k8s.io/v1alpha1), read with its schema unchanged so the
// objects users already keep in Git work as they are. The status is where etcdns says whether
// each object is live (dns-endpoint-status.ts); external-dns writes only observedGeneration there.

import { apiVersionOf, DNS_ENDPOINTS } from '../../../../config/source-kinds.ts';

export const DNS_ENDPOINT_API_VERSION = apiVersionOf(DNS_ENDPOINTS);

export interface Endpoint {
  dnsName?: string;
  targets?: string[];
  recordType?: string;
  recordTTL?: number;
  /** external-dns's own bookkeeping (owner, resource, ...): no DNS data. */
  labels?: Record<string, string>;
  providerSpecific?: { name?: string; value?: string }[];
  setIdentifier?: string;
}

export interface StatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface DnsEndpointStatus {
  observedGeneration?: number;
  conditions?: StatusCondition[];
}

export interface DnsEndpoint {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { endpoints?: (Endpoint | null)[] };
  status?: DnsEndpointStatus;
}
