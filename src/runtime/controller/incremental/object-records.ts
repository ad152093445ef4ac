// The records one Service or Ingress asks for in each view, and its problems: the sources and the
// views applied to that object alone. Pure. Every step of the full pipeline (sources/,
// views/view-records.ts) works object by object, so the records of all objects are the union
// of these (test/controller/incremental-plan.test.ts checks it against the full pipeline).
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import type { DesiredRecord, Problem } from '../desired-record.ts';
import { ingressRecords } from '../sources/ingress-source.ts';
import type { SourceResult } from '../sources/record-builder.ts';
import { serviceRecords, type ServiceContext } from '../sources/service-source.ts';
import type { SourceOptions } from '../sources/source-options.ts';
import { sourceObjects } from '../views/source-object.ts';
import { viewRecords, type CompiledView, type Decision } from '../views/view-records.ts';

export interface ObjectRecords {
  /** The sources' and the views' problems with this object. */
  problems: Problem[];
  /** Per view, in config order: the records it publishes from this object, and its decisions. */
  views: { records: DesiredRecord[]; decisions: Decision[] }[];
}

export type SourceObject = { kind: 'Service'; object: V1Service } | { kind: 'Ingress'; object: V1Ingress };

export function objectRecords(
  source: SourceObject,
  /** What Services' records also depend on: EndpointSlices and Nodes. */
  context: ServiceContext,
  options: SourceOptions,
  views: readonly CompiledView[],
): ObjectRecords {
  const out: SourceResult = { records: [], problems: [] };
  if (source.kind === 'Service' && options.sources.includes('service'))
    serviceRecords(source.object, context, options, out);
  if (source.kind === 'Ingress' && options.sources.includes('ingress')) ingressRecords(source.object, options, out);
  const split = viewRecords(
    views,
    out.records,
    sourceObjects(
      source.kind === 'Service'
        ? { services: [source.object], ingresses: [] }
        : { services: [], ingresses: [source.object] },
    ),
  );
  return {
    problems: [...out.problems, ...split.problems],
    views: split.views.map((v) => ({ records: v.records, decisions: v.decisions })),
  };
}
