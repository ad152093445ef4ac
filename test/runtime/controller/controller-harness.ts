// Runs `etcdns controller` as users run it (bin/etcdns.js on the project's Node) against the test
// kube-apiserver, as a ServiceAccount with exactly the RBAC the DnsController construct synthesizes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { controllerClusterRules, leaderElectionRules } from '../../../src/constructs/controller/controller-rbac.ts';
import type { SourceKind } from '../../../src/config/source-kinds.ts';
import type { KubeHandle } from '../../support/kube-apiserver.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, waitFor, type ManagedProcess } from '../../support/process.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

export const CONTROLLER_NAMESPACE = 'etcdns';
export const CONTROLLER_NAME = 'etcdns-controller';

/**
 * Creates the namespace, ServiceAccount and the construct's RBAC for these sources (and unstructured resources) (a second call
 * in one API server sets the ClusterRole's rules to its sources); returns a kubeconfig file for it.
 */
export async function controllerKubeconfig(
  kube: KubeHandle,
  sources: SourceKind[] = ['ingress', 'service'],
  listenerSets = false,
  unstructuredResources: string[] = [],
): Promise<string> {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const rbac = kube.admin.makeApiClient(k8s.RbacAuthorizationV1Api);
  const exists = (e: { code?: number }) => {
    if (e.code !== 409) throw e;
  };
  const firstTime = await core.createNamespace({ body: { metadata: { name: CONTROLLER_NAMESPACE } } }).then(
    () => true,
    (e: { code?: number }) => (exists(e), false),
  );
  const meta = { name: CONTROLLER_NAME };
  const subjects = [{ kind: 'ServiceAccount', name: CONTROLLER_NAME, namespace: CONTROLLER_NAMESPACE }];
  const rules = controllerClusterRules(sources, { gatewayListenerSets: listenerSets, unstructuredResources });
  if (!firstTime) {
    await rbac.replaceClusterRole({ name: CONTROLLER_NAME, body: { metadata: meta, rules } });
    return kube.writeKubeconfig(await kube.asServiceAccount(CONTROLLER_NAMESPACE, CONTROLLER_NAME));
  }
  await rbac.createClusterRole({ body: { metadata: meta, rules } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CONTROLLER_NAME },
      subjects,
    },
  });
  await rbac.createNamespacedRole({
    namespace: CONTROLLER_NAMESPACE,
    body: { metadata: meta, rules: leaderElectionRules(CONTROLLER_NAME) },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: CONTROLLER_NAMESPACE,
    body: {
      metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CONTROLLER_NAME },
      subjects,
    },
  });
  return kube.writeKubeconfig(await kube.asServiceAccount(CONTROLLER_NAMESPACE, CONTROLLER_NAME));
}

export interface ControllerHandle {
  process: ManagedProcess;
  /** Port of /healthz, /readyz, /metrics (on 127.0.0.1). */
  httpPort: number;
  http(path: string): Promise<{ status: number; body: string }>;
  /** A metric's value from /metrics (sum over label sets matching `labels`). */
  metric(name: string, labels?: string): Promise<number>;
  stop(): Promise<void>;
}

export interface ControllerOptions {
  kubeconfigFile: string;
  etcdEndpoints: string[];
  ownerId: string;
  /** Replica name in the Lease. */
  identity?: string;
  args?: string[];
  /** Wait for /readyz 200 (default true). */
  waitReady?: boolean;
}

/** bin/etcdns.js, a command, and where and as whom it works. */
function commandArgs(
  command: 'controller' | 'plan',
  o: Pick<ControllerOptions, 'kubeconfigFile' | 'etcdEndpoints' | 'ownerId'>,
) {
  return [
    etcdnsBin,
    command,
    '--kubeconfig',
    o.kubeconfigFile,
    '--etcd',
    o.etcdEndpoints.join(','),
    '--owner-id',
    o.ownerId,
  ];
}

type RunOptions = Pick<ControllerOptions, 'kubeconfigFile' | 'etcdEndpoints' | 'ownerId' | 'args'>;

/** Runs a command to its end; resolves with its exit code and output. */
async function runToEnd(
  command: 'controller' | 'plan',
  o: RunOptions,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(nodeBin, [...commandArgs(command, o), ...(o.args ?? [])]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** Runs `etcdns plan` to its end; resolves with its exit code (3: changes) and output. */
export const runPlan = (o: RunOptions) => runToEnd('plan', o);

/** Runs `etcdns controller --once` (one sync, no leader election) to its end. */
export const runOnce = (o: RunOptions) => runToEnd('controller', { ...o, args: ['--once', ...(o.args ?? [])] });

export async function startController(o: ControllerOptions): Promise<ControllerHandle> {
  const httpPort = await freePort();
  const proc = startProcess(
    `controller-${o.identity ?? 'a'}`,
    nodeBin,
    [
      ...commandArgs('controller', o),
      '--http-listen',
      `127.0.0.1:${httpPort}`,
      '--leader-elect',
      '--leader-election-namespace',
      CONTROLLER_NAMESPACE,
      '--lease-name',
      CONTROLLER_NAME,
      '--lease-duration-seconds',
      '3',
      '--renew-deadline-seconds',
      '2',
      '--retry-period-seconds',
      '1',
      ...(o.args ?? []),
    ],
    { env: { POD_NAME: o.identity ?? 'controller-a', ETCDNS_LOG_LEVEL: 'debug' } },
  );
  const http = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${httpPort}${path}`, { signal: AbortSignal.timeout(2000) });
    return { status: res.status, body: await res.text() };
  };
  const metric = async (name: string, labels = '') => metricSum((await http('/metrics')).body, name, labels);
  if (o.waitReady ?? true) {
    await waitFor(`${proc.name} ready`, async () => {
      if (!proc.running()) throw new Error(`${proc.name} exited:\n${proc.logs().slice(-3000)}`);
      return (await http('/readyz').catch(() => ({ status: 0 }))).status === 200 ? true : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}\n--- ${proc.name} output ---\n${proc.logs().slice(-3000)}`);
    });
  }
  return { process: proc, httpPort, http, metric, stop: () => proc.stop() };
}
