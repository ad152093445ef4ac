// The sources over a whole cluster snapshot at once: the reference the tests hold the
// controller's per-object path (src/runtime/controller/incremental/) against. The product plans
// object by object and never needs this whole-snapshot form.
import { sourceContext } from '../../src/runtime/controller/incremental/incremental-planner.ts';
import { sourceRecords } from '../../src/runtime/controller/incremental/object-records.ts';
import type { SourceResult } from '../../src/runtime/controller/sources/record-builder.ts';
import type { SourceContext } from '../../src/runtime/controller/sources/source-runtime.ts';
import type { SourceOptions } from '../../src/runtime/controller/sources/source-options.ts';
import { snapshotCluster, snapshotObjects, type ClusterSnapshot } from './cluster-snapshot.ts';

/** What the sources read besides the objects, from the snapshot's lists. */
export function snapshotContext(snapshot: Partial<ClusterSnapshot>): SourceContext {
  return sourceContext(snapshotCluster(snapshot));
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
