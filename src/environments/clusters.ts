// The member clusters of the hub (docs/multi-cluster.md), shared by the hub's file and each
// spoke's: the hub creates each one's etcd user from the same object the spoke logs in as.
// Both publish shop.example.org: the hub merges it (hub.ts), each cluster its own names.
import type { ClusterProps } from '../constructs/etcd/member-clusters.ts';

export const dc1: ClusterProps = {
  name: 'dc1',
  suffixes: ['dc1.example.org', 'shop.example.org'],
  siteCidrs: ['10.1.0.0/16'],
  // dc1's nodes: its controller's packets reach the hub's etcd from these.
  etcdClientCidrs: ['10.1.0.0/24'],
};

export const dc2: ClusterProps = {
  name: 'dc2',
  suffixes: ['dc2.example.org', 'shop.example.org'],
  siteCidrs: ['10.2.0.0/16'],
  etcdClientCidrs: ['10.2.0.0/24'],
};
