// A zone's keys as etcd held them at an earlier revision (etcd keeps every revision until it is
// compacted): what IXFR diffs against, and what checks a freshly loaded copy's SOA serial.
import type { Etcd3 } from 'etcd3';
import { RecordIndex } from './record-index.ts';
import type { RecordLimits } from './record-limits.ts';

/** etcd removed that revision's history ("mvcc: required revision has been compacted"). */
export const COMPACTED = 'compacted';

function isCompacted(e: unknown): boolean {
  return /compacted/i.test((e as Error).message);
}

export class ZoneHistory {
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly zones: string[];
  private readonly limits: RecordLimits | undefined;

  constructor(options: { client: Etcd3; prefix: string; zones: string[]; limits?: RecordLimits }) {
    this.client = options.client;
    this.prefix = options.prefix;
    this.zones = options.zones;
    this.limits = options.limits;
  }

  /** The zone apex's key; its records are that key and the keys below it. */
  private apexKey(zone: string): string {
    return zone === '.' ? this.prefix : `${this.prefix}/${zone.slice(0, -1).split('.').reverse().join('/')}`;
  }

  /** A copy of the zone's keys (and every zone below it) at `revision`, or COMPACTED. */
  async indexAt(zone: string, revision: number): Promise<RecordIndex | typeof COMPACTED> {
    const apex = this.apexKey(zone);
    try {
      const [own, below] = await Promise.all([
        this.client.get(apex).revision(revision).exec(),
        this.client.getAll().prefix(`${apex}/`).revision(revision).exec(),
      ]);
      const kvs = [...own.kvs, ...below.kvs].map((kv) => ({
        key: kv.key.toString(),
        value: kv.value.toString(),
        modRevision: Number(kv.mod_revision),
      }));
      return RecordIndex.fromSnapshot(this.prefix, this.zones, kvs, revision, this.limits);
    } catch (e) {
      if (isCompacted(e)) return COMPACTED;
      throw e;
    }
  }

  /** How many keys the zone (and every zone below it) held at `revision`, or COMPACTED. */
  async countAt(zone: string, revision: number): Promise<number | typeof COMPACTED> {
    const apex = this.apexKey(zone);
    try {
      const [own, below] = await Promise.all([
        this.client.get(apex).revision(revision).exec(),
        this.client.getAll().prefix(`${apex}/`).revision(revision).count(),
      ]);
      return own.kvs.length + below;
    } catch (e) {
      if (isCompacted(e)) return COMPACTED;
      throw e;
    }
  }
}
