// Turns measurements into the table the benchmark prints and the ratios the issues' targets
// are stated in (ours / CoreDNS, ours / Knot), and ours / the Node floor (node-floor.ts).

export const SERVERS = ['etcdns', 'coredns', 'knot', 'node-floor', 'etcdns-baseline', 'etcdns-order'] as const;
export type ServerName = (typeof SERVERS)[number];
/** Servers that run only when asked: the baseline (--baseline DIR), and etcdns with answerOrder on (--servers). */
const ON_REQUEST: readonly ServerName[] = ['etcdns-baseline', 'etcdns-order'];
export const DEFAULT_SERVERS: readonly ServerName[] = SERVERS.filter((s) => !ON_REQUEST.includes(s));
/** The etcdns builds, each given against the Node floor. */
const ETCDNS_BUILDS: readonly ServerName[] = ['etcdns', 'etcdns-baseline', 'etcdns-order'];
export type Mode = 'pinned' | 'unpinned';

/** One server in one mode, medians over the runs. */
export interface Measurement {
  server: ServerName;
  mode: Mode;
  /** Flood runs (no -Q). */
  qps: number;
  qpsRuns: number[];
  /** Server CPU (process tree) per answered query in the flood runs, microseconds. */
  cpuPerQueryUs: number;
  /** Lost queries over all flood runs, and as a percentage of those sent. */
  lost: number;
  lostPercent: number;
  /** Response codes of the flood runs; anything but NOERROR and NXDOMAIN is a wrong answer. */
  rcodes: Record<string, number>;
  /** Fixed-rate runs: latency percentiles in milliseconds, lost queries. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  rateLost: number;
  /**
   * Server CPU per answered query in the fixed-rate runs, microseconds. Below its limit a server
   * sleeps between packets, and each wake-up costs CPU: on a small VM this is well above the
   * flood's figure, for Knot as for us.
   */
  cpuPerQueryAtRateUs: number;
  /**
   * An etcdns build's garbage collections per fixed-rate run, and the share of that run's time
   * they paused it: queries arriving then wait (the tail of the latency when it is over 1%).
   */
  gcPausesAtRate?: number;
  gcShareAtRate?: number;
}

export interface Ratios {
  mode: Mode;
  qpsVsCoreDns: number;
  qpsVsKnot: number;
  p99VsCoreDns: number;
  cpuVsCoreDns: number;
  cpuVsKnot: number;
  /** Against the Node floor, when it ran (NaN otherwise): what etcdns's own code costs. */
  qpsVsFloor: number;
  cpuVsFloor: number;
  /** The floor against Knot: the best any server on Node's dgram could reach. */
  floorCpuVsKnot: number;
}

export interface Target {
  name: string;
  mode: Mode;
  value: number;
  met: boolean;
}

function find(ms: readonly Measurement[], server: ServerName, mode: Mode): Measurement | undefined {
  return ms.find((m) => m.server === server && m.mode === mode);
}

export function ratios(ms: readonly Measurement[]): Ratios[] {
  const out: Ratios[] = [];
  for (const mode of ['pinned', 'unpinned'] as const) {
    const ours = find(ms, 'etcdns', mode);
    const coredns = find(ms, 'coredns', mode);
    const knot = find(ms, 'knot', mode);
    const floor = find(ms, 'node-floor', mode);
    if (!ours || !coredns || !knot) continue;
    out.push({
      mode,
      qpsVsCoreDns: ours.qps / coredns.qps,
      qpsVsKnot: ours.qps / knot.qps,
      p99VsCoreDns: ours.p99Ms / coredns.p99Ms,
      cpuVsCoreDns: ours.cpuPerQueryUs / coredns.cpuPerQueryUs,
      cpuVsKnot: ours.cpuPerQueryUs / knot.cpuPerQueryUs,
      qpsVsFloor: floor ? ours.qps / floor.qps : NaN,
      cpuVsFloor: floor ? ours.cpuPerQueryUs / floor.cpuPerQueryUs : NaN,
      floorCpuVsKnot: floor ? floor.cpuPerQueryUs / knot.cpuPerQueryUs : NaN,
    });
  }
  return out;
}

/**
 * The targets: issue 4's (QPS >= CoreDNS, QPS >= 0.3x Knot, p99 at the fixed rate <= CoreDNS) and
 * issue 13's (QPS >= 0.8x Knot, CPU per query <= 1.5x Knot's).
 */
export function targets(rs: readonly Ratios[]): Target[] {
  return rs.flatMap((r) => [
    { name: 'QPS >= CoreDNS', mode: r.mode, value: r.qpsVsCoreDns, met: r.qpsVsCoreDns >= 1 },
    { name: 'QPS >= 0.3x Knot', mode: r.mode, value: r.qpsVsKnot, met: r.qpsVsKnot >= 0.3 },
    { name: 'p99 <= CoreDNS', mode: r.mode, value: r.p99VsCoreDns, met: r.p99VsCoreDns <= 1 },
    { name: 'QPS >= 0.8x Knot', mode: r.mode, value: r.qpsVsKnot, met: r.qpsVsKnot >= 0.8 },
    { name: 'CPU/q <= 1.5x Knot', mode: r.mode, value: r.cpuVsKnot, met: r.cpuVsKnot <= 1.5 },
  ]);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Numbers align right, words left.
  const pad = (c: string, w: number) => (/^[-0-9.]/.test(c) ? c.padStart(w) : c.padEnd(w));
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** An etcdns build against the Node floor of the same mode and run: what its own code costs (issue 27). */
export interface FloorRatios {
  server: ServerName;
  mode: Mode;
  cpuVsFloor: number;
  p99VsFloor: number;
  /** Its collections per fixed-rate run and the share of the run they took (NaN when not measured). */
  gcPauses: number;
  gcShare: number;
}

export function floorRatios(ms: readonly Measurement[]): FloorRatios[] {
  return ms.flatMap((m) => {
    const floor = find(ms, 'node-floor', m.mode);
    if (!floor || !ETCDNS_BUILDS.includes(m.server)) return [];
    return [
      {
        server: m.server,
        mode: m.mode,
        cpuVsFloor: m.cpuPerQueryUs / floor.cpuPerQueryUs,
        p99VsFloor: m.p99Ms / floor.p99Ms,
        gcPauses: m.gcPausesAtRate ?? NaN,
        gcShare: m.gcShareAtRate ?? NaN,
      },
    ];
  });
}

/** Issue 27's targets: CPU per query within 1.2x the floor's, p99 at the fixed rate within 2x the floor's. */
export function floorTargets(rs: readonly FloorRatios[]): (Target & { server: ServerName })[] {
  return rs.flatMap((r) => [
    { server: r.server, name: 'CPU/q <= 1.2x floor', mode: r.mode, value: r.cpuVsFloor, met: r.cpuVsFloor <= 1.2 },
    { server: r.server, name: 'p99 <= 2x floor', mode: r.mode, value: r.p99VsFloor, met: r.p99VsFloor <= 2 },
  ]);
}

/** Markdown tables, so the output can be pasted into a note as it is. */
export function renderReport(ms: readonly Measurement[]): string {
  const rows = ms.map((m) => [
    m.mode,
    m.server,
    fixed(m.qps, 0),
    m.qpsRuns.map((q) => fixed(q / 1000, 1)).join('/'),
    fixed(m.cpuPerQueryUs, 1),
    `${m.lost} (${fixed(m.lostPercent, 2)}%)`,
    fixed(m.p50Ms, 3),
    fixed(m.p99Ms, 3),
    String(m.rateLost),
    fixed(m.cpuPerQueryAtRateUs, 1),
  ]);
  const rate = ms[0]?.rate ?? 0;
  const main = table(
    [
      'mode',
      'server',
      'QPS',
      'runs (kQPS)',
      'CPU µs/q',
      'lost (flood)',
      `p50 ms @${rate}`,
      `p99 ms @${rate}`,
      `lost @${rate}`,
      `CPU µs/q @${rate}`,
    ],
    rows,
  );
  const rs = ratios(ms);
  const ratioTable = table(
    [
      'mode',
      'QPS ours/CoreDNS',
      'QPS ours/Knot',
      'p99 ours/CoreDNS',
      'CPU/q ours/CoreDNS',
      'CPU/q ours/Knot',
      'QPS ours/floor',
      'CPU/q ours/floor',
      'CPU/q floor/Knot',
    ],
    rs.map((r) => [
      r.mode,
      fixed(r.qpsVsCoreDns, 2),
      fixed(r.qpsVsKnot, 2),
      fixed(r.p99VsCoreDns, 2),
      fixed(r.cpuVsCoreDns, 2),
      fixed(r.cpuVsKnot, 2),
      fixed(r.qpsVsFloor, 2),
      fixed(r.cpuVsFloor, 2),
      fixed(r.floorCpuVsKnot, 2),
    ]),
  );
  const targetLines = targets(rs).map(
    (t) => `${t.met ? 'met    ' : 'NOT met'}  ${t.name} (${t.mode}): ${fixed(t.value, 2)}`,
  );
  const fr = floorRatios(ms);
  const floorTable =
    fr.length === 0
      ? []
      : [
          '',
          table(
            [
              'mode',
              'server',
              'CPU/q / floor',
              'p99 / floor',
              `GC pauses per run @${rate}`,
              `GC % of the time @${rate}`,
            ],
            fr.map((r) => [
              r.mode,
              r.server,
              fixed(r.cpuVsFloor, 2),
              fixed(r.p99VsFloor, 2),
              fixed(r.gcPauses, 1),
              fixed(r.gcShare * 100, 2),
            ]),
          ),
          '',
          ...floorTargets(fr).map(
            (t) => `${t.met ? 'met    ' : 'NOT met'}  ${t.server}: ${t.name} (${t.mode}): ${fixed(t.value, 2)}`,
          ),
        ];
  return [main, '', ratioTable, '', ...targetLines, ...floorTable, ...wrongAnswers(ms)].join('\n');
}

/** The query file holds only names that exist and names that do not: other rcodes are errors. */
export function wrongAnswers(ms: readonly Measurement[]): string[] {
  return ms.flatMap((m) => {
    const wrong = Object.entries(m.rcodes).filter(([code]) => code !== 'NOERROR' && code !== 'NXDOMAIN');
    return wrong.length === 0
      ? []
      : [`WRONG ANSWERS ${m.server} (${m.mode}): ${wrong.map(([code, n]) => `${code} ${n}`).join(', ')}`];
  });
}

/** The churn rows of a server that does not read etcd: flooded while the same writes run, unprobed. */
export const CONTROL_TARGET = 'none (control)';

/**
 * Flood QPS while records change, against the same server's steady QPS of the same run. The QPS
 * and CPU come from floods with the writes alone; freshness from a second flood with the same
 * writes probed, whose QPS is kept apart (the probes cost the client's core too).
 */
export interface ChurnMeasurement {
  server: ServerName;
  mode: Mode;
  /** 'other', 'queried', or CONTROL_TARGET. */
  target: string;
  writesPerSecond: number;
  qps: number;
  steadyQps: number;
  /** Median QPS of the probed floods; NaN for the control (not probed). */
  probedQps: number;
  /** Server CPU per answered query during the churn flood (its own work, whatever else runs). */
  cpuPerQueryUs: number;
  steadyCpuPerQueryUs: number;
  /** NaN for the control (not probed). */
  freshnessP50Ms: number;
  freshnessP99Ms: number;
  writes: number;
  stale: number;
}

/**
 * A row's QPS / steady over the control's of the same mode and rate: what the server loses to the
 * changes beyond what etcd and the writer take from every server on the machine. NaN without a
 * control, and for the control itself.
 */
export function beyondControl(m: ChurnMeasurement, all: readonly ChurnMeasurement[]): number {
  if (m.target === CONTROL_TARGET) return NaN;
  const c = all.find(
    (x) => x.target === CONTROL_TARGET && x.mode === m.mode && x.writesPerSecond === m.writesPerSecond,
  );
  return c ? m.qps / m.steadyQps / (c.qps / c.steadyQps) : NaN;
}

export function renderChurnReport(ms: readonly ChurnMeasurement[]): string {
  if (ms.length === 0) return '';
  const rows = ms.map((m) => [
    m.mode,
    m.server,
    m.target,
    String(m.writesPerSecond),
    fixed(m.qps, 0),
    fixed(m.qps / m.steadyQps, 2),
    fixed(beyondControl(m, ms), 2),
    `${fixed(m.cpuPerQueryUs, 1)} / ${fixed(m.steadyCpuPerQueryUs, 1)}`,
    fixed(m.probedQps / m.steadyQps, 2),
    fixed(m.freshnessP50Ms, 1),
    fixed(m.freshnessP99Ms, 1),
    m.target === CONTROL_TARGET ? '-' : `${m.stale}/${m.writes}`,
  ]);
  return table(
    [
      'mode',
      'server',
      'changes to',
      'writes/s',
      'QPS',
      'QPS / steady',
      "that / control's",
      'CPU µs/q churn / steady',
      'probed: QPS / steady',
      'fresh p50 ms',
      'fresh p99 ms',
      'stale > 2 s',
    ],
    rows,
  );
}
