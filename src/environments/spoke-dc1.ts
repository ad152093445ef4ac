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
  },
  sources: shared.sources,
};
