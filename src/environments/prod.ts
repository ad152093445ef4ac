// prod: a 3-member etcd with TLS from existing Secrets (e.g. issued by cert-manager), members
// required on distinct nodes, its image pinned by digest, three DNS servers (autoscaled up to
// six) behind a MetalLB address, two controllers with leader election, egress NetworkPolicies
// (the API server at the control-plane nodes' addresses), Prometheus Operator scraping with
// alerts and a Grafana dashboard, and Argo CD sync waves.
// Split horizon: inside clients ask the internal view (10.9.176.53); the world asks the external
// view (203.0.113.53), which has only opted-in names, with the load balancers' 10.9.176.0/24
// addresses mapped 1:1 onto the public 203.0.113.0/24.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { shared } from './shared.ts';

export const prod: DnsStackProps = {
  ...shared,
  zones: [...shared.zones, { name: '176.9.10.in-addr.arpa' }],
  ownership: { ownerId: 'etcdns-prod', policy: 'sync' },
  etcd: {
    replicas: 3,
    // The digest decides what runs (docs/image.md: how to get one).
    image: {
      repository: 'registry.k8s.io/etcd',
      tag: '3.5.21-0',
      digest: 'sha256:d58c035df557080a27387d687092e3fc2b64c6d0e3162dc51453a115f847d121',
    },
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
      // MetalLB reads the address from its annotation (spec.loadBalancerIP is deprecated).
      loadBalancer: { addresses: ['10.9.176.53'], implementation: 'metallb' },
      annotations: { 'metallb.universe.tf/address-pool': 'dns' },
      externalTrafficPolicy: 'Local',
    },
  },
  views: [
    { name: 'internal' },
    {
      name: 'external',
      prefix: '/skydns-external',
      exposure: 'external',
      zones: ['example.org'],
      // Ingresses of class "public", or any Service/Ingress annotated etcdns.io/views: internal,external.
      selection: { mode: 'opt-in', ingressClasses: ['public'] },
      rules: [
        {
          name: 'lb-to-public',
          match: { targetCidrs: ['10.9.176.0/24'] },
          action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } },
        },
      ],
      service: {
        loadBalancer: { addresses: ['203.0.113.53'], implementation: 'metallb' },
        annotations: { 'metallb.universe.tf/address-pool': 'public-dns' },
      },
    },
  ],
  controller: { replicas: 2 },
  networkPolicy: {
    egress: { apiServer: { cidrs: ['10.9.0.10/32', '10.9.0.11/32', '10.9.0.12/32'], ports: [6443] } },
  },
  observability: {
    serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
    alerts: { enabled: true, labels: { release: 'prometheus' } },
    dashboard: { enabled: true },
  },
  gitops: { syncWaves: true },
};
