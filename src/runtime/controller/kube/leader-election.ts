// Leader election through a coordination.k8s.io Lease, as client-go does it: the holder renews
// every retry period; others take over once they have seen the same record unchanged for a
// whole lease duration (measured on their own clock, so clock skew does not matter). A leader
// that cannot renew within the renew deadline steps down. Needs get/update on the Lease and
// create (the first time).
//
// Fencing, by time on one monotonic clock: isLeader() is true only until renewDeadline after
// the *start* of our last successful renew, whatever the renew request is doing meanwhile (one
// hanging on a cut connection does not keep us leading). Another replica takes over no sooner
// than leaseDuration after it saw that renew, which was sent after that start; so we stop
// writing at least leaseDuration - renewDeadline (5 s by default) before anyone else starts.
// The controller asks isLeader() before each view's writes; an etcd transaction sent just
// before the deadline lands within that margin unless etcd stalls for longer.
import type { Logger } from '../../shared/log.ts';
import { KubeApiError, type KubeClient } from '../../kube/kube-client.ts';

/** A coordination.k8s.io/v1 Lease as it travels: times are strings. */
interface Lease {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionOptions {
  namespace: string;
  leaseName: string;
  identity: string;
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
}

export class LeaderElector {
  private readonly client: KubeClient;
  /** The namespace's Leases, where ours is created. */
  private readonly leases: string;
  /** Our Lease. */
  private readonly path: string;
  private readonly namespace: string;
  private readonly leaseName: string;
  private readonly identity: string;
  private readonly leaseDurationSeconds: number;
  private readonly renewDeadlineSeconds: number;
  private readonly retryPeriodSeconds: number;
  private readonly log: Logger;
  private readonly onChange: (leading: boolean) => void;
  private leading = false;
  /** performance.now() until which we may act as leader. */
  private validUntil = 0;
  private observed = '';
  private observedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Steps down at validUntil even while a renew request hangs (logs and the leader metric say when). */
  private expiry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(client: KubeClient, options: LeaderElectionOptions, onChange: (leading: boolean) => void, log: Logger) {
    if (options.renewDeadlineSeconds >= options.leaseDurationSeconds) {
      throw new Error(
        `leader election: the renew deadline (${options.renewDeadlineSeconds} s) must be shorter than the lease duration (${options.leaseDurationSeconds} s), or two leaders could write at once`,
      );
    }
    this.client = client;
    this.leases = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases`;
    this.path = `${this.leases}/${options.leaseName}`;
    ({
      namespace: this.namespace,
      leaseName: this.leaseName,
      identity: this.identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      renewDeadlineSeconds: this.renewDeadlineSeconds,
      retryPeriodSeconds: this.retryPeriodSeconds,
    } = options);
    this.onChange = onChange;
    this.log = log.with({ lease: `${options.namespace}/${options.leaseName}`, identity: options.identity });
  }

  /** True while we hold the Lease and are within the renew deadline of our last renew (fencing). */
  isLeader(): boolean {
    if (this.leading && performance.now() >= this.validUntil) this.setLeading(false);
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  /** Stops campaigning; a leader releases the Lease so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.expiry);
    if (!this.leading) return;
    this.setLeading(false);
    try {
      const lease = await this.client.request<Lease>('GET', this.path);
      if (lease.spec?.holderIdentity !== this.identity) return;
      lease.spec.holderIdentity = '';
      lease.spec.leaseDurationSeconds = 1;
      await this.client.request('PUT', this.path, lease);
    } catch (err) {
      this.log.warn('could not release the lease', { error: err });
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.tryAcquireOrRenew(performance.now());
    } catch (err) {
      this.log.warn('lease update failed', { error: err });
    }
    this.isLeader();
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.retryPeriodSeconds * 1000);
  }

  /** True when we hold the Lease after this attempt, which started at `startedAt` (performance.now()). */
  private async tryAcquireOrRenew(startedAt: number): Promise<boolean> {
    const { namespace, leaseName: name, identity } = this;
    const now = microTime(new Date());
    let lease: Lease;
    try {
      lease = await this.client.request<Lease>('GET', this.path);
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
      const created = await this.client.request<Lease>('POST', this.leases, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: this.leaseDurationSeconds,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        },
      });
      if (created.spec?.holderIdentity !== identity) return false;
      this.renewed(startedAt);
      return true;
    }
    const spec = lease.spec ?? {};
    // Only the record's identity matters, not its times: they come from another clock.
    const record = `${spec.holderIdentity ?? ''} ${String(spec.renewTime ?? '')}`;
    if (record !== this.observed) {
      this.observed = record;
      this.observedAt = performance.now();
    }
    const holder = spec.holderIdentity ?? '';
    const duration = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
    const expired = holder === '' || performance.now() > this.observedAt + duration;
    if (holder !== identity && !expired) {
      this.setLeading(false);
      return false;
    }
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      renewTime: now,
      ...(holder !== identity ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
    };
    try {
      await this.client.request('PUT', this.path, lease);
    } catch (err) {
      // 409: someone else updated the Lease since we read it; try again next period.
      if (err instanceof KubeApiError && err.status === 409) return false;
      throw err;
    }
    this.renewed(startedAt);
    return true;
  }

  private renewed(startedAt: number): void {
    this.validUntil = startedAt + this.renewDeadlineSeconds * 1000;
    this.armExpiry();
    // A renew that took longer than the deadline does not make us leader for a moment.
    if (performance.now() < this.validUntil) this.setLeading(true);
  }

  /** Steps down at validUntil; a timer that fires before it (timers count whole ms from the loop's clock) is set again. */
  private armExpiry(): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(
      () => {
        if (this.isLeader()) this.armExpiry();
      },
      Math.max(0, this.validUntil - performance.now()) + 1,
    );
    this.expiry.unref();
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.log.info(leading ? 'became leader' : 'stopped leading');
    this.onChange(leading);
  }
}

/** A metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the API server parses it. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
