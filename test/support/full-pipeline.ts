// The sources over a whole cluster snapshot at once: the reference the tests hold the
// controller's per-object path (src/runtime/controller/incremental/) against. The product plans
// object by object and never needs this whole-snapshot form.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import type { ClusterSnapshot } from '../../src/runtime/controller/sources/cluster-snapshot.ts';
import { ingressRecords } from '../../src/runtime/controller/sources/ingress-source.ts';
import type { SourceResult } from '../../src/runtime/controller/sources/record-builder.ts';
import { serviceRecords } from '../../src/runtime/controller/sources/service-source.ts';
import type { SourceOptions } from '../../src/runtime/controller/sources/source-options.ts';

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
