// The records one source object (Service, Ingress, route, DNSEndpoint) asks for in each view, and
// its problems: the sources and the views applied to that object alone. Pure. Every step of the
// full pipeline (sources/, views/view-records.ts) works object by object, so the records of all
// objects are the union of these (test/controller/incremental-plan.test.ts checks it against the
// full pipeline).
import { sourceOfKind } from '../../../config/source-kinds.ts';
import type { DesiredRecord, Problem } from '../desired-record.ts';
import { dnsEndpointRecords } from '../sources/dns-endpoint/dns-endpoint-source.ts';
import type { ClusterObject } from '../sources/cluster-snapshot.ts';
import type { GatewayContext } from '../sources/gateway/route-parents.ts';
import { routeRecords } from '../sources/gateway/route-source.ts';
import { ingressRecords } from '../sources/ingress-source.ts';
import type { SourceResult } from '../sources/record-builder.ts';
import { serviceRecords, type ServiceContext } from '../sources/service-source.ts';
import type { SourceOptions } from '../sources/source-options.ts';
import { sourceObjectOf } from '../views/source-object.ts';
import { viewRecords, type CompiledView, type Decision } from '../views/view-records.ts';

export interface ObjectRecords {
  /** The sources' and the views' problems with this object. */
  problems: Problem[];
  /** Per view, in config order: the records it publishes from this object, and its decisions. */
  views: { records: DesiredRecord[]; decisions: Decision[] }[];
}

/** What the sources read besides the object itself. */
export type SourceContext = ServiceContext & GatewayContext;

/** The records the sources want for one object (before views), and their problems. */
export function sourceRecords(source: ClusterObject, context: SourceContext, options: SourceOptions): SourceResult {
  const out: SourceResult = { records: [], problems: [] };
  if (!options.sources.includes(sourceOfKind(source.kind).source)) return out;
  switch (source.kind) {
    case 'Service':
      serviceRecords(source.object, context, options, out);
      break;
    case 'Ingress':
      ingressRecords(source.object, options, out);
      break;
    case 'DNSEndpoint':
      dnsEndpointRecords(source.object, options, out);
      break;
    default:
      routeRecords(source.object, source.kind, context, options, out);
  }
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
