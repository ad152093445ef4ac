// Reads a Prometheus text page (what etcd's /metrics serves): each sample's name, labels and
// value. Comments, and samples that do not parse, are skipped.

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function metricSamples(page: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of page.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line.trim());
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (m[2] ?? '').matchAll(LABEL))
      labels[key!] = raw!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the first sample named `name` (whatever its labels), or undefined. */
export function sampleValue(samples: readonly MetricSample[], name: string): number | undefined {
  return samples.find((s) => s.name === name)?.value;
}
