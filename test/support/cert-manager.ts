// A real cert-manager (v1.21.2's controllers, scripts/cert-manager-controller.go, built by
// scripts/setup-test-env.sh) against a kube-apiserver of kube-apiserver.ts: its CRDs installed
// from .cache/crds/, the controller run as a process with the admin kubeconfig, no leader election,
// only the controllers an ACME Issuer and a Certificate need. There is no webhook: objects must be
// complete as created (the webhook would only default and validate them).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { KubeHandle } from './kube-apiserver.ts';
import { crdsIn, installCrds } from './crds.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import { repoRoot, tool } from './tools.ts';

export const CERT_MANAGER_VERSION = 'v1.21.2';
export const CERT_MANAGER_NAMESPACE = 'cert-manager';

/** Issuers, ACME orders and challenges, CertificateRequests approved and signed by ACME, Certificates. */
const CONTROLLERS = [
  'issuers',
  'orders',
  'challenges',
  'certificaterequests-approver',
  'certificaterequests-issuer-acme',
  'certificates-trigger',
  'certificates-key-manager',
  'certificates-request-manager',
  'certificates-issuing',
  'certificates-readiness',
  'certificates-revision-manager',
];

export interface CertManagerOptions {
  /** host:port the DNS-01 self-check asks, and only those (cert-manager's --dns01-recursive-nameservers-only). */
  dns01Nameservers: string[];
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface CertManagerHandle {
  process: ManagedProcess;
  /** The object's Ready condition (undefined until cert-manager set one). */
  ready(plural: 'issuers' | 'certificates', namespace: string, name: string): Promise<Condition | undefined>;
  stop(): Promise<void>;
}

export async function startCertManager(kube: KubeHandle, o: CertManagerOptions): Promise<CertManagerHandle> {
  const dir = join(repoRoot, '.cache', 'crds', `cert-manager-${CERT_MANAGER_VERSION}`);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f));
  await installCrds(kube.admin, crdsIn(files), 'as-is');
  await kube.admin
    .makeApiClient(k8s.CoreV1Api)
    .createNamespace({ body: { metadata: { name: CERT_MANAGER_NAMESPACE } } });
  const proc = startProcess('cert-manager', tool('cert-manager-controller'), [
    `--kubeconfig=${kube.kubeconfigFile}`,
    `--cluster-resource-namespace=${CERT_MANAGER_NAMESPACE}`,
    `--controllers=${CONTROLLERS.join(',')}`,
    `--dns01-recursive-nameservers=${o.dns01Nameservers.join(',')}`,
    // The release's default is 10 s: a test waits for the first check that can pass.
    '--dns01-check-retry-period=1s',
  ]);
  const objects = kube.admin.makeApiClient(k8s.CustomObjectsApi);
  return {
    process: proc,
    async ready(plural, namespace, name) {
      const object = (await objects.getNamespacedCustomObject({
        group: 'cert-manager.io',
        version: 'v1',
        namespace,
        plural,
        name,
      })) as { status?: { conditions?: Condition[] } };
      return object.status?.conditions?.find((c) => c.type === 'Ready');
    },
    stop: () => proc.stop(),
  };
}
