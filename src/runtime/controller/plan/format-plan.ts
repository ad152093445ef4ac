// A plan as a human reads it (`etcdns plan`, --dry-run logs): changes grouped per name.
import { resourceId } from '../desired-record.ts';
import type { Change, Plan } from './plan.ts';

export function formatPlan(plan: Plan): string {
  const byName = new Map<string, string[]>();
  const add = (sign: string, c: Change, value: string | undefined) => {
    const lines = byName.get(c.name) ?? [];
    lines.push(`  ${sign} ${c.key} ${value ?? ''}`.trimEnd());
    byName.set(c.name, lines);
  };
  for (const c of plan.creates) add('+', c, c.after);
  for (const c of plan.updates) add('~', c, `${c.before?.value} -> ${c.after}`);
  for (const c of plan.deletes) add('-', c, c.before?.value);
  const out: string[] = [];
  for (const name of [...byName.keys()].sort()) out.push(name, ...byName.get(name)!);
  for (const c of plan.conflicts) out.push(`! ${c.name} (${resourceId(c.object)}): ${c.message}`);
  out.push(
    `${plan.creates.length} to create, ${plan.updates.length} to update, ${plan.deletes.length} to delete, ${plan.conflicts.length} conflicts`,
  );
  return `${out.join('\n')}\n`;
}
