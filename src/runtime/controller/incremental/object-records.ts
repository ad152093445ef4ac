// The records one source object asks for in each view, and its problems: its source (by the
// registry, sources/source-registry.ts) and the views applied to that object alone. Pure. Every step of the
// full pipeline (sources/, views/view-records.ts) works object by object, so the records of all
// objects are the union of these (test/controller/incremental-plan.test.ts checks it against the
// full pipeline).
import { objectEnabled, objectSpec } from '../../../config/source-kinds.ts';
import type { DesiredRecord, Problem } from '../desired-record.ts';
import type { SourceResult } from '../sources/record-builder.ts';
import { SOURCE_RUNTIMES } from '../sources/source-registry.ts';
import type { SourceContext } from '../sources/source-runtime.ts';
import type { SourceOptions } from '../sources/source-options.ts';
import { sourceObjectOf } from '../views/source-object.ts';
import { viewRecords, type CompiledView, type Decision } from '../views/view-records.ts';
import type { ClusterObject } from './cluster-objects.ts';

export interface ObjectRecords {
  /** The sources' and the views' problems with this object. */
  problems: Problem[];
  /** Per view, in config order: the records it publishes from this object, and its decisions. */
  views: { records: DesiredRecord[]; decisions: Decision[] }[];
}

/** The records the sources want for one object (before views), and their problems. */
export function sourceRecords(source: ClusterObject, context: SourceContext, options: SourceOptions): SourceResult {
  const out: SourceResult = { records: [], problems: [] };
  const { source: name } = objectSpec(source.kind);
  if (!options.sources.includes(name) || !objectEnabled(source.kind, options.switches)) return out;
  SOURCE_RUNTIMES[name].records(source.object, source.kind, context, options, out);
  const managed = options.managedRecordTypes;
  if (managed.length > 0) out.records = out.records.filter((r) => managed.includes(r.type));
  return out;
}

export function objectRecords(
  source: ClusterObject,
  context: SourceContext,
  options: SourceOptions,
  views: readonly CompiledView[],
): ObjectRecords {
  const out = sourceRecords(source, context, options);
  const view = sourceObjectOf(source);
  const split = viewRecords(views, out.records, new Map(view ? [[view.id, view.source]] : []));
  return {
    problems: [...out.problems, ...split.problems],
    views: split.views.map((v) => ({ records: v.records, decisions: v.decisions })),
  };
}
