// The sources over a whole cluster snapshot at once: the reference the tests hold the
// controller's per-object path (src/runtime/controller/incremental/) against. The product plans
// object by object and never needs this whole-snapshot form.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { snapshotObjects, type ClusterSnapshot } from '../../src/runtime/controller/sources/cluster-snapshot.ts';
import { sourceRecords, type SourceContext } from '../../src/runtime/controller/incremental/object-records.ts';
import type { SourceResult } from '../../src/runtime/controller/sources/record-builder.ts';
import type { SourceOptions } from '../../src/runtime/controller/sources/source-options.ts';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** What the sources read besides the objects, from the snapshot's lists. */
export function snapshotContext(snapshot: Partial<ClusterSnapshot>): SourceContext {
  const slices = new Map<string, V1EndpointSlice[]>();
  for (const slice of snapshot.endpointSlices ?? []) {
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) continue;
    const key = `${slice.metadata?.namespace ?? 'default'}/${service}`;
    const list = slices.get(key);
    if (list) list.push(slice);
    else slices.set(key, [slice]);
  }
  const find = <T extends { metadata?: { namespace?: string; name?: string } }>(
    list: readonly T[] | undefined,
    namespace: string | undefined,
    name: string,
  ) => list?.find((o) => o.metadata?.name === name && (namespace === undefined || o.metadata?.namespace === namespace));
  return {
    nodes: snapshot.nodes ?? [],
    endpointSlices: (ns, svc) => slices.get(`${ns}/${svc}`) ?? [],
    gateway: (ns, name) => find(snapshot.gateways, ns, name),
    listenerSet: (ns, name) => find(snapshot.listenerSets, ns, name),
    namespaceLabels: (name) => {
      const ns = find(snapshot.namespaces, undefined, name);
      return ns && (ns.metadata?.labels ?? {});
    },
  };
}

export function desiredRecords(snapshot: Partial<ClusterSnapshot>, options: SourceOptions): SourceResult {
  const out: SourceResult = { records: [], problems: [] };
  const context = snapshotContext(snapshot);
  for (const o of snapshotObjects(snapshot)) {
    const result = sourceRecords(o, context, options);
    out.records.push(...result.records);
    out.problems.push(...result.problems);
  }
  return out;
}
