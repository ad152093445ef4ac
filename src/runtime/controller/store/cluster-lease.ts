// A spoke's sign of life at the hub (issue 34): while this replica leads, the cluster's lease key
// (clusterLeaseKey) is held on an etcd lease kept alive by etcd3's keep-alive. A process that
// dies (SIGKILL, node lost, network cut) stops the keep-alive and etcd deletes the key one TTL
// later; the hub then stops counting the cluster after its grace period. A lost lease (etcd said
// it expired, or it could not be granted) is granted again, the key put anew.
import type { Etcd3, Lease } from 'etcd3';
import type { Logger } from '../../shared/log.ts';
import { clusterLeaseKey } from '../../../skydns/cluster-prefix.ts';

const RETRY_MS = 1000;

export class ClusterLease {
  private readonly client: Etcd3;
  private readonly key: string;
  private readonly ttlSeconds: number;
  private readonly identity: string;
  private readonly log: Logger;
  private lease: Lease | undefined;
  private retry: NodeJS.Timeout | undefined;
  private holding = false;

  constructor(client: Etcd3, options: { cluster: string; ttlSeconds: number; identity: string; log: Logger }) {
    this.client = client;
    this.key = clusterLeaseKey(options.cluster);
    this.ttlSeconds = options.ttlSeconds;
    this.identity = options.identity;
    this.log = options.log;
  }

  /** Holds the key from now on (idempotent). */
  hold(): void {
    if (this.holding) return;
    this.holding = true;
    void this.grant();
  }

  /**
   * Stops the keep-alive without revoking: the key goes one TTL later, unless another replica
   * puts it on its own lease first (a handover does not make the hub drop the cluster).
   */
  release(): void {
    this.holding = false;
    clearTimeout(this.retry);
    this.lease?.release();
    this.lease = undefined;
  }

  private async grant(): Promise<void> {
    if (!this.holding) return;
    const lease = this.client.lease(this.ttlSeconds);
    this.lease = lease;
    lease.on('lost', (e: Error) => {
      if (this.lease !== lease) return;
      this.log.warn('cluster lease lost, granting a new one', { key: this.key, error: e });
      this.again();
    });
    try {
      // The value says who holds it; the hub reads only whether the key exists.
      await lease.put(this.key).value(JSON.stringify({ holder: this.identity, since: new Date().toISOString() }));
      this.log.info('cluster lease held', { key: this.key, ttlSeconds: this.ttlSeconds });
    } catch (e) {
      if (this.lease !== lease) return;
      this.log.warn('cluster lease not put, retrying', { key: this.key, error: e as Error });
      lease.release();
      this.again();
    }
  }

  private again(): void {
    this.lease = undefined;
    clearTimeout(this.retry);
    if (this.holding) this.retry = setTimeout(() => void this.grant(), RETRY_MS);
  }
}
