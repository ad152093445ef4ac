// hub: etcd and the DNS servers for every member cluster (docs/multi-cluster.md), beside its own
// controller. Each member cluster writes into this etcd as its own user, its records merged into
// the answers: a client in a cluster's site gets that cluster's records first (policy "prefer").
// Not rendered, so provided beside this folder: the Secrets named here, and a way for the spokes
// to reach etcd's client port (a Service or route of your own, its address in the server
// certificate, and a NetworkPolicy admitting the spokes: `networkPolicy` admits only this stack's pods).
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { dc1, dc2 } from './clusters.ts';
import { shared } from './shared.ts';

export const hub: DnsStackProps = {
  ...shared,
  ownership: { ownerId: 'etcdns-hub' },
  etcd: {
    replicas: 3,
    tls: { serverSecret: 'etcdns-etcd-server-tls', clientSecret: 'etcdns-etcd-client-tls' },
  },
  // Passwords under "root", "controller", "server-internal", "cluster-dc1" and "cluster-dc2".
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [dc1, dc2],
  hub: { zones: [{ zone: 'example.org', policy: 'prefer' }] },
};
