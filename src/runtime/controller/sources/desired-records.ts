// The sources' single entry point: a snapshot of the cluster in, desired records and problems out.
import type { V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import { ingressRecords } from './ingress-source.ts';
import type { SourceResult } from './record-builder.ts';
import { serviceRecords } from './service-source.ts';
import type { SourceOptions } from './source-options.ts';

export interface ClusterSnapshot {
  services: readonly V1Service[];
  ingresses: readonly V1Ingress[];
  endpointSlices: readonly V1EndpointSlice[];
  nodes: readonly V1Node[];
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export function desiredRecords(snapshot: ClusterSnapshot, options: SourceOptions): SourceResult {
  const out: SourceResult = { records: [], problems: [] };
  if (options.sources.includes('service')) {
    const slices = new Map<string, V1EndpointSlice[]>();
    for (const slice of snapshot.endpointSlices) {
      const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (!service) continue;
      const key = `${slice.metadata?.namespace ?? 'default'}/${service}`;
      const list = slices.get(key);
      if (list) list.push(slice);
      else slices.set(key, [slice]);
    }
    const ctx = {
      nodes: snapshot.nodes,
      endpointSlices: (ns: string, svc: string) => slices.get(`${ns}/${svc}`) ?? [],
    };
    for (const svc of snapshot.services) serviceRecords(svc, ctx, options, out);
  }
  if (options.sources.includes('ingress')) {
    for (const ing of snapshot.ingresses) ingressRecords(ing, options, out);
  }
  return out;
}
