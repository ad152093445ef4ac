// A zone's keys as etcd held them at an earlier revision (etcd keeps every revision until it is
// compacted): what IXFR diffs against, and what checks a freshly loaded copy's SOA serial.
import type { Etcd3 } from 'etcd3';
import { nameToKey } from '../../../skydns/skydns-key.ts';
import { RecordIndex } from './record-index.ts';
import type { RecordLimits } from './record-limits.ts';

/** etcd removed that revision's history ("mvcc: required revision has been compacted"). */
export const COMPACTED = 'compacted';

/** A read of an earlier revision, or COMPACTED when etcd no longer has it. */
async function orCompacted<T>(read: Promise<T>): Promise<T | typeof COMPACTED> {
  try {
    return await read;
  } catch (e) {
    if (/compacted/i.test((e as Error).message)) return COMPACTED;
    throw e;
  }
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

  /** A copy of the zone's keys (and every zone below it) at `revision`, or COMPACTED. */
  indexAt(zone: string, revision: number): Promise<RecordIndex | typeof COMPACTED> {
    const apex = nameToKey(zone, this.prefix);
    return orCompacted(
      Promise.all([
        this.client.get(apex).revision(revision).exec(),
        this.client.getAll().prefix(`${apex}/`).revision(revision).exec(),
      ]).then(([own, below]) => {
        const kvs = [...own.kvs, ...below.kvs].map((kv) => ({
          key: kv.key.toString(),
          value: kv.value.toString(),
          modRevision: Number(kv.mod_revision),
        }));
        return RecordIndex.fromSnapshot(this.prefix, this.zones, kvs, revision, this.limits);
      }),
    );
  }

  /** How many keys the zone (and every zone below it) held at `revision`, or COMPACTED. */
  countAt(zone: string, revision: number): Promise<number | typeof COMPACTED> {
    const apex = nameToKey(zone, this.prefix);
    return orCompacted(
      Promise.all([
        this.client.get(apex).revision(revision).exec(),
        this.client.getAll().prefix(`${apex}/`).revision(revision).count(),
      ]).then(([own, below]) => own.kvs.length + below),
    );
  }
}
