// After a sync, every selected DNSEndpoint's status as the records in etcd now stand
// (dns-endpoint-status.ts decides it), written where it changed (kube/status-writer.ts).
import type { Logger } from '../../../shared/log.ts';
import { resourceId, type Problem } from '../../desired-record.ts';
import type { ClusterObject } from '../../incremental/cluster-objects.ts';
import type { StatusWriter } from '../../kube/status-writer.ts';
import { dnsEndpointRef } from './dns-endpoint-source.ts';
import { dnsEndpointStatus } from './dns-endpoint-status.ts';
import type { DnsEndpoint } from './dns-endpoint.ts';

export interface StatusSyncInput {
  writer: Pick<StatusWriter, 'write' | 'keepOnly'>;
  /** The DNSEndpoints in the cluster cache. */
  objects: Iterable<DnsEndpoint>;
  /** The problems after the sync, of every object. */
  problems: readonly Problem[];
  /** What the planner knows: whether the filters select an object, and its published records. */
  planned: { selected(o: ClusterObject): boolean; recordCount(id: string): number };
  log: Logger;
}

export async function writeDnsEndpointStatus(input: StatusSyncInput): Promise<void> {
  const byObject = new Map<string, Problem[]>();
  for (const p of input.problems) {
    const id = resourceId(p.object);
    const list = byObject.get(id);
    if (list) list.push(p);
    else byObject.set(id, [p]);
  }
  const now = new Date().toISOString();
  const uids = new Set<string>();
  const updates = [];
  for (const object of input.objects) {
    const ref = dnsEndpointRef(object);
    if (!ref || !input.planned.selected({ kind: 'DNSEndpoint', object })) continue;
    if (object.metadata?.uid) uids.add(object.metadata.uid);
    const id = resourceId(ref);
    const status = dnsEndpointStatus({
      generation: object.metadata?.generation,
      endpoints: (object.spec?.endpoints ?? []).filter((e) => e).length,
      problems: byObject.get(id) ?? [],
      publishedRecords: input.planned.recordCount(id),
      previous: object.status,
      now,
    });
    updates.push({ object, status });
  }
  input.writer.keepOnly(uids);
  const written = await input.writer.write(updates);
  if (written.length > 0) input.log.debug('DNSEndpoint status written', { objects: written });
}
