// How the controller reaches the API server: --kubeconfig when given, the pod's ServiceAccount
// inside a cluster, else the user's default kubeconfig.
import { KubeConfig } from '@kubernetes/client-node';

export function loadKubeConfig(file: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}
