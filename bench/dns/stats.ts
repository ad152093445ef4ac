// Small statistics for benchmark figures.

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median of repeated runs is what we report: one noisy run does not move it. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
