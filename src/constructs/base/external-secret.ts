// Opt-in: the External Secrets Operator fills a Secret key from an external store (Vault, a
// cloud secret manager, ...), so no secret value is ever in git. Needs its CRDs, so the
// ExternalSecret carries SkipDryRunOnMissingResource.
import { ApiObject } from 'cdk8s';
import type { SecretKeyRef } from './secret-key-ref.ts';
import { SKIP_DRY_RUN } from './gitops.ts';
import type { StackPart } from './stack-part.ts';

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

/** An ExternalSecret of `part`'s component, in sync wave `wave`, that owns the Secret `target` and fills its one key. */
export function externalSecret(
  part: StackPart,
  id: string,
  target: SecretKeyRef,
  source: ExternalSecretProps,
  wave: number,
): ApiObject {
  return new ApiObject(part, id, {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: part.meta(target.name, { wave, annotations: SKIP_DRY_RUN }),
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
