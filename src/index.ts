// The etcdns package for users who compose their own cdk8s app: the DnsStack and its parts,
// their props (every field documented with its default), the images, validation and the
// GitOps writer that `npm run synth` uses.
export { DnsStack, STACK_DEFAULTS } from './constructs/dns-stack.ts';
export type { DnsStackProps, GitOpsProps, ObservabilityProps } from './constructs/dns-stack.ts';
export type { NamespaceProps } from './constructs/stack-base.ts';
export { EtcdCluster, ETCD_DEFAULTS } from './constructs/etcd/etcd-cluster.ts';
export type { EtcdAuthProps, EtcdClusterProps, EtcdProps, EtcdTlsProps } from './constructs/etcd/etcd-cluster.ts';
export type { EtcdSpokeServiceProps } from './constructs/etcd/etcd-spoke-service.ts';
export type {
  LoadBalancedServiceProps,
  LoadBalancerImplementation,
  LoadBalancerProps,
} from './constructs/base/load-balancer.ts';
export type { EtcdClientAccess } from './constructs/etcd/etcd-client-access.ts';
export type { SecretKeyRef } from './constructs/base/secret-key-ref.ts';
export { etcdDnsNames } from './constructs/etcd/etcd-certificates.ts';
export type { CertManagerProps } from './constructs/etcd/etcd-certificates.ts';
export type { ExternalSecretProps } from './constructs/base/external-secret.ts';
export { DnsServer, SERVER_DEFAULTS } from './constructs/server/dns-server.ts';
export type { DnsServerProps, ServerProps } from './constructs/server/dns-server.ts';
export type { LogLevel } from './config/field-rules.ts';
export { DnsService } from './constructs/server/dns-service.ts';
export type { DnsServiceProps, IpFamily } from './constructs/server/dns-service.ts';
export { DnsController, CONTROLLER_DEFAULTS } from './constructs/controller/dns-controller.ts';
export type {
  ControllerProps,
  DnsControllerProps,
  OwnershipProps,
  SourcesProps,
} from './constructs/controller/dns-controller.ts';
export { controllerClusterRules, leaderElectionRules } from './constructs/controller/controller-rbac.ts';
export { DnsEndpointCrd, dnsEndpointCrd } from './constructs/controller/dns-endpoint-crd.ts';
export { StaticRecords, recordObjectName } from './constructs/server/static-records.ts';
export type { StaticRecordProps, StaticRecordsProps } from './constructs/server/static-records.ts';
export type { SourceKind, SourceSwitches } from './config/source-kinds.ts';
export type { RecordType } from './dns/record-types.ts';
export { NetworkPolicies, NETWORK_POLICY_DEFAULTS } from './constructs/network-policies.ts';
export type { DnsClientsProps, NetworkPoliciesProps, NetworkPolicyProps } from './constructs/network-policies.ts';
export { EtcdRolesJob, etcdUsers } from './constructs/etcd/etcd-roles.ts';
export type { EtcdRolesJobProps, EtcdRolesProps, EtcdUser } from './constructs/etcd/etcd-roles.ts';
export type { ViewProps } from './constructs/server/views.ts';
export { DnssecSigner, SIGNER_DEFAULTS } from './constructs/dnssec/dnssec-signer.ts';
export type {
  DnssecProps,
  DnssecSignerProps,
  SignerSecondariesProps,
  SignerStorageProps,
  SignerTsigProps,
} from './constructs/dnssec/dnssec-signer.ts';
export { knotSignerConfig } from './constructs/dnssec/knot-signer-config.ts';
export type { KnotSignerConfigInput, SignerPolicy } from './constructs/dnssec/knot-signer-config.ts';
export type { TransferKeySecretProps, TransferProps, ZoneProps } from './constructs/server/zone-transfer.ts';
export type { AcmeKeyProps, AcmeProps } from './constructs/server/acme-updates.ts';
export type { ServiceMonitorProps } from './constructs/monitoring/service-monitor.ts';
export type { AlertsProps } from './constructs/monitoring/prometheus-rule.ts';
export type { DashboardProps } from './constructs/monitoring/grafana-dashboard.ts';
export { grafanaDashboard } from './constructs/monitoring/dashboard.ts';
export type { AntiAffinity, ResourceProps, WorkloadProps } from './constructs/base/workload.ts';
export { StackPart } from './constructs/base/stack-part.ts';
export type { ObjectOverrides, PartIdentity } from './constructs/base/stack-part.ts';
export { RuntimeComponent } from './constructs/base/runtime-component.ts';
export type { RuntimeComponentProps } from './constructs/base/runtime-component.ts';
export type { StackPartProps } from './constructs/base/stack-context.ts';
export { DEFAULT_IMAGES, imageReference } from './constructs/base/image.ts';
export type { ImageRef } from './constructs/base/image.ts';
export { ConfigError } from './config/config-error.ts';
export { SpokeStack, HUB_DEFAULTS } from './constructs/spoke-stack.ts';
export type { HubConnectionProps, SpokeNetworkPolicyProps, SpokeStackProps } from './constructs/spoke-stack.ts';
export { clusterEtcdUser } from './constructs/etcd/member-clusters.ts';
export type { ClusterProps } from './constructs/etcd/member-clusters.ts';
export { CLUSTERS_PREFIX, clusterPrefix } from './skydns/cluster-prefix.ts';
export { synthObjects, synthSpokeObjects, synthSpokeStack, synthStack } from './constructs/synth-stack.ts';
export { writeManifests } from './constructs/output/manifest-writer.ts';
export type { ZoneConfig, SoaConfig } from './config/zone-config.ts';
