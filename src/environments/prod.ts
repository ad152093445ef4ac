// prod: a 3-member etcd with TLS from existing Secrets (e.g. issued by cert-manager), members
// required on distinct nodes, three DNS servers (autoscaled up to six) behind a MetalLB address,
// two controllers with leader election, Prometheus Operator scraping and Argo CD sync waves.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { shared } from './shared.ts';

export const prod: DnsStackProps = {
  ...shared,
  zones: [...shared.zones, { name: '176.9.10.in-addr.arpa' }],
  ownership: { ownerId: 'etcdns-prod', policy: 'sync' },
  etcd: {
    replicas: 3,
    antiAffinity: 'required',
    storage: { size: '10Gi' },
    resources: { requests: { cpu: '200m', memory: '512Mi' }, limits: { memory: '2Gi' } },
    tls: {
      serverSecret: 'etcdns-etcd-server-tls',
      peerSecret: 'etcdns-etcd-peer-tls',
      clientSecret: 'etcdns-etcd-client-tls',
    },
  },
  server: {
    replicas: 3,
    autoscaling: { maxReplicas: 6 },
    service: {
      loadBalancerIP: '10.9.176.53',
      annotations: { 'metallb.universe.tf/address-pool': 'dns' },
      externalTrafficPolicy: 'Local',
    },
  },
  controller: { replicas: 2 },
  observability: { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
  gitops: { syncWaves: true },
};
