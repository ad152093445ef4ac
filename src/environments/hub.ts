// hub: etcd and the DNS servers for every member cluster (docs/multi-cluster.md), beside its own
// controller. Each member cluster writes into this etcd as its own user, its records merged into
// the answers: a client in a cluster's site gets that cluster's records first (policy "prefer").
// The spokes reach etcd's client port at etcd.hub.example.org (10.0.53.79, a MetalLB address),
// admitted from their clusters' etcdClientCidrs; cert-manager issues etcd's certificates (the
// server's naming both) from the CA issuer etcdns-hub-ca, which also signs each spoke's client
// certificate. Not rendered, so provided beside this folder: that issuer, each spoke's client
// certificate, and the password Secret named here.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { dc1, dc2 } from './clusters.ts';
import { shared } from './shared.ts';

export const hub: DnsStackProps = {
  ...shared,
  ownership: { ownerId: 'etcdns-hub' },
  etcd: {
    replicas: 3,
    tls: {
      serverSecret: 'etcdns-etcd-server-tls',
      clientSecret: 'etcdns-etcd-client-tls',
      certManager: { issuerName: 'etcdns-hub-ca' },
    },
    spokeService: {
      loadBalancer: { addresses: ['10.0.53.79'], implementation: 'metallb' },
      names: ['etcd.hub.example.org'],
    },
  },
  // Passwords under "root", "controller", "server-internal", "cluster-dc1" and "cluster-dc2".
  etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  clusters: [dc1, dc2],
  hub: { zones: [{ zone: 'example.org', policy: 'prefer' }] },
};
