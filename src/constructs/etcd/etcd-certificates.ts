// Opt-in: cert-manager issues etcd's TLS Secrets. One Certificate per Secret, with the names etcd
// is reached by and the usages it checks (etcd also dials itself with its server certificate,
// hence client auth on it). Needs cert-manager's CRDs, so each carries SkipDryRunOnMissingResource.
// etcd reloads renewed certificates per connection; etcdns pods read theirs at start.
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { COMPONENT } from '../base/labels.ts';
import { SKIP_DRY_RUN, SYNC_WAVE } from '../base/gitops.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';

export interface CertManagerProps {
  /** Name of the cert-manager issuer that signs all three certificates (one CA). */
  readonly issuerName: string;
  /**
   * Kind of the issuer.
   * @default "ClusterIssuer"
   */
  readonly issuerKind?: 'Issuer' | 'ClusterIssuer';
  /**
   * Certificate lifetime.
   * @default "2160h" (90 days)
   */
  readonly duration?: string;
  /**
   * Renew this long before expiry.
   * @default "360h" (15 days)
   */
  readonly renewBefore?: string;
}

/** Names a certificate is valid for, besides the in-cluster ones. */
export interface SubjectNames {
  /** Host names (dnsNames). */
  readonly dnsNames: string[];
  /** IP addresses (ipAddresses). */
  readonly ipAddresses: string[];
}

export interface EtcdCertificatesProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** app.kubernetes.io/version: the etcd image tag. */
  readonly version: string;
  /** The client Service of the cluster. */
  readonly clientService: string;
  /** The headless peer Service: members are `<pod>.<peerService>`. */
  readonly peerService: string;
  /** DNS domain of the cluster: the full names end in `.svc.<clusterDomain>`. */
  readonly clusterDomain: string;
  /** Secrets to issue. */
  readonly secrets: {
    /** What etcd serves to clients. */
    readonly server: string;
    /** What members present to each other; the server Secret again means one certificate for both. */
    readonly peer: string;
    /** What the DNS server and the controller present. */
    readonly client: string;
  };
  /** Common name of the client certificate: the etcd user when etcd maps certificates to users. */
  readonly clientCommonName: string;
  /**
   * What a hub's spokes dial (its spoke Service's names), also in the server certificate.
   * @default - none
   */
  readonly spokeNames?: SubjectNames;
  /** Who signs. */
  readonly issuer: CertManagerProps;
  /**
   * Extra labels.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

/**
 * The DNS names of etcd's server and peer certificates. The short names are what the stack dials,
 * valid in any namespace an overlay moves it to. The full names are the synthesized namespace's:
 * etcd checks a member's client certificate against the names a reverse lookup of its address
 * gives (`<pod>.<peer>.<ns>.svc.<clusterDomain>`), members bootstrapped by etcdns 0.1.0 keep
 * `<pod>.<peer>.<ns>.svc` as their peer URLs, and clients elsewhere may dial the client Service's.
 */
export function etcdDnsNames(o: {
  clientService: string;
  peerService: string;
  namespace: string;
  clusterDomain: string;
}): { server: string[]; peer: string[] } {
  const svc = `${o.namespace}.svc`;
  const client = [o.clientService, `${o.clientService}.${o.namespace}`, `${o.clientService}.${svc}`];
  const peer = [`*.${o.peerService}`, `*.${o.peerService}.${svc}`, `*.${o.peerService}.${svc}.${o.clusterDomain}`];
  return { server: [...client, `${o.clientService}.${svc}.${o.clusterDomain}`, ...peer, 'localhost'], peer };
}

export class EtcdCertificates extends StackPart {
  constructor(scope: Construct, id: string, props: EtcdCertificatesProps) {
    const { stack, secrets } = props;
    super(scope, id, stack, {
      component: COMPONENT.etcd,
      version: props.version,
      // Before etcd: its pods cannot start without the Secrets.
      wave: SYNC_WAVE.secrets,
      labels: props.labels,
    });
    const names = etcdDnsNames({ ...props, namespace: stack.namespace });
    const certificate = (secretName: string, spec: Record<string, unknown>) =>
      new ApiObject(this, secretName, {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: this.meta(secretName, { annotations: SKIP_DRY_RUN }),
        spec: {
          secretName,
          issuerRef: {
            group: 'cert-manager.io',
            kind: props.issuer.issuerKind ?? 'ClusterIssuer',
            name: props.issuer.issuerName,
          },
          duration: props.issuer.duration ?? '2160h',
          renewBefore: props.issuer.renewBefore ?? '360h',
          privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
          ...spec,
        },
      });

    const serverCoversPeers = secrets.peer === secrets.server;
    certificate(secrets.server, {
      commonName: props.clientService,
      dnsNames: [...names.server, ...(props.spokeNames?.dnsNames ?? [])],
      ipAddresses: ['127.0.0.1', ...(props.spokeNames?.ipAddresses ?? [])],
      usages: ['server auth', 'client auth', 'digital signature'],
    });
    if (!serverCoversPeers)
      certificate(secrets.peer, {
        commonName: names.peer[0],
        dnsNames: names.peer,
        usages: ['server auth', 'client auth', 'digital signature'],
      });
    certificate(secrets.client, {
      commonName: props.clientCommonName,
      usages: ['client auth', 'digital signature'],
    });
  }
}
