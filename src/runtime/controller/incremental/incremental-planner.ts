// The controller's planning state, kept between syncs so that an event costs what it changes:
// the desired records per source object (desired-index.ts) and, per view, what the last plans
// published and reported at each name. A changed object is recomputed alone and only the names
// it touched (before and after) are planned again (name-plan.ts); a full plan (start, periodic
// resync, a reload of the etcd copy, Node changes) recomputes every object and every name. Pure:
// the caller reads the cluster and etcd and writes the plans; a plan step gives it all it needs
// of that step at once (PlanResult).
import { canonicalName } from '../../../dns/dns-name.ts';
import type { Policy } from '../../../config/controller-config.ts';
import { normalizePrefix } from '../../../skydns/skydns-key.ts';
import { resourceId, type DesiredRecord, type Problem } from '../desired-record.ts';
import type { CurrentEntry } from '../plan/current-entries.ts';
import type { Conflict } from '../plan/merge.ts';
import { planPrefix, type Plan } from '../plan/plan.ts';
import { objectNamespace, objectsOf, type ObjectKind } from '../../../config/source-kinds.ts';
import type { SourceContext } from '../sources/source-runtime.ts';
import { objectSelected, type SourceOptions } from '../sources/source-options.ts';
import type { ViewOfName } from '../views/controller-views.ts';
import type { CompiledView, Decision } from '../views/view-records.ts';
import { objectId, type ClusterObject, type ClusterObjects, type ObjectKey } from './cluster-objects.ts';
import { DesiredIndex } from './desired-index.ts';
import { planNames } from './name-plan.ts';
import { objectRecords } from './object-records.ts';

function clusterObject(key: ObjectKey, cluster: ClusterObjects): ClusterObject | undefined {
  const object = cluster.object(key.kind, key.namespace, key.name);
  return object && { kind: key.kind, object };
}

/** The Nodes read once per sync, not once per Service. */
export function sourceContext(cluster: ClusterObjects): SourceContext {
  const nodes = [...cluster.objects('Node')] as SourceContext['nodes'];
  return {
    nodes,
    endpointSlices: (namespace, service) => cluster.endpointSlices(namespace, service),
    gateway: (namespace, name) => cluster.object('Gateway', namespace, name) as ReturnType<SourceContext['gateway']>,
    listenerSet: (namespace, name) =>
      cluster.object('ListenerSet', namespace, name) as ReturnType<SourceContext['listenerSet']>,
    namespaceLabels: (name) => {
      const ns = cluster.object('Namespace', undefined, name);
      return ns && (ns.metadata?.labels ?? {});
    },
    object: (kind, namespace, name) => cluster.object(kind, namespace, name),
    objects: (kind) => cluster.objects(kind),
  };
}

/** What one plan step gives: every view's plan and what the step leaves published and reported. */
export interface PlanResult {
  /** Each view's plan, in the views' order. */
  readonly plans: Plan[];
  /** Every problem now: the objects' and every view's conflicts. */
  readonly problems: Problem[];
  /** Each view's published records by type, in the views' order. */
  readonly recordCounts: ReadonlyMap<string, number>[];
}

export interface PlannerSettings {
  ownerId: string;
  policy: Policy;
  adoptExternalDnsOwner?: string;
}

interface ViewState {
  view: CompiledView;
  prefix: string;
  /** The zone apexes of the view: its zones, else the domain filter's domains. */
  apexes: ReadonlySet<string>;
  /** What the last plans publish at each name (plan.records) and the conflicts found there. */
  published: Map<string, DesiredRecord[]>;
  conflicts: Map<string, Conflict[]>;
  /** Published records by type, kept as names change (for metrics). */
  counts: Map<string, number>;
}

export class IncrementalPlanner {
  private readonly options: SourceOptions;
  private readonly settings: PlannerSettings;
  private readonly index: DesiredIndex;
  private readonly views: ViewState[];
  private readonly compiled: CompiledView[];
  /** The resources whose objects could not be read at the last rebuild or update (see PlanInput.unseen). */
  private unseen: ReadonlySet<string> = new Set();

  constructor(views: readonly CompiledView[], options: SourceOptions, settings: PlannerSettings) {
    this.options = options;
    this.settings = settings;
    this.compiled = [...views];
    this.index = new DesiredIndex(views.length);
    this.views = views.map((view) => ({
      view,
      prefix: normalizePrefix(view.config.prefix),
      apexes: new Set(view.zones.length > 0 ? view.zones : options.domainFilter),
      published: new Map(),
      conflicts: new Map(),
      counts: new Map(),
    }));
  }

  /** False with adoption of external-dns entries: those are planned in full every time. */
  get plansByName(): boolean {
    return this.settings.adoptExternalDnsOwner === undefined;
  }

  /** Recomputes the records of every object. */
  rebuild(cluster: ClusterObjects): void {
    this.index.clear();
    this.unseen = cluster.unseenResources();
    const context = sourceContext(cluster);
    for (const source of this.options.sources)
      for (const { kind } of objectsOf(source, this.options.switches))
        for (const object of cluster.objects(kind as ObjectKind))
          this.setObject({ kind: kind as ObjectKind, object }, context);
  }

  /** Recomputes the records of changed objects; returns per view the names to plan again. */
  update(changed: Iterable<ObjectKey>, cluster: ClusterObjects): Set<string>[] {
    const touched = this.views.map(() => new Set<string>());
    this.unseen = cluster.unseenResources();
    const context = sourceContext(cluster);
    for (const key of changed) {
      const source = clusterObject(key, cluster);
      const names = source ? this.setObject(source, context) : this.index.set(objectId(key), undefined);
      names.forEach((n, i) => n.forEach((name) => touched[i]!.add(name)));
    }
    return touched;
  }

  /** Plans every name of each view against every entry under its prefix (`current`, per view). */
  planAll(current: readonly (readonly CurrentEntry[])[]): PlanResult {
    return this.result(
      this.views.map((v, view) => {
        const plan = planPrefix({ ...this.planInput(v), desired: this.index.records(view), current: current[view]! });
        v.published.clear();
        v.conflicts.clear();
        v.counts.clear();
        this.remember(v, plan, undefined);
        return plan;
      }),
    );
  }

  /** Plans only the names `touched` of each view; `entriesUnder` gives a view's entries at and below keys. */
  planNames(
    touched: readonly ReadonlySet<string>[],
    entriesUnder: (view: number, keys: string[]) => CurrentEntry[],
  ): PlanResult {
    return this.result(
      this.views.map((v, view) => {
        const names = touched[view]!;
        const plan = planNames({
          ...this.planInput(v),
          names,
          desired: this.index.recordsAt(view, names),
          entriesUnder: (keys) => entriesUnder(view, keys),
        });
        this.remember(v, plan, names);
        return plan;
      }),
    );
  }

  /** Whether the filters (namespace, labels, annotations, controller annotation) take the object. */
  selected(o: ClusterObject): boolean {
    return objectSelected(o.object.metadata, this.options);
  }

  /** How many records the views publish from one object, by its resource id. */
  recordCount(id: string): number {
    return this.index.recordCount(id);
  }

  /** What the last plans publish in a view, by name, and how the view treated each record asked for (the status page). */
  viewContent(view: number): { published: ReadonlyMap<string, readonly DesiredRecord[]>; decisions: Decision[] } {
    return { published: this.views[view]!.published, decisions: this.index.decisions(view) };
  }

  /** What each view answers for `name`, and why (/debug/views). */
  viewsOfName(name: string): ViewOfName[] {
    const wanted = canonicalName(name.trim());
    return this.views.map((v, i) => ({
      view: v.view.config.name,
      prefix: v.view.config.prefix,
      exposure: v.view.config.exposure,
      answers: (v.published.get(wanted) ?? []).map((r) => ({
        type: r.type,
        target: r.target,
        ...(r.ttl !== undefined ? { ttl: r.ttl } : {}),
        resource: resourceId(r.object),
      })),
      decisions: this.index.decisionsAt(i, wanted).map(({ name: _name, ...rest }) => rest),
    }));
  }

  private setObject(source: ClusterObject, context: SourceContext): Set<string>[] {
    const meta = source.object.metadata;
    const namespace = objectNamespace(source.kind, meta?.namespace);
    const id = objectId({ kind: source.kind, namespace, name: meta?.name ?? '' });
    return this.index.set(id, objectRecords(source, context, this.options, this.compiled));
  }

  /** A plan step's result: its plans, and the problems and record counts as they now stand. */
  private result(plans: Plan[]): PlanResult {
    return {
      plans,
      problems: [...this.index.problems(), ...this.views.flatMap((v) => [...v.conflicts.values()].flat())],
      recordCounts: this.views.map((v) => new Map(v.counts)),
    };
  }

  private planInput(v: ViewState) {
    const { ownerId, policy, adoptExternalDnsOwner } = this.settings;
    return {
      prefix: v.prefix,
      ownerId,
      policy,
      apexes: v.apexes,
      unseen: this.unseen,
      ...(adoptExternalDnsOwner ? { adoptExternalDnsOwner } : {}),
    };
  }

  /** Keeps what a plan publishes and reports at its names (`names`: the names it planned; all when undefined). */
  private remember(v: ViewState, plan: Plan, names: ReadonlySet<string> | undefined): void {
    for (const name of names ?? []) {
      for (const r of v.published.get(name) ?? []) v.counts.set(r.type, (v.counts.get(r.type) ?? 0) - 1);
      v.published.delete(name);
      v.conflicts.delete(name);
    }
    for (const r of plan.records) {
      const list = v.published.get(r.name);
      if (list) list.push(r);
      else v.published.set(r.name, [r]);
      v.counts.set(r.type, (v.counts.get(r.type) ?? 0) + 1);
    }
    for (const c of plan.conflicts) {
      const list = v.conflicts.get(c.name);
      if (list) list.push(c);
      else v.conflicts.set(c.name, [c]);
    }
  }
}
