// spoke-dc1: member cluster dc1 of the hub (hub.ts): only its controller, writing dc1's names
// into the hub's etcd over TLS as the etcd user cluster-dc1 (docs/multi-cluster.md).
import type { SpokeStackProps } from '../constructs/spoke-stack.ts';
import { dc1 } from './clusters.ts';
import { shared } from './shared.ts';

export const spokeDc1: SpokeStackProps = {
  cluster: dc1,
  hub: {
    endpoints: ['https://etcd.hub.example.org:2379'],
    // ca.crt (the hub's CA), tls.crt and tls.key (this cluster's client certificate).
    tlsSecret: 'hub-etcd-tls',
    // Key "password": the hub's cluster-dc1 password.
    passwordSecret: 'hub-etcd',
    // The address etcd.hub.example.org resolves to: the hub's etcd load balancer (hub.ts).
    cidrs: ['10.0.53.79/32'],
  },
  // The controller may reach only the cluster DNS, dc1's API server and the hub's etcd.
  networkPolicy: { egress: { apiServer: { cidrs: ['10.1.0.10/32'], ports: [6443] } } },
  sources: shared.sources,
};
