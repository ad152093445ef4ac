// The reconcile loop (Controller) on its own, its dependencies faked at the edges: the cluster as
// plain lists, etcd as an in-memory store that can fail or report a conflict, the leader flag,
// the reporter. What is checked is the loop's own logic: the gauges derived from the one
// declaration of problem reasons and record types, debouncing of watch events, backoff while
// etcd fails, fencing (no write once leadership is lost), conflicts, standby and dry runs. The
// real-process tests (controller-e2e and the others) keep checking it against etcd and an API server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubernetesObject, V1Service } from '@kubernetes/client-node';
import { controllerConfigSchema, type ControllerConfigInput } from '../../../src/config/controller-config.ts';
import { parseConfig } from '../../../src/config/schema-problems.ts';
import type { ClusterKind } from '../../../src/config/source-kinds.ts';
import { createLogger } from '../../../src/runtime/shared/log.ts';
import { Controller, type SyncOutcome } from '../../../src/runtime/controller/controller.ts';
import { controllerMetrics } from '../../../src/runtime/controller/controller-metrics.ts';
import type { Problem } from '../../../src/runtime/controller/desired-record.ts';
import type { ClusterObjects } from '../../../src/runtime/controller/incremental/cluster-objects.ts';
import type { CurrentEntry } from '../../../src/runtime/controller/plan/current-entries.ts';
import type { Plan } from '../../../src/runtime/controller/plan/plan.ts';
import type { ApplyResult, EtcdStore } from '../../../src/runtime/controller/store/etcd-store.ts';
import { metricSum } from '../../support/metrics-text.ts';

const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';

/** A LoadBalancer Service publishing `host` at `ip`, with two named ports (two SRV records wanted). */
function service(name: string, host: string, ip: string): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: { [HOSTNAME]: host } },
    spec: {
      type: 'LoadBalancer',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
    },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

/** The cluster as a list of Services, always synced. */
class Cluster implements ClusterObjects {
  readonly services = new Map<string, V1Service>();
  objects(kind: ClusterKind): Iterable<KubernetesObject> {
    return kind === 'Service' ? this.services.values() : [];
  }
  object(kind: ClusterKind, _namespace: string | undefined, name: string) {
    return kind === 'Service' ? this.services.get(name) : undefined;
  }
  endpointSlices() {
    return [];
  }
  unseenResources() {
    return new Set<string>();
  }
  /** Every kind the cluster has is served. */
  servedState() {
    return [{ kind: 'Service', notServed: '' }];
  }
  synced() {
    return true;
  }
  unsynced() {
    return [];
  }
}

/** etcd's edge as a map: reads (or fails `failReads` times), applies (reporting `conflictOnce` once). */
class MemoryStore {
  readonly prefix: string;
  readonly entries = new Map<string, { value: string; modRevision: number }>();
  readonly readTimes: number[] = [];
  readonly applied: Plan[] = [];
  failReads = 0;
  conflictOnce: string[] = [];
  private revision = 1;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  read(): Promise<{ entries: CurrentEntry[]; revision: string }> {
    this.readTimes.push(performance.now());
    if (this.failReads > 0) {
      this.failReads -= 1;
      return Promise.reject(new Error('etcd unreachable (test)'));
    }
    const entries = [...this.entries].map(([key, e]) => ({ key, value: e.value, modRevision: String(e.modRevision) }));
    return Promise.resolve({ entries, revision: String(this.revision) });
  }

  apply(plan: Plan): Promise<ApplyResult> {
    this.applied.push(plan);
    const conflicted = this.conflictOnce.splice(0);
    let applied = 0;
    for (const c of [...plan.deletes, ...plan.updates, ...plan.creates]) {
      if (conflicted.includes(c.name)) continue;
      this.revision += 1;
      if (c.after !== undefined) this.entries.set(c.key, { value: c.after, modRevision: this.revision });
      else this.entries.delete(c.key);
      applied += 1;
    }
    return Promise.resolve({ applied, transactions: 1, conflicted, revision: this.revision });
  }
}

interface Rig {
  controller: Controller;
  cluster: Cluster;
  store: MemoryStore;
  metrics: ReturnType<typeof controllerMetrics>;
  reported: Problem[][];
  leader: { now: boolean };
  page: () => string;
  /** The loop's log lines, parsed. */
  logged: Record<string, unknown>[];
}

function rig(
  config: Partial<ControllerConfigInput> = {},
  hooks: { onReport?: () => void; dryRun?: boolean } = {},
): Rig {
  const parsed = parseConfig(controllerConfigSchema, {
    etcd: { endpoints: ['http://127.0.0.1:2379'] },
    ownerId: 'test-owner',
    domainFilter: ['example.org'],
    resyncSeconds: 3600,
    debounceMs: 30,
    ...config,
  });
  const cluster = new Cluster();
  const store = new MemoryStore('/skydns');
  const metrics = controllerMetrics();
  const reported: Problem[][] = [];
  const leader = { now: true };
  const logged: Record<string, unknown>[] = [];
  const controller = new Controller({
    config: parsed,
    cache: cluster,
    storeFor: () => store as unknown as EtcdStore,
    reporter: {
      report: (problems) => {
        reported.push([...problems]);
        hooks.onReport?.();
        return Promise.resolve(problems.length);
      },
    },
    isLeader: () => leader.now,
    dryRun: hooks.dryRun ?? false,
    // Kept out of the test's output; a test reads them.
    log: createLogger('error', {}, (line) => logged.push(JSON.parse(line) as Record<string, unknown>)),
    metrics,
  });
  return { controller, cluster, store, metrics, reported, leader, page: () => metrics.registry.render(), logged };
}

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const outcomes = (r: Rig, outcome: SyncOutcome) =>
  metricSum(r.page(), 'etcdns_controller_syncs_total', `result="${outcome}"`);

test('the gauges report every problem reason and record type of the one declaration (TooManyRecords, PTR)', async () => {
  // Two named ports but one SRV record allowed: TooManyRecords; the address in a reverse zone: a PTR.
  const r = rig({ srv: true, srvMaxPerService: 1, reverseZones: [{ network: '10.0.0.0/24' }] });
  r.cluster.services.set('web', service('web', 'web.example.org', '10.0.0.5'));
  assert.equal(await r.controller.syncOnce(), 'applied');
  const page = r.page();
  assert.equal(metricSum(page, 'etcdns_controller_problems', 'reason="TooManyRecords"'), 1, page);
  assert.match(page, /etcdns_controller_problems\{reason="PrivateAddressRefused"\} 0/);
  assert.equal(metricSum(page, 'etcdns_controller_records', 'type="PTR"'), 1, page);
  assert.equal(metricSum(page, 'etcdns_controller_records', 'type="SRV"'), 1, page);
  assert.equal(metricSum(page, 'etcdns_controller_records', 'type="A"'), 1, page);
  assert.match(page, /etcdns_controller_records\{type="NS",view="internal"\} 0/);
  assert.deepEqual(
    r.reported.at(-1)!.map((p) => p.reason),
    ['TooManyRecords'],
  );
});

test('watch events within the debounce make one sync', async () => {
  const r = rig({ debounceMs: 50 });
  r.controller.start();
  try {
    await until('the first sync', () => outcomes(r, 'applied') + outcomes(r, 'unchanged') === 1);
    const reads = r.store.readTimes.length;
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      r.cluster.services.set(name, service(name, `${name}.example.org`, '192.0.2.10'));
      r.controller.changed({ objects: [{ kind: 'Service', namespace: 'default', name }] });
    }
    await until('the events synced', () => outcomes(r, 'applied') >= 1 && r.store.applied.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(r.store.readTimes.length - reads, 1, 'one read for the five events');
    assert.equal(r.store.applied.length, 1);
    assert.equal(r.store.applied[0]!.creates.length, 5);
  } finally {
    await r.controller.stop();
  }
});

test('while etcd fails, the loop retries with a doubling wait and is not ready; then it catches up', async () => {
  const r = rig();
  r.cluster.services.set('web', service('web', 'web.example.org', '192.0.2.10'));
  r.store.failReads = 3;
  r.controller.start();
  try {
    await until('the first failure', () => r.store.readTimes.length >= 1);
    await until('readiness says why', () => /etcd unreachable/.test(r.controller.readiness().detail));
    assert.equal(r.controller.readiness().ready, false);
    await until('a write after the failures', () => r.store.applied.length === 1, 10_000);
    const t = r.store.readTimes;
    const gaps = t.slice(1, 4).map((at, i) => at - t[i]!);
    // The waits the loop scheduled double; the reads came no earlier (a timer fires late under
    // load, never early, so the gaps bound the waits from below only).
    const waits = r.logged.filter((l) => l.msg === 'etcd unavailable; retrying').map((l) => l.retryMs);
    assert.deepEqual(waits, [200, 400, 800]);
    assert.ok(gaps[0]! >= 195 && gaps[1]! >= 395 && gaps[2]! >= 795, `gaps ${gaps.map(Math.round).join(', ')} ms`);
    assert.equal(metricSum(r.page(), 'etcdns_controller_errors_total', 'kind="etcd"'), 3);
    await until('ready', () => r.controller.readiness().ready);
  } finally {
    await r.controller.stop();
  }
});

test('fencing: leadership lost while reporting means nothing is written', async () => {
  let lose = true;
  const r = rig({}, { onReport: () => lose && (r.leader.now = lose = false) });
  r.cluster.services.set('web', service('web', 'web.example.org', '192.0.2.10'));
  assert.equal(await r.controller.syncOnce(), 'skipped');
  assert.equal(r.store.applied.length, 0);
  // Leader again: the next sync plans in full and writes.
  r.leader.now = true;
  assert.equal(await r.controller.syncOnce(), 'applied');
  assert.equal(r.store.applied.length, 1);
});

test('a standby plans and keeps the gauges but neither reports nor writes', async () => {
  const r = rig();
  r.leader.now = false;
  r.cluster.services.set('web', service('web', 'web.example.org', '192.0.2.10'));
  assert.equal(await r.controller.syncOnce(), 'skipped');
  assert.deepEqual([r.store.applied.length, r.reported.length], [0, 0]);
  assert.equal(metricSum(r.page(), 'etcdns_controller_records', 'type="A"'), 1);
  assert.equal(metricSum(r.page(), 'etcdns_controller_leader'), 0);
});

test('a dry run plans but writes nothing', async () => {
  const r = rig({}, { dryRun: true });
  r.cluster.services.set('web', service('web', 'web.example.org', '192.0.2.10'));
  assert.equal(await r.controller.syncOnce(), 'dry-run');
  assert.equal(r.store.applied.length, 0);
  assert.equal(r.controller.lastPlan?.creates.length, 1);
});

test('a conflict leaves that name for the next round, which writes it', async () => {
  const r = rig();
  r.cluster.services.set('web', service('web', 'web.example.org', '192.0.2.10'));
  r.cluster.services.set('api', service('api', 'api.example.org', '192.0.2.11'));
  r.store.conflictOnce = ['web.example.org.'];
  assert.equal(await r.controller.syncOnce(), 'conflicted');
  assert.equal(metricSum(r.page(), 'etcdns_controller_errors_total', 'kind="conflict"'), 1);
  assert.deepEqual(
    [...r.store.entries.keys()].map((k) => k.split('/').slice(0, 5).join('/')),
    ['/skydns/org/example/api'],
  );
  assert.equal(await r.controller.syncOnce(), 'applied');
  assert.equal(
    r.store.applied
      .at(-1)!
      .creates.map((c) => c.name)
      .join(),
    'web.example.org.',
  );
  assert.equal(await r.controller.syncOnce(), 'unchanged');
});
