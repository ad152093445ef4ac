// One audit line per etcd write of the controller: what was written (operation, key, value), for
// which object (the `resource` the entry carries, "service/ns/name") and why (desired by that
// object, or no longer desired). Who wrote is in every line of the controller's log already
// (owner id and the pod's identity). Pure: the controller logs what this returns.
import { decodeEntry } from '../../../skydns/skydns-entry.ts';
import type { Change, Plan } from '../plan/plan.ts';

export interface AuditEntry {
  op: 'create' | 'update' | 'delete';
  key: string;
  name: string;
  /** The object the entry belongs to, from its value; undefined for entries without one. */
  object: string | undefined;
  reason: string;
  /** The value written; none for a delete. */
  value?: string;
}

function objectOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const decoded = decodeEntry(value);
  return decoded.ok ? decoded.entry.resource : undefined;
}

/** The writes of a plan that were applied (names whose guard failed wrote nothing). */
export function auditEntries(
  plan: Pick<Plan, 'creates' | 'updates' | 'deletes'>,
  conflicted: readonly string[],
): AuditEntry[] {
  const skipped = new Set(conflicted);
  const entry = (op: AuditEntry['op'], c: Change): AuditEntry => {
    const object = objectOf(c.after ?? c.before?.value);
    const reason =
      op === 'delete'
        ? `no longer desired${object ? ` by ${object}` : ''}`
        : `desired by ${object ?? 'an object'}${op === 'update' ? ', value changed' : ''}`;
    return { op, key: c.key, name: c.name, object, reason, ...(c.after !== undefined ? { value: c.after } : {}) };
  };
  return [
    ...plan.creates.filter((c) => !skipped.has(c.name)).map((c) => entry('create', c)),
    ...plan.updates.filter((c) => !skipped.has(c.name)).map((c) => entry('update', c)),
    ...plan.deletes.filter((c) => !skipped.has(c.name)).map((c) => entry('delete', c)),
  ];
}
