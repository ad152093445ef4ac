// A real Argo CD on a cluster of cluster.ts: the application-controller and repo-server of Argo CD
// v3.5.7 (one `argocd` binary, built by scripts/setup-cluster-env.sh into .cache/bin with
// kustomize and the module's git-verify-wrapper.sh; ARGOCD_BINARY_NAME picks the role) and
// Debian's redis as its cache, run as processes on the host as the install manifests run them as
// pods. ARGOCD_FAKE_IN_CLUSTER makes the in-cluster destination (https://kubernetes.default.svc)
// the admin kubeconfig. Installed first: Argo CD's CRDs (.cache/argocd-crds/), its base config
// (.cache/argocd-config/, the ConfigMaps and Secret of manifests/base/config) applied as its
// install manifests are (client-side), and the `default` AppProject its API server would create.
// Every port is on loopback but the controller's metrics listener, which binds every address.
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from './cluster.ts';
import { freePort } from './ports.ts';
import { GiveUp, startProcess, waitFor, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { repoRoot } from './tools.ts';

export const ARGOCD_NAMESPACE = 'argocd';
const cache = join(repoRoot, '.cache');
const bin = join(cache, 'bin');

export interface ResourceStatus {
  group?: string;
  version?: string;
  kind: string;
  namespace?: string;
  name: string;
  status?: string;
  health?: { status?: string; message?: string };
  syncWave?: number;
}

export interface ApplicationStatus {
  sync?: { status?: string; revision?: string };
  health?: { status?: string; message?: string };
  resources?: ResourceStatus[];
  reconciledAt?: string;
  operationState?: {
    phase?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
    operation?: { sync?: { revision?: string } };
    syncResult?: {
      revision?: string;
      resources?: {
        group?: string;
        kind: string;
        namespace?: string;
        name: string;
        status?: string;
        message?: string;
        syncPhase?: string;
        hookPhase?: string;
      }[];
    };
  };
  history?: { revision?: string; deployedAt?: string }[];
}

export interface ArgoCd {
  redis: ManagedProcess;
  repoServer: ManagedProcess;
  controller: ManagedProcess;
  /** The Application's status (undefined while it does not exist). */
  application(name: string): Promise<ApplicationStatus | undefined>;
  /** Asks for a refresh now (the argocd.argoproj.io/refresh annotation a webhook or `argocd app get --refresh` sets). */
  refresh(name: string): void;
  /** All three processes' logs, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

const DEFAULT_PROJECT = `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: default
  namespace: ${ARGOCD_NAMESPACE}
spec:
  sourceRepos: ['*']
  destinations: [{ namespace: '*', server: '*' }]
  clusterResourceWhitelist: [{ group: '*', kind: '*' }]
`;

/** Installs Argo CD's CRDs, config and default project, then starts redis, the repo-server and the controller. */
export async function startArgoCd(cluster: Cluster): Promise<ArgoCd> {
  cluster.kubectl(['apply', '--server-side', '--field-manager=argocd-install', '-f', join(cache, 'argocd-crds')]);
  // A CRD applied a moment ago may have no status yet, which kubectl wait takes for an error
  // ("accessor error: <nil>", seen in a fresh-clone CI): asked again until every one is Established.
  await waitFor(
    "Argo CD's CRDs Established",
    () => {
      try {
        cluster.kubectl(['wait', '--for=condition=Established', '--timeout=20s', 'crd', '--all']);
        return true;
      } catch (e) {
        if (/accessor error/.test((e as Error).message)) return undefined;
        throw e;
      }
    },
    60_000,
    500,
  );
  cluster.kubectl(['create', 'namespace', ARGOCD_NAMESPACE]);
  cluster.kubectl(['apply', '-n', ARGOCD_NAMESPACE, '-f', join(cache, 'argocd-config')]);
  cluster.kubectl(['apply', '-f', '-'], DEFAULT_PROJECT);

  const dir = tempDir('argocd');
  const redisPort = await freePort();
  const redis = startProcess('redis', '/usr/bin/redis-server', [
    '--bind',
    '127.0.0.1',
    '--port',
    String(redisPort),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
  await waitReady(redis, 'ready', async () => /Ready to accept connections/.test(redis.logs()), 10_000);

  // The repo-server runs git, kustomize and git-verify-wrapper.sh from PATH, and keeps its
  // TLS, SSH and GnuPG data under these paths (in the image, /app/config/...).
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    KUBECONFIG: cluster.kubeconfigFile,
    ARGOCD_FAKE_IN_CLUSTER: 'true',
    ARGOCD_TLS_DATA_PATH: tempDir('argocd-tls', dir),
    ARGOCD_SSH_DATA_PATH: tempDir('argocd-ssh', dir),
    ARGOCD_GNUPGHOME: tempDir('argocd-gnupg', dir),
    ARGOCD_GPG_ENABLED: 'false',
    TMPDIR: tempDir('argocd-tmp', dir),
  };
  const repoPort = await freePort();
  const repoMetrics = await freePort();
  const repoServer = startProcess(
    'argocd-repo-server',
    join(bin, 'argocd'),
    [
      '--disable-tls',
      '--address=127.0.0.1',
      `--port=${repoPort}`,
      '--metrics-address=127.0.0.1',
      `--metrics-port=${repoMetrics}`,
      `--redis=127.0.0.1:${redisPort}`,
      '--client-ca-path=',
      '--logformat=text',
    ],
    { env: { ...env, ARGOCD_BINARY_NAME: 'argocd-repo-server' } },
  );
  const healthz = (port: number) => async () =>
    (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) })).ok;
  await waitReady(repoServer, 'healthy', healthz(repoMetrics), 60_000);

  const controllerMetrics = await freePort();
  const controller = startProcess(
    'argocd-application-controller',
    join(bin, 'argocd'),
    [
      `--namespace=${ARGOCD_NAMESPACE}`,
      `--repo-server=127.0.0.1:${repoPort}`,
      '--repo-server-plaintext',
      `--redis=127.0.0.1:${redisPort}`,
      `--metrics-port=${controllerMetrics}`,
      // Each resource's health in the Application's status, where the checks read it (Argo CD 3
      // keeps it only in redis by default, for its API server).
      '--persist-resource-health=true',
      '--logformat=text',
    ],
    { env: { ...env, ARGOCD_BINARY_NAME: 'argocd-application-controller' } },
  );
  await waitReady(controller, 'healthy', healthz(controllerMetrics), 60_000);

  const objects = cluster.admin.makeApiClient(k8s.CustomObjectsApi);
  const procs = [controller, repoServer, redis];
  return {
    redis,
    repoServer,
    controller,
    async application(name) {
      try {
        const app = (await objects.getNamespacedCustomObject({
          group: 'argoproj.io',
          version: 'v1alpha1',
          namespace: ARGOCD_NAMESPACE,
          plural: 'applications',
          name,
        })) as { status?: ApplicationStatus };
        return app.status ?? {};
      } catch (e) {
        if ((e as { code?: number }).code === 404) return undefined;
        throw e;
      }
    },
    refresh(name) {
      cluster.kubectl([
        'annotate',
        '--overwrite',
        '-n',
        ARGOCD_NAMESPACE,
        'applications.argoproj.io',
        name,
        'argocd.argoproj.io/refresh=normal',
      ]);
    },
    logs: () => procs.map((p) => `--- ${p.name} ---\n${p.logs().slice(-8000)}`).join('\n'),
    async stop() {
      for (const p of procs) await p.stop();
    },
  };
}

/** "Kind/namespace/name health" of every resource of the Application that is not Healthy (those with a health). */
export function unhealthy(status: ApplicationStatus | undefined): string[] {
  return (status?.resources ?? [])
    .filter((r) => r.health?.status !== undefined && r.health.status !== 'Healthy')
    .map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name} ${r.health?.status} ${r.health?.message ?? ''}`);
}

/**
 * Waits until the Application is Synced at `revision` (a commit) with its last sync Succeeded and
 * its health `health`; fails at once when the sync operation failed or errored.
 */
export async function waitApplication(
  argocd: ArgoCd,
  name: string,
  o: { revision: string; health?: string; timeoutMs: number },
): Promise<ApplicationStatus> {
  let last: ApplicationStatus | undefined;
  const health = o.health ?? 'Healthy';
  try {
    return await waitFor(
      `Application ${name} Synced at ${o.revision.slice(0, 12)} and ${health}`,
      async () => {
        last = await argocd.application(name);
        const op = last?.operationState;
        if (op && ['Failed', 'Error'].includes(op.phase ?? '') && op.syncResult?.revision === o.revision)
          throw new GiveUp(`sync ${op.phase}: ${op.message}`);
        const synced = last?.sync?.status === 'Synced' && last.sync.revision === o.revision;
        const done = !op || (op.phase === 'Succeeded' && op.syncResult?.revision === o.revision);
        return synced && done && last?.health?.status === health ? last : undefined;
      },
      o.timeoutMs,
      100,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status: ${describeStatus(last)}\n${argocd.logs()}`, { cause: e });
  }
}

/** What a failure message says of an Application's last status. */
function describeStatus(last: ApplicationStatus | undefined): string {
  return JSON.stringify({
    sync: last?.sync,
    health: last?.health,
    operation: { phase: last?.operationState?.phase, message: last?.operationState?.message },
    unhealthy: unhealthy(last),
    outOfSync: (last?.resources ?? []).filter((r) => r.status !== 'Synced').map((r) => `${r.kind}/${r.name}`),
    result: last?.operationState?.syncResult?.resources?.map((r) => `${r.kind}/${r.name} ${r.status} ${r.message}`),
  });
}

/** Waits until the Application's status passes `done`; a timeout says its last status. */
export async function untilApplication(
  argocd: ArgoCd,
  name: string,
  what: string,
  done: (s: ApplicationStatus) => boolean,
  timeoutMs: number,
): Promise<ApplicationStatus> {
  let last: ApplicationStatus | undefined;
  try {
    return await waitFor(
      what,
      async () => {
        last = await argocd.application(name);
        return last && done(last) ? last : undefined;
      },
      timeoutMs,
      100,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status: ${describeStatus(last)}`, { cause: e });
  }
}
