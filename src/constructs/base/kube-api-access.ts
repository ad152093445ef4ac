// The ServiceAccount token, CA and namespace a container reads the API server with: what the
// kubelet mounts for automountServiceAccountToken, mounted explicitly into the one container that
// needs it (the ServiceAccounts and pods keep automountServiceAccountToken: false).
import { k8s } from 'cdk8s-plus-27';

/** Where client-go and etcdns's kube client look for them (kube-target.ts's SERVICE_ACCOUNT_DIR). */
const API_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export const KUBE_API_ACCESS_VOLUME: k8s.Volume = {
  name: 'kube-api-access',
  projected: {
    defaultMode: 0o444,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardApi: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};

export const KUBE_API_ACCESS_MOUNT: k8s.VolumeMount = { name: 'kube-api-access', mountPath: API_DIR, readOnly: true };
