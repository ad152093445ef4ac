// Assembles a running controller from its validated config: Kubernetes client, caches, etcd
// store, leader election, problem reporter, metrics. Shared by `etcdns controller` and `etcdns plan`.
import type { Etcd3 } from 'etcd3';
import type { ControllerConfig } from '../../config/controller-config.ts';
import { ConfigError } from '../../config/config-error.ts';
import { keyPath } from '../../config/schema-problems.ts';
import { addDiscoveredKinds, ruleKindKnown } from '../../config/source-kinds.ts';
import { UNKNOWN_RULE_KIND, unlistedRuleKinds } from '../../config/view-config.ts';
import { discoverUnstructured } from './sources/unstructured/unstructured-discovery.ts';
import { createEtcdClient } from '../shared/etcd-client.ts';
import { createLogger, type Logger } from '../shared/log.ts';
import { observeGarbageCollection } from '../shared/gc-metrics.ts';
import { Controller } from './controller.ts';
import { controllerMetrics, type ControllerMetrics } from './controller-metrics.ts';
import { podIdentity } from './controller-options.ts';
import { ClusterCache } from './kube/cluster-cache.ts';
import { KubeClient } from '../kube/kube-client.ts';
import { loadKubeTarget } from '../kube/kube-target.ts';
import { LeaderElector } from './kube/leader-election.ts';
import { ProblemReporter } from './kube/problem-reporter.ts';
import { StatusWriter } from './kube/status-writer.ts';
import { EtcdMirror } from './store/etcd-mirror.ts';
import { EtcdStore } from './store/etcd-store.ts';
import { ClusterLease } from './store/cluster-lease.ts';

/** The cluster lease's TTL unless `clusterLeaseSeconds` says otherwise. */
const CLUSTER_LEASE_SECONDS = 10;

export interface ControllerProcess {
  controller: Controller;
  /** Who this replica is (the pod name; in the Lease and every log line). */
  identity: string;
  cache: ClusterCache;
  elector: LeaderElector | undefined;
  etcd: Etcd3;
  metrics: ControllerMetrics;
  log: Logger;
  stop(): Promise<void>;
}

/**
 * The kinds of the unstructured source's --unstructured-resource, asked of the API server's
 * discovery before any informer starts; a resource it does not serve is a ConfigError naming it.
 */
export async function discoverSourceKinds(config: ControllerConfig): Promise<void> {
  if (!(config.sources ?? []).includes('unstructured')) return;
  const kube = new KubeClient(loadKubeTarget(config.kubeconfig));
  try {
    const found = await discoverUnstructured(kube, config.unstructuredResources ?? []);
    const problems = addDiscoveredKinds('unstructured', found);
    for (const { kind, keys } of unlistedRuleKinds(config.views ?? []))
      if (!ruleKindKnown(kind))
        problems.push(`${keyPath(keys)}: ${UNKNOWN_RULE_KIND}; discovery named ${found.map((f) => f.kind).join(', ')}`);
    if (problems.length > 0) throw new ConfigError(problems);
  } finally {
    kube.close();
  }
}

export function assembleController(
  config: ControllerConfig,
  mode: { dryRun: boolean; leaderElection: boolean },
): ControllerProcess {
  const identity = config.leaderElection?.identity ?? podIdentity();
  // The identity in every line: the audit lines of etcd writes say who wrote.
  const log = createLogger(config.logLevel ?? 'info', { component: 'controller', owner: config.ownerId, identity });
  const kube = new KubeClient(loadKubeTarget(config.kubeconfig));
  const etcd = createEtcdClient(config.etcd);
  const metrics = controllerMetrics();
  const stopGcObserver = observeGarbageCollection(metrics.registry);
  const cache = new ClusterCache(kube, {
    ...(config.namespace ? { namespace: config.namespace } : {}),
    sources: config.sources ?? ['service', 'ingress'],
    ...(config.gatewayNamespace ? { gatewayNamespace: config.gatewayNamespace } : {}),
    switches: config,
    // Callbacks run only after start, when `controller` below exists.
    onChange: (change) => controller.changed(change),
    log,
  });
  // A spoke's sign of life at the hub, held by the replica that writes (not by --once or a dry run).
  const clusterLease =
    config.cluster !== undefined && mode.leaderElection && !mode.dryRun
      ? new ClusterLease(etcd, {
          cluster: config.cluster,
          ttlSeconds: config.clusterLeaseSeconds ?? CLUSTER_LEASE_SECONDS,
          identity,
          log,
        })
      : undefined;
  const le = config.leaderElection;
  const elector =
    mode.leaderElection && le?.enabled
      ? new LeaderElector(
          kube,
          {
            namespace: le.namespace,
            leaseName: le.leaseName,
            identity,
            leaseDurationSeconds: le.leaseDurationSeconds ?? 15,
            renewDeadlineSeconds: le.renewDeadlineSeconds ?? 10,
            retryPeriodSeconds: le.retryPeriodSeconds ?? 2,
          },
          // A new leader syncs at once; it may be the first to see changes made while it waited.
          (leading) => {
            metrics.leader.set(leading ? 1 : 0);
            if (leading) clusterLease?.hold();
            else clusterLease?.release();
            if (leading) controller.resync();
          },
          log,
        )
      : undefined;
  const controller = new Controller({
    config,
    cache,
    storeFor: (prefix) => new EtcdStore(etcd, prefix),
    mirrorFor: (store, onReload) => new EtcdMirror(store, etcd, { log: log.with({ prefix: store.prefix }), onReload }),
    reporter: new ProblemReporter(mode.dryRun ? undefined : kube, identity, log),
    ...((config.sources ?? []).includes('crd')
      ? { status: new StatusWriter(mode.dryRun ? undefined : kube, log) }
      : {}),
    isLeader: () => (elector ? elector.isLeader() : true),
    dryRun: mode.dryRun,
    log,
    metrics,
  });
  // Without leader election this replica is the only writer.
  if (!elector) clusterLease?.hold();
  return {
    controller,
    identity,
    cache,
    elector,
    etcd,
    metrics,
    log,
    stop: async () => {
      stopGcObserver();
      clusterLease?.release();
      await controller.stop();
      await elector?.stop();
      cache.stop();
      kube.close();
      etcd.close();
    },
  };
}
