// What every example environment has in common; each environment file spreads it and changes
// only what differs. This is how per-environment customization is meant to be done.
import type { DnsStackProps } from '../constructs/dns-stack.ts';

export const shared = {
  zones: [{ name: 'example.org', soa: { rname: 'hostmaster.example.org' } }],
  sources: { kinds: ['service', 'ingress'] },
} satisfies DnsStackProps;
