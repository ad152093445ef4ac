// The etcd edge: reads the entries under a prefix and applies a plan in transactions.
// Every write is guarded (create: the key does not exist; update/delete: its mod revision is the
// one we planned against), so a concurrent writer is detected and never overwritten. All changes
// of one name go in one transaction (an IP change is an atomic swap); names are batched.
import type { Etcd3 } from 'etcd3';
import { normalizePrefix } from '../../../skydns/skydns-key.ts';
import type { CurrentEntry } from '../plan/current-entries.ts';
import type { Change, Plan } from '../plan/plan.ts';

/** etcd's default --max-txn-ops is 128 (compares and operations are counted separately). */
const MAX_OPS_PER_TXN = 128;
const PAGE_SIZE = 5000;
const CALL_TIMEOUT_MS = 10_000;
const CONCURRENT_TXNS = 4;

export interface ApplyResult {
  /** Keys written or deleted. */
  applied: number;
  transactions: number;
  /** Names whose guard failed: someone else wrote there since we read. Nothing was written for them. */
  conflicted: string[];
  /** etcd's revision after the last successful transaction (0: none): a copy at it has every write. */
  revision: number;
}

interface NameUnit {
  name: string;
  changes: Change[];
}

export class EtcdStore {
  private readonly client: Etcd3;
  readonly prefix: string;

  constructor(client: Etcd3, prefix: string) {
    this.client = client;
    this.prefix = normalizePrefix(prefix);
  }

  /** Every entry under the prefix, read page by page at one revision. */
  async read(): Promise<{ entries: CurrentEntry[]; revision: string }> {
    const start = `${this.prefix}/`;
    const end = `${this.prefix}0`; // '0' follows '/': the end of the prefix range
    const entries: CurrentEntry[] = [];
    let from = start;
    let revision: string | undefined;
    for (;;) {
      let query = this.client.getAll().inRange({ start: from, end }).limit(PAGE_SIZE).options(deadline());
      if (revision) query = query.revision(revision);
      const res = await query.exec();
      revision ??= res.header.revision;
      for (const kv of res.kvs)
        entries.push({ key: kv.key.toString(), value: kv.value.toString(), modRevision: kv.mod_revision });
      if (!res.more || res.kvs.length === 0) break;
      from = `${res.kvs[res.kvs.length - 1]!.key.toString()}\0`;
    }
    return { entries, revision: revision ?? '0' };
  }

  /** Applies creates, updates and deletes; names whose guard fails are reported, not forced. */
  async apply(plan: Pick<Plan, 'creates' | 'updates' | 'deletes'>): Promise<ApplyResult> {
    const units = new Map<string, NameUnit>();
    for (const c of [...plan.deletes, ...plan.updates, ...plan.creates]) {
      const unit = units.get(c.name) ?? { name: c.name, changes: [] };
      unit.changes.push(c);
      units.set(c.name, unit);
    }
    const batches: NameUnit[][] = [];
    let batch: NameUnit[] = [];
    let ops = 0;
    for (const unit of units.values()) {
      if (batch.length > 0 && ops + unit.changes.length > MAX_OPS_PER_TXN) {
        batches.push(batch);
        batch = [];
        ops = 0;
      }
      batch.push(unit);
      ops += unit.changes.length;
    }
    if (batch.length > 0) batches.push(batch);

    const result: ApplyResult = { applied: 0, transactions: 0, conflicted: [], revision: 0 };
    const queue = [...batches];
    const worker = async () => {
      for (let b = queue.shift(); b; b = queue.shift()) await this.applyBatch(b, result);
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_TXNS, batches.length) }, worker));
    return result;
  }

  private async applyBatch(batch: NameUnit[], result: ApplyResult): Promise<void> {
    if (
      await this.commit(
        batch.flatMap((u) => u.changes),
        result,
      )
    )
      return;
    // The batch's guard failed: find the names that changed under us, apply the others.
    if (batch.length === 1) {
      result.conflicted.push(batch[0]!.name);
      return;
    }
    for (const unit of batch) {
      if (!(await this.commit(unit.changes, result))) result.conflicted.push(unit.name);
    }
  }

  private async commit(changes: Change[], result: ApplyResult): Promise<boolean> {
    // A transaction needs at least one compare for the builder; every change brings its own.
    const [first, ...rest] = changes.map(guard);
    let txn = this.client.if(...first!);
    for (const g of rest) txn = txn.and(...g);
    const res = await txn
      .then(
        ...changes.map((c) =>
          c.after !== undefined ? this.client.put(c.key).value(c.after) : this.client.delete().key(c.key),
        ),
      )
      .options(deadline())
      .commit();
    result.transactions += 1;
    if (res.succeeded) {
      result.applied += changes.length;
      result.revision = Math.max(result.revision, Number(res.header.revision));
    }
    return res.succeeded;
  }
}

function guard(c: Change): [string, 'Version' | 'Mod', '==', number | string] {
  return c.before ? [c.key, 'Mod', '==', c.before.modRevision] : [c.key, 'Version', '==', 0];
}

function deadline(): { deadline: Date } {
  return { deadline: new Date(Date.now() + CALL_TIMEOUT_MS) };
}
