// What every example environment has in common; each environment file spreads it and changes
// only what differs. This is how per-environment customization is meant to be done.
// The sources are those of a cluster of 2026: Services, Ingresses, Gateway API routes (the
// cluster needs the Gateway API CRDs, standard channel) and DNSEndpoint objects, whose CRD the
// stack brings along.
import type { DnsStackProps } from '../constructs/dns-stack.ts';

export const shared = {
  zones: [{ name: 'example.org', soa: { rname: 'hostmaster.example.org' } }],
  sources: {
    kinds: ['service', 'ingress', 'gateway-httproute', 'gateway-grpcroute', 'crd'],
    dnsEndpointCrd: true,
  },
} satisfies DnsStackProps;
