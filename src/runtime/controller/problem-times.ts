// Since when each current problem exists: the status page shows when a name was first refused
// or found in conflict. A problem that goes away and comes back starts again, as its Event does
// (kube/problem-reporter.ts reports each distinct problem once while it lasts).
import type { Problem } from './desired-record.ts';

/** One problem's identity: its object, reason and message (the same problem found twice is one). */
export function problemId(p: Problem): string {
  return `${p.object.kind}/${p.object.namespace}/${p.object.name} ${p.reason} ${p.message}`;
}

export interface TimedProblem {
  problem: Problem;
  since: Date;
}

export class ProblemTimes {
  private current = new Map<string, TimedProblem>();

  /** The problems of a sync: those seen before keep their time, new ones get `now`. */
  update(problems: readonly Problem[], now = new Date()): void {
    const next = new Map<string, TimedProblem>();
    for (const problem of problems) {
      const id = problemId(problem);
      if (!next.has(id)) next.set(id, { problem, since: this.current.get(id)?.since ?? now });
    }
    this.current = next;
  }

  list(): TimedProblem[] {
    return [...this.current.values()];
  }
}
