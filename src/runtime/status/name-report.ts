// The screen `etcdns status --explain NAME` prints from what it read (stack-status.ts
// readNameStatus), in place of the stack's screen: a person debugging one name wants its account,
// not the whole stack's (which plain `etcdns status` prints). Per view, why each member cluster
// answers the name or not, once for the replicas that agree on every verdict (each replica keeps
// its own lease clock, so the ages differ by the seconds between their starts), else per
// replica; a replica that is not a hub in one line. Then what needs a person about the name:
// answered stale, a cluster's entries refused by its claims or left out as it does not count, a
// replica not read. Pure.
import { clusterCells, explanationSummary, type NameExplanation } from '../status-page/name-explanation-text.ts';
import { shownName } from '../status-page/status-search.ts';
import type { NameStatus } from './stack-status.ts';
import { columns, fit, type StatusReport } from './status-report.ts';

export function nameReport(s: NameStatus, width = 120): StatusReport {
  const lines: string[] = [];
  const attention = new Set<string>();
  const asked = `${s.asked}${s.client ? ` asked from ${s.client}` : ''}`;
  lines.push(
    fit(
      `etcdns stack "${s.name}" in namespace ${s.namespace}, ${s.at.toISOString().slice(0, 19)}Z: who answers ${asked}`,
      width,
    ),
  );
  const views = [...new Set(s.servers.map((r) => r.view))].sort();
  if (views.length === 0) {
    lines.push('', 'DNS servers: none found');
    attention.add('no DNS server pods');
  }
  for (const view of views) {
    lines.push('', `view ${view}:`);
    const groups: { pods: string[]; explain: NameExplanation }[] = [];
    for (const r of s.servers.filter((x) => x.view === view)) {
      const pod = `${r.pod.name}${r.pod.ready ? '' : ' (NOT READY)'}`;
      if (!r.summary.ok) {
        lines.push(fit(`  ${pod}: not read: ${r.summary.error}`, width));
        attention.add(`DNS server ${r.pod.name}: the name's explanation not read`);
        continue;
      }
      const explain = r.summary.value.explain;
      if (!explain) {
        lines.push(`  ${pod}: not a hub (only a hub merges member clusters, and explains their names)`);
        continue;
      }
      const same = groups.find((g) => verdicts(g.explain) === verdicts(explain));
      if (same) same.pods.push(pod);
      else groups.push({ pods: [pod], explain });
    }
    for (const { pods, explain } of groups) {
      lines.push(
        pods.length === 1 ? `  ${pods[0]}:` : `  ${pods.join(', ')} agree (lease ages as ${pods[0]} sees them):`,
      );
      lines.push(fit(`    ${explanationSummary(explain)}`, width));
      const rows = explain.clusters.map((c) => {
        const cells = clusterCells(c);
        return [c.cluster, cells.entries, cells.standing, cells.verdict, c.why];
      });
      // The why is what the person came for: too long for the line, it goes on its own below.
      const whole = columns(rows);
      const heads = columns(rows.map((r) => r.slice(0, -1)));
      for (const [i, line] of whole.entries())
        if (`    ${line}`.length <= width) lines.push(fit(`    ${line}`, width));
        else lines.push(fit(`    ${heads[i]}`, width), fit(`      ${rows[i]!.at(-1)}`, width));
      for (const a of needs(explain)) attention.add(`view ${view}: ${a}`);
    }
  }
  lines.push('');
  if (attention.size === 0) lines.push('nothing needs a person');
  else lines.push('needs a person:', ...[...attention].map((a) => fit(`  - ${a}`, width)));
  return { lines, attention: [...attention] };
}

/** What the verdicts rest on, lease ages aside: replicas with the same key agree. */
function verdicts(e: NameExplanation): string {
  const { zone, policy, site, stale, answering } = e;
  const clusters = e.clusters.map((c) => [c.cluster, c.entries, c.counts, c.refused, c.answers]);
  return JSON.stringify({ zone, policy, site, stale, answering, clusters });
}

/** The name's entries that a person must look at: refused, left out, or answered stale. */
function needs(e: NameExplanation): string[] {
  const out: string[] = [];
  if (e.stale) out.push(`${shownName(e.name)} is answered stale: no contributing member cluster counts`);
  for (const c of e.clusters.filter((x) => x.entries > 0)) {
    if (c.refused !== null) out.push(`member cluster ${c.cluster}'s entries are refused by its claims: ${c.refused}`);
    else if (!c.counts && !e.stale)
      out.push(`member cluster ${c.cluster} does not count: its entries at ${shownName(e.name)} are left out`);
  }
  return out;
}
