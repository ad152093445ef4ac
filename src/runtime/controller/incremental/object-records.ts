// The records one source object asks for in each view, and its problems: its source (by the
// registry, sources/source-registry.ts) and the views applied to that object alone. Pure. Every step of the
// full pipeline (sources/, views/view-records.ts) works object by object, so the records of all
// objects are the union of these (test/runtime/controller/incremental/incremental-plan.test.ts checks it against the
// full pipeline).
import {
  apiVersionOf,
  kubernetesKind,
  objectEnabled,
  objectNamespace,
  objectSpec,
  type ObjectKind,
} from '../../../config/source-kinds.ts';
import type { TemplateObject } from '../fqdn/template-data.ts';
import { applyFqdnTemplate, asHostnameAnnotation } from '../fqdn/template-pass.ts';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { DesiredRecord, Problem } from '../desired-record.ts';
import type { SourceResult } from '../sources/record-builder.ts';
import { SOURCE_RUNTIMES } from '../sources/source-registry.ts';
import type { SourceContext } from '../sources/source-runtime.ts';
import type { SourceOptions } from '../sources/source-options.ts';
import { sourceObjectOf } from '../views/source-object.ts';
import { viewRecords, type CompiledView, type Decision } from '../views/view-records.ts';
import type { ClusterObject } from './cluster-objects.ts';
import { forceDefaultTargets } from '../sources/default-targets.ts';

export interface ObjectRecords {
  /** The sources' and the views' problems with this object. */
  problems: Problem[];
  /** Per view, in config order: the records it publishes from this object, and its decisions. */
  views: { records: DesiredRecord[]; decisions: Decision[] }[];
}

/** The records the sources want for one object (before views), and their problems. */
export function sourceRecords(source: ClusterObject, context: SourceContext, options: SourceOptions): SourceResult {
  const spec = objectSpec(source.kind);
  if (!options.sources.includes(spec.source) || !objectEnabled(source.kind, options.switches))
    return { records: [], problems: [] };
  const runtime = SOURCE_RUNTIMES[spec.source];
  const recordsOf = (object: KubernetesObject, withOptions = options): SourceResult => {
    const result: SourceResult = { records: [], problems: [] };
    runtime.records(object, source.kind, context, withOptions, result);
    return result;
  };
  const meta = source.object.metadata ?? {};
  // The template flags: the one step every source's records pass through (fqdn/template-pass.ts).
  const out = applyFqdnTemplate({
    source: spec.source,
    options,
    kind: kubernetesKind(source.kind),
    ref: {
      kind: kubernetesKind(source.kind) as ObjectKind,
      apiVersion: apiVersionOf(spec.api),
      namespace: objectNamespace(source.kind, meta.namespace),
      name: meta.name ?? '',
      ...(meta.uid ? { uid: meta.uid } : {}),
    },
    object: source.object as TemplateObject,
    own: recordsOf(source.object),
    recordsFor: (names) => {
      if (!runtime.templateRecords)
        // The names ride on the hostname annotation, which --ignore-hostname-annotation must not drop.
        return recordsOf(asHostnameAnnotation(source.object as TemplateObject, names) as KubernetesObject, {
          ...options,
          ignoreHostnameAnnotation: false,
        });
      const result: SourceResult = { records: [], problems: [] };
      runtime.templateRecords(source.object, names, context, options, result);
      return result;
    },
  });
  out.records = forceDefaultTargets(out.records, options.defaultTargets);
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
