// Reading a /metrics page (Prometheus text format) in tests and benchmarks.

/**
 * The sum of the samples of metric `name` whose label set contains `labels` (e.g. 'result="unchanged"';
 * empty: every label set); 0 when there is none. `name` is the whole sample name (`_sum`, `_count`).
 */
export function metricSum(page: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(labels)) sum += Number(m[3]);
  }
  return sum;
}
