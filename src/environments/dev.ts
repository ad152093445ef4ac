// dev: one etcd member, one DNS server, everything else at its default; cheap on a laptop cluster.
// A few static records show how records kept in Git are declared.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { shared } from './shared.ts';

export const dev: DnsStackProps = {
  ...shared,
  zones: [{ name: 'dev.example.org', defaultTtl: 30 }],
  ownership: { ownerId: 'etcdns-dev' },
  etcd: { replicas: 1, storage: { size: '1Gi' } },
  server: { replicas: 1 },
  controller: { logLevel: 'debug' },
  // Records kept in Git: each one becomes a DNSEndpoint in dist/dev/.
  records: [
    { name: 'static.dev.example.org', type: 'A', targets: ['192.0.2.10'], ttl: 300 },
    { name: 'dev.example.org', type: 'TXT', targets: ['v=spf1 -all'] },
    { name: 'dev.example.org', type: 'MX', targets: ['10 mail.dev.example.org'] },
  ],
};
