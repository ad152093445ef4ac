// The fault suite's figures as one Markdown table (one row per scenario), as bench/dns prints its.
import type { ScenarioResult } from '../../test/faults/scenarios.ts';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const pad = (c: string, w: number) => (/^[-0-9.]/.test(c) ? c.padStart(w) : c.padEnd(w));
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const ms = (n: number | undefined) => (n === undefined ? '-' : (n / 1000).toFixed(1));

/** Failed answers: dnsperf's lost and non-NOERROR, and the checker's timeouts and SERVFAILs. */
export function failedAnswers(r: ScenarioResult): number {
  return r.dnsperf.lost + r.dnsperf.notNoerror + Object.values(r.check.failed).reduce((a, b) => a + b, 0);
}

export function renderFaults(results: readonly ScenarioResult[]): string {
  const main = table(
    [
      'scenario',
      's',
      'queries',
      'failed',
      'wrong',
      'stale s',
      'catch-up s',
      'prop p50/p99 ms',
      'changes',
      'refused',
      'lost',
      'etcd ≠ desired',
      'foreign touched',
      'twice',
    ],
    results.map((r) => [
      r.scenario,
      String(r.seconds),
      String(r.dnsperf.sent + r.check.checks),
      String(failedAnswers(r)),
      String(r.check.wrong),
      ms(r.check.staleMs),
      ms(r.check.catchUpMs),
      `${r.check.propagationP50Ms}/${r.check.propagationP99Ms}`,
      String(r.changes),
      String(r.refused),
      String(r.lost),
      String(r.etcdMismatched.length),
      r.extra.foreignLostWithData ? 'lost with data' : String(r.foreignTouched.length),
      r.extra.foreignLostWithData ? '-' : String(r.duplicates),
    ]),
  );
  const extras = results.map(
    (r) =>
      `- ${r.scenario}: ${Object.entries(r.extra)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', ')}`,
  );
  return [main, '', ...extras].join('\n');
}
