// Checks answers against the truth while faults happen: stable names must always answer their
// address; every change must become visible (its propagation time is measured), and an answer
// is wrong when it was never true for that name. Figures: failed and wrong answers, stale-serving
// time (some change older than 1 s not yet visible), catch-up after a recovery mark, lost changes.
import type { Churn, NameState } from './churn.ts';
import type { DnsProbe, ProbeAnswer } from './dns-probe.ts';

interface Pending {
  name: string;
  state: NameState;
}

/** A change not visible after this long makes the server count as serving stale answers. */
const STALE_AFTER_MS = 1000;
const TICK_MS = 100;
const PENDING_PER_TICK = 10;

export interface CheckFigures {
  checks: number;
  /** No answer, SERVFAIL, REFUSED: by rcode. */
  failed: Record<string, number>;
  /** NXDOMAIN for a name that existed the whole time, or addresses the name never had. */
  wrong: number;
  wrongExamples: string[];
  staleMs: number;
  /** Milliseconds from the recovery mark until every change made before it was visible. */
  catchUpMs: number | undefined;
  /** Changes whose propagation was measured; their p50/p99/max in ms. */
  propagated: number;
  propagationP50Ms: number;
  propagationP99Ms: number;
  propagationMaxMs: number;
}

export class Checker {
  private readonly probe: DnsProbe;
  private readonly churn: Churn;
  private readonly stable: Map<string, string>;
  private readonly stableNames: string[];
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private round = 0;
  private recoveredAt: number | undefined;
  private readonly latencies: number[] = [];
  readonly figures: CheckFigures = {
    checks: 0,
    failed: {},
    wrong: 0,
    wrongExamples: [],
    staleMs: 0,
    catchUpMs: undefined,
    propagated: 0,
    propagationP50Ms: 0,
    propagationP99Ms: 0,
    propagationMaxMs: 0,
  };

  constructor(probe: DnsProbe, churn: Churn, stable: Map<string, string>) {
    this.probe = probe;
    this.churn = churn;
    this.stable = stable;
    this.stableNames = [...stable.keys()];
    churn.onChange = (name, state) => {
      // A newer state of a name supersedes its older pending one.
      this.pending = this.pending.filter((p) => p.name !== name);
      this.pending.push({ name, state });
    };
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = true;
      void this.tick().finally(() => (this.ticking = false));
    }, TICK_MS);
  }

  async stop(): Promise<CheckFigures> {
    clearInterval(this.timer);
    while (this.ticking) await new Promise((r) => setTimeout(r, 20));
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    Object.assign(this.figures, {
      propagated: sorted.length,
      propagationP50Ms: at(0.5),
      propagationP99Ms: at(0.99),
      propagationMaxMs: sorted[sorted.length - 1] ?? 0,
    });
    return this.figures;
  }

  /** The fault is over: catch-up is measured from now. */
  markRecovered(): void {
    this.recoveredAt = Date.now();
    this.figures.catchUpMs = undefined;
  }

  /** Changes not yet visible. */
  pendingCount(): number {
    return this.pending.length;
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    const oldest = this.pending[0];
    if (oldest && now - oldest.state.at > STALE_AFTER_MS) this.figures.staleMs += TICK_MS;
    const stable = [0, 1].map((i) => this.stableNames[(this.round * 2 + i) % this.stableNames.length]!);
    this.round++;
    const pending = this.pending.slice(0, PENDING_PER_TICK);
    const historic = [...this.churn.history.keys()];
    const random = historic[Math.floor(Math.random() * historic.length)];
    const [stableAnswers, pendingAnswers, randomAnswer] = await Promise.all([
      Promise.all(stable.map((n) => this.probe.query(n, 1000))),
      Promise.all(pending.map((p) => this.probe.query(p.name, 1000))),
      random ? this.probe.query(random, 1000) : Promise.resolve(undefined),
    ]);
    stable.forEach((name, i) => this.judgeStable(name, stableAnswers[i]!));
    pending.forEach((p, i) => this.judgePending(p, pendingAnswers[i]!));
    if (random && randomAnswer) this.judgeHistoric(random, randomAnswer, now);
    if (this.recoveredAt !== undefined && this.figures.catchUpMs === undefined) {
      const before = this.pending.filter((p) => p.state.at < this.recoveredAt!);
      if (before.length === 0) this.figures.catchUpMs = Date.now() - this.recoveredAt;
    }
  }

  private failed(a: ProbeAnswer): boolean {
    if (a.rcode === 'NOERROR' || a.rcode === 'NXDOMAIN') return false;
    this.figures.failed[a.rcode] = (this.figures.failed[a.rcode] ?? 0) + 1;
    return true;
  }

  private wrong(what: string): void {
    this.figures.wrong++;
    if (this.figures.wrongExamples.length < 10) this.figures.wrongExamples.push(what);
  }

  private judgeStable(name: string, a: ProbeAnswer): void {
    this.figures.checks++;
    if (this.failed(a)) return;
    const want = this.stable.get(name)!;
    if (a.rcode !== 'NOERROR' || a.addresses.join(',') !== want) {
      this.wrong(`${name}: ${a.rcode} ${a.addresses.join(',')}, want ${want}`);
    }
  }

  private judgePending(p: Pending, a: ProbeAnswer): void {
    this.figures.checks++;
    if (this.failed(a)) return;
    const shown = a.rcode === 'NXDOMAIN' ? undefined : a.addresses.join(',');
    if (shown !== p.state.address) return;
    this.latencies.push(Math.max(0, Date.now() - p.state.at));
    this.pending = this.pending.filter((q) => q !== p);
  }

  /** Any answer must be a state the name was in at some point up to now. */
  private judgeHistoric(name: string, a: ProbeAnswer, _at: number): void {
    this.figures.checks++;
    if (this.failed(a)) return;
    const shown = a.rcode === 'NXDOMAIN' ? undefined : a.addresses.join(',');
    const states = this.churn.history.get(name) ?? [];
    // A NOERROR without addresses is a name with entries below it only: not one of ours.
    if (a.rcode === 'NOERROR' && a.addresses.length === 0) return this.wrong(`${name}: NOERROR without A`);
    const intended = this.churn.intended.has(name) && this.churn.intended.get(name) === shown;
    if (!intended && !states.some((s) => s.address === shown))
      this.wrong(`${name}: ${shown ?? 'NXDOMAIN'} was never true`);
  }
}
