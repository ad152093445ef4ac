// A real Flux on a cluster of cluster.ts: source-controller and kustomize-controller v1.9.6
// (built by scripts/setup-cluster-env.sh into .cache/bin; their CRDs, .cache/flux-crds/, come
// from scripts/setup-test-env.sh),
// run as processes on the host with the admin kubeconfig, as `flux install` runs them as pods.
// Every port is on loopback: source-controller serves its artifacts on 127.0.0.1, where
// kustomize-controller (on the same host) fetches them.
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from './cluster.ts';
import { freePort } from './ports.ts';
import { startProcess, waitFor, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { repoRoot } from './tools.ts';

export const FLUX_NAMESPACE = 'flux-system';
const cache = join(repoRoot, '.cache');

export interface Flux {
  sourceController: ManagedProcess;
  kustomizeController: ManagedProcess;
  /** Asks for a reconcile now, as `flux reconcile` does (the reconcile.fluxcd.io/requestedAt annotation); returns its token. */
  requestReconcile(kind: 'GitRepository' | 'Kustomization', name: string): string;
  /**
   * Asks for a reconcile and waits until the controller handled it (status.lastHandledReconcileAt);
   * returns what the controller logged meanwhile.
   */
  reconcileNow(kind: 'GitRepository' | 'Kustomization', name: string, timeoutMs?: number): Promise<string>;
  /** The object's Ready condition (undefined before the first reconcile). */
  ready(kind: 'GitRepository' | 'Kustomization', name: string): Promise<FluxCondition | undefined>;
  /** Both controllers' logs, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

export interface FluxCondition {
  status: string;
  reason: string;
  message: string;
  /** status.lastAppliedRevision (Kustomization) or status.artifact.revision (GitRepository). */
  revision?: string;
  observedGeneration?: number;
  generation?: number;
}

const PLURAL = { GitRepository: 'gitrepositories', Kustomization: 'kustomizations' } as const;
const GROUP = {
  GitRepository: ['source.toolkit.fluxcd.io', 'v1'],
  Kustomization: ['kustomize.toolkit.fluxcd.io', 'v1'],
} as const;

/** Installs Flux's CRDs and the flux-system namespace, then starts both controllers. */
export async function startFlux(cluster: Cluster): Promise<Flux> {
  const crds = ['source-controller', 'kustomize-controller'].map((c) => join(cache, 'flux-crds', c));
  cluster.kubectl(['apply', '--server-side', '--field-manager=flux-install', ...crds.flatMap((d) => ['-f', d])]);
  cluster.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  cluster.kubectl(['create', 'namespace', FLUX_NAMESPACE]);

  // controller-runtime reads KUBECONFIG (the controllers have no flag for it).
  const env = { KUBECONFIG: cluster.kubeconfigFile, RUNTIME_NAMESPACE: FLUX_NAMESPACE };
  const common = async () => {
    const health = await freePort();
    return {
      health,
      args: [
        `--metrics-addr=127.0.0.1:${await freePort()}`,
        `--health-addr=127.0.0.1:${health}`,
        '--enable-leader-election=false',
        '--log-level=info',
        '--log-encoding=console',
      ],
    };
  };
  const storage = await freePort();
  const sc = await common();
  const sourceController = startProcess(
    'source-controller',
    join(cache, 'bin', 'source-controller'),
    [
      ...sc.args,
      `--storage-path=${tempDir('flux-artifacts')}`,
      `--storage-addr=127.0.0.1:${storage}`,
      `--storage-adv-addr=127.0.0.1:${storage}`,
    ],
    { env },
  );
  const kc = await common();
  const kustomizeController = startProcess(
    'kustomize-controller',
    join(cache, 'bin', 'kustomize-controller'),
    // A Kustomization waiting on another (dependsOn) looks again after 5 s instead of 30 s.
    [...kc.args, '--requeue-dependency=5s'],
    { env },
  );
  const readyz = (port: number) => async () =>
    (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) })).ok;
  await waitReady(sourceController, 'ready', readyz(sc.health), 60_000);
  await waitReady(kustomizeController, 'ready', readyz(kc.health), 60_000);

  const objects = cluster.admin.makeApiClient(k8s.CustomObjectsApi);
  const read = async (kind: keyof typeof PLURAL, name: string) => {
    const [group, version] = GROUP[kind];
    return (await objects.getNamespacedCustomObject({
      group,
      version,
      namespace: FLUX_NAMESPACE,
      plural: PLURAL[kind],
      name,
    })) as {
      metadata: { generation?: number };
      status?: {
        conditions?: { type: string; status: string; reason: string; message: string }[];
        lastAppliedRevision?: string;
        lastHandledReconcileAt?: string;
        artifact?: { revision?: string };
        observedGeneration?: number;
      };
    };
  };
  const requestReconcile = (kind: keyof typeof PLURAL, name: string) => {
    const token = new Date().toISOString();
    cluster.kubectl([
      'annotate',
      '--overwrite',
      '-n',
      FLUX_NAMESPACE,
      `${PLURAL[kind]}.${GROUP[kind][0]}`,
      name,
      `reconcile.fluxcd.io/requestedAt=${token}`,
    ]);
    return token;
  };
  return {
    sourceController,
    kustomizeController,
    requestReconcile,
    async reconcileNow(kind, name, timeoutMs = 120_000) {
      const controller = kind === 'Kustomization' ? kustomizeController : sourceController;
      const from = controller.logs().length;
      const token = requestReconcile(kind, name);
      await waitFor(
        `${kind} ${name} to handle the reconcile request ${token}`,
        async () => ((await read(kind, name)).status?.lastHandledReconcileAt === token ? true : undefined),
        timeoutMs,
        100,
      );
      const logs = controller.logs();
      // logs() keeps the last 1 MiB: when it was cut meanwhile, all of it.
      return logs.length >= from ? logs.slice(from) : logs;
    },
    async ready(kind, name) {
      const o = await read(kind, name);
      const c = o.status?.conditions?.find((x) => x.type === 'Ready');
      if (!c) return undefined;
      return {
        status: c.status,
        reason: c.reason,
        message: c.message,
        revision: o.status?.lastAppliedRevision ?? o.status?.artifact?.revision,
        observedGeneration: o.status?.observedGeneration,
        generation: o.metadata.generation,
      };
    },
    logs: () =>
      [sourceController, kustomizeController].map((p) => `--- ${p.name} ---\n${p.logs().slice(-6000)}`).join('\n'),
    async stop() {
      await kustomizeController.stop();
      await sourceController.stop();
    },
  };
}

/**
 * What kustomize-controller's "server-side apply completed" lines in `log` say it did to each
 * object ("Deployment/etcdns/etcdns-controller": "unchanged" | "configured" | "created" ...).
 */
export function appliedActions(log: string): Record<string, string> {
  const actions: Record<string, string> = {};
  for (const line of log.split('\n')) {
    const at = line.indexOf('server-side apply completed');
    if (at < 0) continue;
    const fields = JSON.parse(line.slice(line.indexOf('{', at))) as { output?: Record<string, string> };
    Object.assign(actions, fields.output);
  }
  return actions;
}

/**
 * Waits until the Kustomization is Ready at `revision` (a commit hash; Flux reports
 * "main@sha1:<hash>"), failing at once with its message when it reports a terminal failure.
 */
export async function waitKustomizationReady(
  flux: Flux,
  name: string,
  revision: string,
  timeoutMs: number,
): Promise<FluxCondition> {
  let last: FluxCondition | undefined;
  try {
    return await waitFor(
      `Kustomization ${name} Ready at ${revision.slice(0, 12)}`,
      async () => {
        last = await flux.ready('Kustomization', name);
        const current = last?.observedGeneration === last?.generation;
        return last?.status === 'True' && current && last.revision?.endsWith(revision) ? last : undefined;
      },
      timeoutMs,
      100,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last Ready condition: ${JSON.stringify(last)}\n${flux.logs()}`, {
      cause: e,
    });
  }
}
