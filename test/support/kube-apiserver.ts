// A real kube-apiserver (built from k8s.io/kubernetes) on loopback, backed by its own etcd:
// TLS with a generated CA, static-token authentication for an admin, RBAC authorization, and
// real ServiceAccount tokens (TokenRequest) to act as a given ServiceAccount.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { makeTestPki, type TestPki } from './certificates.ts';
import { startEtcd, type EtcdHandle } from './etcd.ts';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface KubeHandle {
  /** https://127.0.0.1:PORT */
  server: string;
  /** Admin (system:masters) client configuration. */
  admin: k8s.KubeConfig;
  /** Admin kubeconfig on disk, for programs such as external-dns. */
  kubeconfigFile: string;
  pki: TestPki;
  etcd: EtcdHandle;
  readonly process: ManagedProcess;
  /** A client configuration authenticated as the ServiceAccount (created if missing) with a real token. */
  asServiceAccount(namespace: string, name: string): Promise<k8s.KubeConfig>;
  /** Stops the API server and starts it again on the same port and etcd (its watch cache starts empty). */
  restart(): Promise<void>;
  /** Writes a kubeconfig file for `config` (e.g. a ServiceAccount's) and returns its path. */
  writeKubeconfig(config: k8s.KubeConfig): string;
  stop(): Promise<void>;
}

function kubeConfig(server: string, caFile: string, user: string, token: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'test', server, caData: readFileSync(caFile).toString('base64'), skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: 'test', cluster: 'test', user }],
    currentContext: 'test',
  });
  return kc;
}

export async function startKubeApiserver(): Promise<KubeHandle> {
  const dir = tempDir('kube-apiserver');
  const pki = makeTestPki(dir, 'kube-apiserver');
  const etcd = await startEtcd();
  const port = await freePort();
  const server = `https://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${adminToken},admin,admin-uid,"system:masters"\n`);

  const args = [
    `--etcd-servers=${etcd.endpoint}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    // The endpoint reconciler refuses a loopback advertise address; tests need no kubernetes Endpoints.
    '--endpoint-reconciler-type=none',
    `--secure-port=${port}`,
    `--cert-dir=${dir}`,
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--token-auth-file=${tokens}`,
    '--authorization-mode=RBAC',
    '--anonymous-auth=false',
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    '--api-audiences=https://kubernetes.default.svc.cluster.local',
    '--service-cluster-ip-range=10.96.0.0/16',
    '--enable-priority-and-fairness=false',
    '--profiling=false',
    '--v=1',
  ];

  const admin = kubeConfig(server, pki.caCert, 'admin', adminToken);
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const launch = async () => {
    const started = startProcess('kube-apiserver', tool('kube-apiserver'), args);
    await waitReady(started, 'ready', apiserverReady(admin), 120_000);
    return started;
  };
  let proc = await launch();

  const writeKubeconfig = (config: k8s.KubeConfig) => {
    const file = join(dir, `kubeconfig-${randomBytes(4).toString('hex')}`);
    writeFileSync(file, config.exportConfig());
    return file;
  };

  return {
    server,
    admin,
    kubeconfigFile: writeKubeconfig(admin),
    pki,
    etcd,
    get process() {
      return proc;
    },
    writeKubeconfig,
    restart: async () => {
      await proc.stop();
      proc = await launch();
    },
    asServiceAccount: async (namespace, name) => {
      await core
        .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } })
        .catch((e: { code?: number }) => {
          if (e.code !== 409) throw e;
        });
      const request = await core.createNamespacedServiceAccountToken({
        namespace,
        name,
        body: { spec: { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 3600 } },
      });
      const token = request.status?.token;
      if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
      return kubeConfig(server, pki.caCert, `system:serviceaccount:${namespace}:${name}`, token);
    },
    stop: async () => {
      await proc.stop();
      await etcd.stop();
    },
  };
}

/**
 * The readiness probe of a kube-apiserver, for waitReady(): ready once /readyz passes every check
 * (among them the RBAC bootstrap: before it, a ServiceAccount is refused even discovery, GET /api/v1
 * 403, which a fast machine hit), the bootstrap controllers have created the default namespace and
 * the default ServiceCIDR is ready (before that, creating a Service fails with "range is full").
 */
export function apiserverReady(admin: k8s.KubeConfig): () => Promise<boolean> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const networking = admin.makeApiClient(k8s.NetworkingV1Api);
  return async () => {
    if ((await readyzStatus(admin)) !== 200) return false;
    await core.readNamespace({ name: 'default' });
    const cidr = await networking.readServiceCIDR({ name: 'kubernetes' });
    return cidr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  };
}

/** The HTTP status of GET /readyz as the admin (200: every readiness check passed). */
async function readyzStatus(admin: k8s.KubeConfig): Promise<number> {
  const options: https.RequestOptions = {};
  await admin.applyToHTTPSOptions(options);
  const url = new URL('/readyz', admin.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ...options, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('GET /readyz timed out')));
    req.on('error', reject);
  });
}
