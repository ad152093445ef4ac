// staging: like prod, but in a namespace Argo CD creates (no Namespace object), with etcd's TLS
// Secrets issued by cert-manager, the etcd password from Vault through an ExternalSecret, and DNS
// behind split UDP and TCP Services sharing one MetalLB address (for load balancers that cannot
// mix protocols in one Service), dual-stack wherever the cluster is.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { shared } from './shared.ts';

export const staging: DnsStackProps = {
  ...shared,
  zones: [{ name: 'staging.example.org', defaultTtl: 60 }],
  namespace: { name: 'etcdns-staging', create: false },
  ownership: { ownerId: 'etcdns-staging' },
  etcd: {
    replicas: 3,
    tls: {
      serverSecret: 'etcd-server-tls',
      clientSecret: 'etcd-client-tls',
      certManager: { issuerName: 'internal-ca', issuerKind: 'ClusterIssuer' },
    },
    auth: {
      password: { name: 'etcd-credentials', key: 'password' },
      externalSecret: { storeName: 'vault', remoteKey: 'dns/staging/etcd', remoteProperty: 'password' },
    },
  },
  server: {
    replicas: 2,
    service: {
      protocols: 'split',
      ipFamilyPolicy: 'PreferDualStack',
      annotations: { 'metallb.universe.tf/allow-shared-ip': 'etcdns-staging-dns' },
    },
  },
};
