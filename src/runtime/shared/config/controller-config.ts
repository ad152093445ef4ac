// The controller's configuration file (rendered by the DnsController construct into a
// ConfigMap, or written by hand). Command-line flags and environment variables override it.
import type { EtcdConnection } from './etcd-connection.ts';
import type { ViewConfig } from './view-config.ts';

export type SourceKind = 'service' | 'ingress';
export type Policy = 'sync' | 'upsert-only' | 'create-only';

export interface ControllerConfig {
  etcd: EtcdConnection;
  /** Written into every entry's `owner`; entries of other owners are never touched. */
  ownerId: string;
  /** etcd key prefix; default "/skydns". Not together with `views` (each view has its own). */
  prefix?: string;
  /**
   * Split horizon: each view is planned and written under its own prefix. Default: one view
   * "internal" at `prefix` with every resource and no rules (see view-config.ts for defaults).
   */
  views?: (Pick<ViewConfig, 'name' | 'prefix'> & Partial<ViewConfig>)[];
  /** Only names inside these domains are published (usually the zones). */
  domainFilter?: string[];
  excludeDomains?: string[];
  /** Watch one namespace only; default all. */
  namespace?: string;
  /** Default ["service", "ingress"]. */
  sources?: SourceKind[];
  /** Only Ingresses of these classes; default all. */
  ingressClasses?: string[];
  /** Kubernetes label selector applied to watched resources. */
  labelSelector?: string;
  /** Annotation filter in label-selector syntax (external-dns's --annotation-filter). */
  annotationFilter?: string;
  /** Publish ClusterIP Services without internal-hostname; default false. */
  publishClusterIp?: boolean;
  /** Default "sync". */
  policy?: Policy;
  /** Seconds between full resyncs (a safety net; events drive changes); default 300. */
  resyncSeconds?: number;
  /** Lease-based leader election, required with more than one replica. */
  leaderElection?: {
    enabled: boolean;
    namespace: string;
    leaseName: string;
    /** This replica's name in the Lease; default $POD_NAME, else the host name. */
    identity?: string;
    /** client-go's defaults: 15 / 10 / 2 seconds. */
    leaseDurationSeconds?: number;
    renewDeadlineSeconds?: number;
    retryPeriodSeconds?: number;
  };
  /** kubeconfig file; default: the in-cluster ServiceAccount in a pod, else ~/.kube/config. */
  kubeconfig?: string;
  /** Take over the records external-dns's CoreDNS provider wrote for this owner id (migration). */
  adoptExternalDnsOwner?: string;
  /** Milliseconds to gather watch events into one sync; default 5. */
  debounceMs?: number;
  httpListen?: string;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}
