// The reconcile loop: watch events and a periodic resync trigger a sync (when: sync-loop.ts,
// debounced, one at a time, with backoff). A sync after events recomputes only the changed
// objects and plans only the names they touched (incremental/), against a watch-kept copy of
// each view's prefix in etcd (store/etcd-mirror.ts); a full sync (start, the periodic resync as a safety net, a reload of
// the copy, Node changes, after an etcd error) recomputes every object and plans every name.
// Each view (split horizon) is planned against its own prefix; the writes are guarded as ever.
// Only the leader writes and reports problems. When etcd fails, the sync is retried with backoff
// and /readyz says so; nothing is written from a half-read state.
import { CONTROLLER_CONFIG_DEFAULTS, type ControllerConfig } from '../../config/controller-config.ts';
import type { Readiness } from '../shared/http-server.ts';
import { collectGarbage } from '../shared/full-gc.ts';
import type { Logger } from '../shared/log.ts';
import { countSync, setPlanGauges, type ControllerMetrics } from './controller-metrics.ts';
import type { DesiredRecord, Problem } from './desired-record.ts';
import type { StatusWriter } from './kube/status-writer.ts';
import { writeDnsEndpointStatus } from './sources/dns-endpoint/dns-endpoint-status-sync.ts';
import type { DnsEndpoint } from './sources/dns-endpoint/dns-endpoint.ts';
import type { ClusterObjects, ObjectKey } from './incremental/cluster-objects.ts';
import { objectId } from './incremental/cluster-objects.ts';
import { IncrementalPlanner, type PlanResult } from './incremental/incremental-planner.ts';
import type { ClusterChange } from './kube/cluster-cache.ts';
import { formatPlan } from './plan/format-plan.ts';
import { isEmptyPlan, type Plan } from './plan/plan.ts';
import { sourceOptions } from './sources/source-options.ts';
import { auditEntries } from './store/audit-entries.ts';
import type { EtcdMirror } from './store/etcd-mirror.ts';
import type { EtcdStore } from './store/etcd-store.ts';
import { controllerViews, type ViewOfName } from './views/controller-views.ts';
import { compileViews, type CompiledView, type Decision } from './views/view-records.ts';
import { ProblemTimes, type TimedProblem } from './problem-times.ts';
import { SyncLoop } from './sync-loop.ts';
import { useAnnotationPrefixes } from './sources/annotations.ts';

export interface ControllerDeps {
  config: ControllerConfig;
  cache: ClusterObjects & {
    synced(): boolean;
    unsynced(): string[];
    servedState(): { kind: string; notServed: string }[];
  };
  /** One store per view, at the view's prefix. */
  storeFor: (prefix: string) => EtcdStore;
  /**
   * A watch-kept copy of a store's prefix, started with the loop. Without it (`--once`,
   * `etcdns plan`), and while a copy is not synced, a sync reads the prefix and plans in full.
   */
  mirrorFor?: (store: EtcdStore, onReload: () => void) => EtcdMirror;
  reporter: { report(problems: readonly Problem[]): Promise<number> };
  /** Writes DNSEndpoint status (with the crd source); absent: no status is written. */
  status?: Pick<StatusWriter, 'write' | 'keepOnly'>;
  isLeader: () => boolean;
  dryRun: boolean;
  log: Logger;
  metrics: ControllerMetrics;
}

/** 'conflicted': written, except the names someone else changed after the read (their changes wait). */
export type SyncOutcome = 'applied' | 'conflicted' | 'unchanged' | 'skipped' | 'dry-run' | 'error';

/** What the status page and `etcdns status` show of a controller (controller-page.ts). */
export interface ControllerStatus {
  views: {
    name: string;
    prefix: string;
    exposure: CompiledView['config']['exposure'];
    /** The records the last plans publish, by name. */
    published: ReadonlyMap<string, readonly DesiredRecord[]>;
    /** How the view treated every record the sources asked for (rule, outcome). */
    decisions: Decision[];
  }[];
  /** Current problems of objects (skipped, refused, in conflict) and since when. */
  problems: TimedProblem[];
  /** The last sync's end and outcome; the last one that completed (none yet: undefined). */
  lastSync: { at: Date; outcome: SyncOutcome } | undefined;
  lastCompleted: Date | undefined;
  leader: boolean;
  readiness: Readiness;
}

/** Outcomes of a sync that ran to its end (the alerts' "not syncing" watches for them). */
const COMPLETED: ReadonlySet<SyncOutcome> = new Set(['applied', 'conflicted', 'unchanged', 'dry-run']);

/** How long the etcd copy may take to show our own writes before it is read again. */
const OWN_WRITES_MS = 5_000;

export class Controller {
  private readonly config: ControllerConfig;
  private readonly cache: ControllerDeps['cache'];
  private readonly reporter: ControllerDeps['reporter'];
  private readonly statusWriter: ControllerDeps['status'];
  private readonly isLeader: () => boolean;
  private readonly dryRun: boolean;
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics;
  private readonly planner: IncrementalPlanner;
  private readonly views: { view: CompiledView; store: EtcdStore; mirror: EtcdMirror | undefined }[];
  /** Objects changed since the last sync, by id. */
  private readonly dirty = new Map<string, ObjectKey>();
  /** The next sync recomputes every object and plans every name. */
  private fullPending = true;
  private etcdOk = false;
  private etcdDetail = 'not contacted yet';
  /** Time of the oldest watch event not yet synced. */
  private pendingSince: number | undefined;
  private readonly loop: SyncLoop<SyncOutcome>;
  /**
   * A full collection is owed after the next full sync once an etcd copy was read (at start, and
   * again after a reload): the load's garbage is collected then, not in the middle of later changes.
   */
  private collectAfterFullSync = false;
  /** Set by the full sync that takes the owed collection. */
  private collectNow = false;
  private readonly problemTimes = new ProblemTimes();
  private lastSync: ControllerStatus['lastSync'];
  private lastCompleted: Date | undefined;
  /** The last plan computed for each view, in config order (for `etcdns plan` and dry runs). */
  lastPlans: { view: string; plan: Plan }[] = [];

  constructor(deps: ControllerDeps) {
    const { config } = deps;
    this.config = config;
    this.cache = deps.cache;
    this.reporter = deps.reporter;
    this.statusWriter = deps.status;
    this.isLeader = deps.isLeader;
    this.dryRun = deps.dryRun;
    this.log = deps.log;
    this.metrics = deps.metrics;
    const compiled = compileViews(controllerViews(config), config.reverseZones);
    const options = sourceOptions(config);
    useAnnotationPrefixes(options.annotationPrefixes);
    this.planner = new IncrementalPlanner(compiled, options, {
      ownerId: config.ownerId,
      policy: config.policy ?? CONTROLLER_CONFIG_DEFAULTS.policy,
      ...(config.adoptExternalDnsOwner ? { adoptExternalDnsOwner: config.adoptExternalDnsOwner } : {}),
    });
    this.views = compiled.map((view) => {
      const store = deps.storeFor(view.config.prefix);
      // A reloaded copy may differ anywhere: everything is planned against it.
      const reloaded = () => {
        this.collectAfterFullSync = true;
        this.resync();
      };
      return { view, store, mirror: deps.mirrorFor?.(store, reloaded) };
    });
    this.loop = new SyncLoop({
      sync: () => this.syncOnce(),
      debounceMs: config.debounceMs ?? CONTROLLER_CONFIG_DEFAULTS.debounceMs,
      resyncMs: (config.resyncSeconds ?? CONTROLLER_CONFIG_DEFAULTS.resyncSeconds) * 1000,
      resync: () => this.resync(),
    });
  }

  /** The first view's last plan (the only one without split horizon). */
  get lastPlan(): Plan | undefined {
    return this.lastPlans[0]?.plan;
  }

  /** What each view answers for `name` after the last sync, and why (/debug/views). */
  viewsOfName(name: string): ViewOfName[] {
    return this.planner.viewsOfName(name);
  }

  /** Each view's names and decisions after the last sync, its problems, the last sync (the status page). */
  status(): ControllerStatus {
    return {
      views: this.views.map(({ view }, i) => ({
        name: view.config.name,
        prefix: view.config.prefix,
        exposure: view.config.exposure,
        ...this.planner.viewContent(i),
      })),
      problems: this.problemTimes.list(),
      lastSync: this.lastSync,
      lastCompleted: this.lastCompleted,
      leader: this.isLeader(),
      readiness: this.readiness(),
    };
  }

  /** Starts the etcd copies and the periodic resync (events come through changed()). */
  start(): void {
    this.loop.start();
    for (const v of this.views) v.mirror?.start();
  }

  stop(): Promise<SyncOutcome | undefined> {
    const running = this.loop.stop();
    for (const v of this.views) v.mirror?.stop();
    return running;
  }

  /** Objects changed in the cluster (a watch event): their names are planned again soon. */
  changed(change: ClusterChange): void {
    if (change === 'all') this.fullPending = true;
    else for (const key of change.objects) this.dirty.set(objectId(key), key);
    this.trigger();
  }

  /** Asks for a full sync soon (the periodic safety net, a new leader, a reloaded etcd copy). */
  resync(): void {
    this.fullPending = true;
    this.trigger(false);
  }

  /** Asks for a sync soon; `fromEvent` starts the event-to-etcd clock. */
  trigger(fromEvent = true): void {
    if (fromEvent) this.pendingSince ??= performance.now();
    this.loop.trigger();
  }

  readiness(): Readiness {
    const unsynced = this.cache.unsynced();
    if (unsynced.length > 0) return { ready: false, detail: `caches not synced: ${unsynced.join(', ')}` };
    if (!this.etcdOk) return { ready: false, detail: `etcd: ${this.etcdDetail}` };
    // Ready: every served kind is published; a kind not served has no objects, and its records stay.
    const notServed = this.cache
      .servedState()
      .filter((s) => s.notServed)
      .map((s) => `${s.kind} (${s.notServed})`);
    const kept =
      notServed.length > 0 ? `; records kept as they are for what is not served: ${notServed.join(', ')}` : '';
    return {
      ready: true,
      detail: `caches synced, etcd reachable, ${this.isLeader() ? 'leader' : 'standby'}${kept}`,
    };
  }

  /** One sync. Never throws: failures are logged, counted and reported as 'error'. */
  async syncOnce(): Promise<SyncOutcome> {
    const outcome = await this.sync();
    if (this.collectNow) {
      this.collectNow = false;
      if (outcome === 'error') this.collectAfterFullSync = true;
      else if (this.loop.started)
        this.log.info('full sync done: garbage collected', { gcMs: Math.round(collectGarbage()) });
    }
    return outcome;
  }

  private async sync(): Promise<SyncOutcome> {
    const { cache, metrics } = this;
    if (!cache.synced()) return this.count('skipped');
    const started = performance.now();
    const eventAt = this.pendingSince;
    this.pendingSince = undefined;
    const leader = this.isLeader();
    metrics.leader.set(leader ? 1 : 0);

    // Until the copies' first read is done the loop waits for it (its onReload starts the first
    // sync): one full read of each prefix at start, not two.
    const loading = this.loop.started ? this.views.find((v) => v.mirror && !v.mirror.loadedOnce()) : undefined;
    if (loading) {
      this.etcdDetail = loading.mirror!.detail();
      this.pendingSince ??= eventAt;
      return this.count('skipped');
    }
    const full = this.fullPending || !this.planner.plansByName || !this.views.every((v) => v.mirror?.synced());
    this.fullPending = false;
    const changed = [...this.dirty.values()];
    this.dirty.clear();
    let result: PlanResult;
    if (full) {
      this.planner.rebuild(cache);
      let current;
      try {
        // Every view is read before anything is planned: nothing is written from a half-read state.
        current = await Promise.all(
          this.views.map(({ store, mirror }) =>
            mirror?.synced() ? mirror.all() : store.read().then((r) => r.entries),
          ),
        );
        this.etcdOk = true;
        this.etcdDetail = 'reachable';
      } catch (err) {
        this.fullPending = true;
        return this.etcdFailed(err, eventAt);
      }
      result = this.planner.planAll(current);
      this.collectNow = this.collectAfterFullSync;
      this.collectAfterFullSync = false;
      metrics.undecodable.set(result.plans.reduce((n, p) => n + p.undecodable.length, 0));
    } else {
      const touched = this.planner.update(changed, cache);
      result = this.planner.planNames(touched, (i, keys) => this.views[i]!.mirror!.under(keys));
    }
    const { plans, problems } = result;
    this.lastPlans = plans.map((plan, i) => ({ view: this.views[i]!.view.config.name, plan }));

    this.problemTimes.update(problems);
    setPlanGauges(metrics, {
      servedState: cache.servedState(),
      problems,
      views: this.views.map(({ view }, i) => ({ name: view.config.name, recordCounts: result.recordCounts[i]! })),
    });

    if (!leader) return this.count('skipped', started);
    // Events go out beside the writes: an API server slow to take them must not hold a record back.
    const reporting = this.reporter.report(problems);
    try {
      return await this.publish(plans, problems, started, eventAt);
    } finally {
      await reporting;
    }
  }

  /** Writes the plans (the leader's part of a sync), then the DNSEndpoints' status. */
  private async publish(
    plans: Plan[],
    problems: readonly Problem[],
    started: number,
    eventAt: number | undefined,
  ): Promise<SyncOutcome> {
    const { log, metrics } = this;
    if (plans.every(isEmptyPlan)) {
      if (!this.dryRun) await this.writeStatus(problems);
      return this.count('unchanged', started);
    }
    if (this.dryRun) {
      for (const { view, plan } of this.lastPlans)
        if (!isEmptyPlan(plan)) log.info('dry run: changes not written', { view, plan: formatPlan(plan) });
      return this.count('dry-run', started);
    }
    let conflicted = false;
    for (const [i, plan] of plans.entries()) {
      if (isEmptyPlan(plan)) continue;
      // Fencing: an earlier view's writes may have taken past our renew deadline.
      if (!this.isLeader()) {
        this.fullPending = true;
        return this.count('skipped', started);
      }
      const outcome = await this.applyPlan(this.views[i]!, plan, started);
      if (typeof outcome === 'object') {
        this.fullPending = true;
        return this.etcdFailed(outcome.error, eventAt);
      }
      conflicted ||= outcome === 'conflicted';
    }
    if (eventAt !== undefined) metrics.eventToEtcd.observe((performance.now() - eventAt) / 1000);
    // After a conflict some names wait for the next round: their objects' status with it.
    if (!conflicted) await this.writeStatus(problems);
    return this.count(conflicted ? 'conflicted' : 'applied', started);
  }

  /** The status of every DNSEndpoint, as the records in etcd now stand (with the crd source). */
  private async writeStatus(problems: readonly Problem[]): Promise<void> {
    if (!this.statusWriter) return;
    await writeDnsEndpointStatus({
      writer: this.statusWriter,
      objects: this.cache.objects('DNSEndpoint') as Iterable<DnsEndpoint>,
      problems,
      planned: this.planner,
      log: this.log,
    });
  }

  /** Writes one view's plan; names someone else changed meanwhile are planned again next round. */
  private async applyPlan(
    target: { view: CompiledView; store: EtcdStore; mirror: EtcdMirror | undefined },
    plan: Plan,
    started: number,
  ): Promise<{ error: unknown } | 'ok' | 'conflicted'> {
    const { log, metrics } = this;
    const { store, mirror } = target;
    const view = target.view.config.name;
    let result;
    try {
      result = await store.apply(plan);
    } catch (error) {
      return { error };
    }
    metrics.transactions.inc({}, result.transactions);
    metrics.changes.inc({ op: 'create' }, plan.creates.filter((c) => !result.conflicted.includes(c.name)).length);
    metrics.changes.inc({ op: 'update' }, plan.updates.filter((c) => !result.conflicted.includes(c.name)).length);
    metrics.changes.inc({ op: 'delete' }, plan.deletes.filter((c) => !result.conflicted.includes(c.name)).length);
    for (const audit of auditEntries(plan, result.conflicted)) log.info('etcd write', { audit: true, view, ...audit });
    log.info('changes applied', {
      view,
      creates: plan.creates.length,
      updates: plan.updates.length,
      deletes: plan.deletes.length,
      transactions: result.transactions,
      ms: Math.round(performance.now() - started),
    });
    // The next plan must see these writes: the copy has them once its watch reached their revision.
    if (mirror && result.revision > 0 && !(await mirror.waitFor(result.revision, OWN_WRITES_MS)))
      mirror.reload('own writes not seen in time');
    if (result.conflicted.length === 0) return 'ok';
    // Someone wrote there since we read: their entries stay untouched; the loop reads again and
    // re-plans, a single sync (--once) leaves these names as they are and says so.
    metrics.errors.inc({ kind: 'conflict' }, result.conflicted.length);
    log.warn(
      this.loop.started
        ? 'names changed concurrently; planning them again'
        : 'names changed concurrently; their changes were not applied',
      { view, count: result.conflicted.length, names: result.conflicted.slice(0, 20) },
    );
    // What changed there is known after a fresh read of the prefix (the reload plans everything).
    if (mirror) mirror.reload('names changed concurrently');
    else this.fullPending = true;
    this.loop.runAgain();
    return 'conflicted';
  }

  private etcdFailed(err: unknown, eventAt: number | undefined): SyncOutcome {
    this.etcdOk = false;
    this.etcdDetail = (err as Error).message;
    this.pendingSince ??= eventAt;
    this.metrics.errors.inc({ kind: 'etcd' });
    this.log.error('etcd unavailable; retrying', { error: err, retryMs: this.loop.retryMs });
    return this.count('error');
  }

  private count(outcome: SyncOutcome, started?: number): SyncOutcome {
    const now = new Date();
    const completed = COMPLETED.has(outcome);
    this.lastSync = { at: now, outcome };
    if (completed) this.lastCompleted = now;
    countSync(this.metrics, outcome, completed, started);
    return outcome;
  }
}
