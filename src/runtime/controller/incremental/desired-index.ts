// The desired records kept per source object, with an index per view from each name to the
// objects that want it: replacing one object's records tells which names it touched (the names
// it wanted before and wants now), and the records of a few names are found without a scan.
import type { DesiredRecord, Problem } from '../desired-record.ts';
import type { Decision } from '../views/view-records.ts';
import type { ObjectRecords } from './object-records.ts';

export class DesiredIndex {
  /** Objects the sources found no record and no problem in are not kept. */
  private readonly objects = new Map<string, ObjectRecords>();
  /** Per view: name -> ids of the objects with records there. */
  private readonly byName: Map<string, Set<string>>[];
  /** Ids of the objects with problems: every sync reports them, and a scan of all is O(cluster). */
  private readonly withProblems = new Set<string>();

  constructor(viewCount: number) {
    this.byName = Array.from({ length: viewCount }, () => new Map());
  }

  clear(): void {
    this.objects.clear();
    this.withProblems.clear();
    for (const names of this.byName) names.clear();
  }

  /** Replaces an object's records (undefined: it is gone); returns per view the names touched. */
  set(id: string, next: ObjectRecords | undefined): Set<string>[] {
    const touched = this.byName.map(() => new Set<string>());
    const before = this.objects.get(id);
    before?.views.forEach((v, i) => {
      for (const r of v.records) {
        touched[i]!.add(r.name);
        const ids = this.byName[i]!.get(r.name);
        ids?.delete(id);
        if (ids?.size === 0) this.byName[i]!.delete(r.name);
      }
    });
    const keep = next && (next.problems.length > 0 || next.views.some((v) => v.decisions.length > 0));
    if (next && next.problems.length > 0) this.withProblems.add(id);
    else this.withProblems.delete(id);
    if (!keep) {
      this.objects.delete(id);
      return touched;
    }
    this.objects.set(id, next);
    next.views.forEach((v, i) => {
      for (const r of v.records) {
        touched[i]!.add(r.name);
        const ids = this.byName[i]!.get(r.name);
        if (ids) ids.add(id);
        else this.byName[i]!.set(r.name, new Set([id]));
      }
    });
    return touched;
  }

  /** Every record of a view. */
  records(view: number): DesiredRecord[] {
    return [...this.objects.values()].flatMap((o) => o.views[view]!.records);
  }

  /** The records of a view at these names. */
  recordsAt(view: number, names: Iterable<string>): DesiredRecord[] {
    const out: DesiredRecord[] = [];
    for (const name of names)
      for (const id of this.byName[view]!.get(name) ?? [])
        for (const r of this.objects.get(id)!.views[view]!.records) if (r.name === name) out.push(r);
    return out;
  }

  /** How a view treated every record the sources asked for (the status page). */
  decisions(view: number): Decision[] {
    return [...this.objects.values()].flatMap((o) => o.views[view]!.decisions);
  }

  /** How a view treated the records the sources asked for at `name`. */
  decisionsAt(view: number, name: string): Decision[] {
    const out: Decision[] = [];
    for (const o of this.objects.values()) for (const d of o.views[view]!.decisions) if (d.name === name) out.push(d);
    return out;
  }

  /** How many records the views publish from one object (before merging). */
  recordCount(id: string): number {
    return this.objects.get(id)?.views.reduce((n, v) => n + v.records.length, 0) ?? 0;
  }

  problems(): Problem[] {
    return [...this.withProblems].flatMap((id) => this.objects.get(id)!.problems);
  }
}
