// A StatefulSet's one data volume (etcd's members, the DNSSEC signer): its claim template, and the
// spec as JSON with that template the way the API server stores it.
import { k8s } from 'cdk8s-plus-27';

/** Size and StorageClass of a StatefulSet's data volume; a field left out keeps the default. */
export interface DataStorage {
  readonly size?: string;
  readonly storageClassName?: string;
}

/** The claim template `data`: only the fixed selector labels, as claim templates are immutable after creation. */
export function dataClaimTemplate(
  selector: Record<string, string>,
  storage: DataStorage | undefined,
  defaultSize: string,
): k8s.KubePersistentVolumeClaimProps {
  return {
    metadata: { name: 'data', labels: selector },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: k8s.Quantity.fromString(storage?.size ?? defaultSize) } },
      ...(storage?.storageClassName ? { storageClassName: storage.storageClassName } : {}),
      volumeMode: 'Filesystem',
    },
  };
}

/**
 * The spec as JSON for a plain ApiObject: the typed KubeStatefulSet drops apiVersion and kind from
 * the claim templates, which the API server fills in, so Argo CD would show a permanent diff.
 */
export function statefulSetSpecJson(spec: k8s.StatefulSetSpec): Record<string, unknown> {
  const json = k8s.toJson_StatefulSetSpec(spec)!;
  json.volumeClaimTemplates = (json.volumeClaimTemplates as object[]).map((claim) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    ...claim,
  }));
  return json;
}
