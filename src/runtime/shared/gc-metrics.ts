// Garbage collection pauses as a histogram, under the name and kinds every Prometheus client for
// Node exports (nodejs_gc_duration_seconds{kind}), so existing dashboards read it. A long major
// collection stalls everything the process does: it is the first thing to look at when a latency
// percentile jumps while the work did not change.
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Registry } from './metrics.ts';

const KINDS: ReadonlyMap<number, string> = new Map([
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

/** From 100 µs (a scavenge) to 5 s, in seconds. */
const GC_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Observes this process's collections into `registry`; returns what stops observing. */
export function observeGarbageCollection(registry: Registry): () => void {
  const pauses = registry.histogram(
    'nodejs_gc_duration_seconds',
    'Garbage collection duration by kind, in seconds.',
    GC_BUCKETS,
  );
  const labels = new Map([...KINDS].map(([k, kind]) => [k, { kind }]));
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1;
      pauses.observe(entry.duration / 1000, labels.get(kind) ?? { kind: 'other' });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
