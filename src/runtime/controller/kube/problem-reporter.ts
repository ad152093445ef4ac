// Problems (skipped names, conflicts) become a log line and a Kubernetes Event on the object
// concerned (core v1 Events: the RBAC the DnsController construct grants). Each distinct problem
// is reported once while it lasts; when it disappears and comes back, it is reported again.
// Failures to record an Event are logged, never fatal. Without a Kubernetes client (dry runs),
// problems are only logged.
import type { Logger } from '../../shared/log.ts';
import type { KubeClient } from '../../kube/kube-client.ts';
import type { Problem } from '../desired-record.ts';
import { problemId } from '../problem-times.ts';

export const REPORTING_COMPONENT = 'etcdns-controller';

export class ProblemReporter {
  private readonly client: KubeClient | undefined;
  private readonly instance: string;
  private readonly log: Logger;
  private active = new Set<string>();

  constructor(client: KubeClient | undefined, instance: string, log: Logger) {
    this.client = client;
    this.instance = instance;
    this.log = log;
  }

  /** Reports the problems of one sync that were not already reported; returns how many are new. */
  async report(problems: readonly Problem[]): Promise<number> {
    const next = new Set<string>();
    const fresh: Problem[] = [];
    for (const p of problems) {
      const id = problemId(p);
      if (next.has(id)) continue;
      next.add(id);
      if (!this.active.has(id)) fresh.push(p);
    }
    this.active = next;
    for (const p of fresh) {
      this.log.warn(p.message, {
        reason: p.reason,
        object: `${p.object.kind}/${p.object.namespace}/${p.object.name}`,
        ...(p.name ? { name: p.name } : {}),
      });
    }
    await Promise.all(fresh.map((p) => this.createEvent(p)));
    return fresh.length;
  }

  private async createEvent(p: Problem): Promise<void> {
    if (!this.client) return;
    const now = new Date().toISOString();
    try {
      await this.client.request('POST', `/api/v1/namespaces/${p.object.namespace}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${p.object.name}.`, namespace: p.object.namespace },
        involvedObject: {
          kind: p.object.kind,
          apiVersion: p.object.apiVersion,
          namespace: p.object.namespace,
          name: p.object.name,
          ...(p.object.uid ? { uid: p.object.uid } : {}),
        },
        reason: p.reason,
        message: p.message,
        type: 'Warning',
        source: { component: REPORTING_COMPONENT },
        reportingComponent: REPORTING_COMPONENT,
        reportingInstance: this.instance,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
    } catch (err) {
      this.log.warn('could not record event', {
        object: `${p.object.namespace}/${p.object.name}`,
        reason: p.reason,
        error: err,
      });
    }
  }
}
