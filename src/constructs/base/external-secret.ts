// Opt-in: the External Secrets Operator fills a Secret key from an external store (Vault, a
// cloud secret manager, ...), so no secret value is ever in git. Needs its CRDs, so the
// ExternalSecret carries SkipDryRunOnMissingResource.
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import type { SecretKeyRef } from './secret-key-ref.ts';
import { SKIP_DRY_RUN } from './gitops.ts';
import { objectMeta, type StackContext } from './stack-context.ts';

export interface ExternalSecretProps {
  /** The SecretStore or ClusterSecretStore to read from. */
  readonly storeName: string;
  /**
   * Kind of the secret store.
   * @default "ClusterSecretStore"
   */
  readonly storeKind?: 'SecretStore' | 'ClusterSecretStore';
  /** Key of the value in the external store. */
  readonly remoteKey: string;
  /**
   * Property inside that value (e.g. a JSON field).
   * @default - the whole value
   */
  readonly remoteProperty?: string;
  /**
   * How often the operator re-reads it.
   * @default "1h"
   */
  readonly refreshInterval?: string;
}

export interface ExternalSecretIdentity {
  stack: StackContext;
  component: string;
  version: string;
  wave: number;
  labels?: Record<string, string>;
}

/** An ExternalSecret that owns the Secret `target` and fills its one key. */
export function externalSecret(
  scope: Construct,
  id: string,
  target: SecretKeyRef,
  source: ExternalSecretProps,
  identity: ExternalSecretIdentity,
): ApiObject {
  return new ApiObject(scope, id, {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: objectMeta(identity.stack, {
      name: target.name,
      component: identity.component,
      version: identity.version,
      namespaced: true,
      wave: identity.wave,
      labels: identity.labels,
      annotations: SKIP_DRY_RUN,
    }),
    // Fully defaulted as the CRD (v1.3) defaults it: otherwise Argo CD's diff finds the API
    // server's defaults missing from Git and keeps the ExternalSecret OutOfSync.
    spec: {
      refreshInterval: source.refreshInterval ?? '1h',
      secretStoreRef: { kind: source.storeKind ?? 'ClusterSecretStore', name: source.storeName },
      target: { name: target.name, creationPolicy: 'Owner', deletionPolicy: 'Retain' },
      data: [
        {
          secretKey: target.key,
          remoteRef: {
            key: source.remoteKey,
            ...(source.remoteProperty ? { property: source.remoteProperty } : {}),
            conversionStrategy: 'Default',
            decodingStrategy: 'None',
            metadataPolicy: 'None',
          },
        },
      ],
    },
  });
}
