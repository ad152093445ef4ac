// Writes DNSEndpoint status (dns-endpoint-status.ts) through the status subresource, as a merge
// patch of `status` alone: only the leader writes, only what changed, and a failure is logged,
// never fatal (the next sync tries again). Without a client (dry runs) nothing is written.
import { DNS_ENDPOINTS, collectionPath } from '../../../config/source-kinds.ts';
import type { Logger } from '../../shared/log.ts';
import type { DnsEndpoint, DnsEndpointStatus } from '../sources/dns-endpoint/dns-endpoint.ts';
import { sameStatus } from '../sources/dns-endpoint/dns-endpoint-status.ts';
import { KubeApiError, type KubeClient } from '../../kube/kube-client.ts';

export interface StatusUpdate {
  object: DnsEndpoint;
  status: DnsEndpointStatus;
}

/** Patches at once at most; a sync with more waits for the first ones. */
const PARALLEL = 8;

export class StatusWriter {
  private readonly client: KubeClient | undefined;
  private readonly log: Logger;
  /**
   * Per object uid, the status last written and the object's resourceVersion then: while the
   * cache still shows that version it may not have seen the write, and that same status is not
   * written again (a status the cache shows is compared with the cache).
   */
  private readonly written = new Map<string, { resourceVersion: string; status: DnsEndpointStatus }>();

  constructor(client: KubeClient | undefined, log: Logger) {
    this.client = client;
    this.log = log;
  }

  /** Writes the statuses that differ from the object's and from what was last written; returns their objects. */
  async write(updates: readonly StatusUpdate[]): Promise<string[]> {
    const due = updates.filter(({ object, status }) => {
      const meta = object.metadata;
      const last = meta?.uid ? this.written.get(meta.uid) : undefined;
      if (last && last.resourceVersion === meta?.resourceVersion) return !sameStatus(last.status, status);
      return !sameStatus(object.status, status);
    });
    if (!this.client) return [];
    let next = 0;
    const written: string[] = [];
    const worker = async () => {
      while (next < due.length) {
        const update = due[next++]!;
        const meta = update.object.metadata;
        if (await this.patch(update)) written.push(`${meta?.namespace}/${meta?.name}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, due.length) }, worker));
    return written.sort();
  }

  /** Forgets objects no longer present (their uids). */
  keepOnly(uids: ReadonlySet<string>): void {
    for (const uid of this.written.keys()) if (!uids.has(uid)) this.written.delete(uid);
  }

  private async patch({ object, status }: StatusUpdate): Promise<boolean> {
    const meta = object.metadata ?? {};
    const api = DNS_ENDPOINTS;
    const version = object.apiVersion?.split('/')[1] ?? api.versions[0]!;
    const path = `${collectionPath(api, version, meta.namespace ?? 'default')}/${meta.name}/status`;
    try {
      await this.client!.request('PATCH', path, { status });
      if (meta.uid) this.written.set(meta.uid, { resourceVersion: meta.resourceVersion ?? '', status });
      return true;
    } catch (err) {
      // Deleted meanwhile: nothing to say about it.
      if (err instanceof KubeApiError && err.status === 404) return false;
      this.log.warn('could not write DNSEndpoint status', { object: `${meta.namespace}/${meta.name}`, error: err });
      return false;
    }
  }
}
