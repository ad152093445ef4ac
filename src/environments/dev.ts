// dev: one etcd member, one DNS server, everything else at its default; cheap on a laptop cluster.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { shared } from './shared.ts';

export const dev: DnsStackProps = {
  ...shared,
  zones: [{ name: 'dev.example.org', defaultTtl: 30 }],
  ownership: { ownerId: 'etcdns-dev' },
  etcd: { replicas: 1, storage: { size: '1Gi' } },
  server: { replicas: 1 },
  controller: { logLevel: 'debug' },
};
