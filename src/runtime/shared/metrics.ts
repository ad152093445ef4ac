// A small Prometheus registry: counters, gauges and histograms with labels, rendered in the
// text exposition format. Enough for our /metrics without another dependency.

type Labels = Record<string, string>;

/** The default label set: its key is known, which keeps per-query observations cheap. */
const NO_LABELS: Labels = Object.freeze({});

function labelKey(labels: Labels): string {
  if (labels === NO_LABELS) return '';
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}

function series(name: string, key: string, value: number): string {
  return `${name}${key ? `{${key}}` : ''} ${Number.isFinite(value) ? value : value > 0 ? '+Inf' : '-Inf'}`;
}

interface Metric {
  render(): string[];
}

/** One value per label set: the common part of counters and gauges. */
abstract class LabeledValue implements Metric {
  protected readonly values = new Map<string, number>();
  readonly name: string;
  readonly help: string;
  protected abstract readonly type: 'counter' | 'gauge';
  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }
  get(labels: Labels = NO_LABELS): number {
    return this.values.get(labelKey(labels)) ?? 0;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const [key, v] of this.values) lines.push(series(this.name, key, v));
    return lines;
  }
}

export class Counter extends LabeledValue {
  protected readonly type = 'counter';
  inc(labels: Labels = NO_LABELS, by = 1): void {
    const key = labelKey(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }
}

export class Gauge extends LabeledValue {
  protected readonly type = 'gauge';
  set(value: number, labels: Labels = NO_LABELS): void {
    this.values.set(labelKey(labels), value);
  }
}

export class Histogram implements Metric {
  private readonly data = new Map<string, { counts: number[]; sum: number; count: number }>();
  readonly name: string;
  readonly help: string;
  /** Upper bounds, ascending, in the unit of observe() (seconds by convention). */
  readonly buckets: readonly number[];
  constructor(name: string, help: string, buckets: readonly number[]) {
    this.name = name;
    this.help = help;
    this.buckets = buckets;
  }
  observe(value: number, labels: Labels = NO_LABELS): void {
    const key = labelKey(labels);
    let d = this.data.get(key);
    if (!d) {
      d = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.data.set(key, d);
    }
    // Cumulative counts are computed at render time; here each observation lands in one bucket
    // (a loop, not findIndex: no closure per observation, which the DNS server makes per query).
    const { buckets } = this;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        d.counts[i]! += 1;
        break;
      }
    }
    d.sum += value;
    d.count += 1;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, d] of this.data) {
      let cumulative = 0;
      const sep = key ? `${key},` : '';
      this.buckets.forEach((b, i) => {
        cumulative += d.counts[i]!;
        lines.push(`${this.name}_bucket{${sep}le="${b}"} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{${sep}le="+Inf"} ${d.count}`);
      lines.push(series(`${this.name}_sum`, key, d.sum));
      lines.push(series(`${this.name}_count`, key, d.count));
    }
    return lines;
  }
}

/**
 * The process metrics every Prometheus client library exports under these names, so dashboards
 * and alerts made for any process work here; sampled when rendered.
 */
class ProcessMetrics implements Metric {
  render(): string[] {
    const { user, system } = process.cpuUsage();
    return [
      '# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.',
      '# TYPE process_cpu_seconds_total counter',
      series('process_cpu_seconds_total', '', (user + system) / 1e6),
      '# HELP process_resident_memory_bytes Resident memory size in bytes.',
      '# TYPE process_resident_memory_bytes gauge',
      series('process_resident_memory_bytes', '', process.memoryUsage.rss()),
      '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
      '# TYPE process_start_time_seconds gauge',
      // timeOrigin: when this process started (after a re-execution with V8 flags: when that began).
      series('process_start_time_seconds', '', Math.round(performance.timeOrigin) / 1000),
    ];
  }
}

/** A process's metrics: its own, then the standard process_* ones. */
export class Registry {
  private readonly metrics: Metric[] = [];
  private readonly processMetrics = new ProcessMetrics();
  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }
  gauge(name: string, help: string): Gauge {
    return this.add(new Gauge(name, help));
  }
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }
  render(): string {
    return `${[...this.metrics, this.processMetrics].flatMap((m) => m.render()).join('\n')}\n`;
  }
  private add<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }
}

/** Latency buckets from 50 µs to 5 s, in seconds. */
export const LATENCY_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
