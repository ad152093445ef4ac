// The etcd edge of UPDATE: the entries of the names an update touches, read at one revision, and
// its changes written in one transaction that holds only if none of those names changed since
// (a compare over each name's key and the keys below it), so two replicas, or a replica and the
// controller, never interleave on a name. Written entries live on a lease of their own.
import type { Etcd3 } from 'etcd3';
import { decodeEntry, encodeEntry } from '../../../skydns/skydns-entry.ts';
import { nameToKey } from '../../../skydns/skydns-key.ts';
import type { NameEntry, UpdateChanges } from './update-evaluation.ts';

/** What was read: each name's entries, and the revision they were read at. */
export interface NamesRead {
  revision: bigint;
  entries: Map<string, NameEntry[]>;
}

/** The range of keys below `key` ("key/" up to "key0": "0" follows "/"). */
function below(key: string): { key: Buffer; range_end: Buffer } {
  return { key: Buffer.from(`${key}/`), range_end: Buffer.from(`${key}0`) };
}

/** The entries of the name at `nameKey` among the keys at and below it: its own key, leaves directly below, dns/ns/ and dns/apex/ entries. */
export function entriesOfName(nameKey: string, kvs: readonly { key: string; value: string }[]): NameEntry[] {
  const keys = new Set(kvs.map((kv) => kv.key));
  const isLeaf = (key: string) => ![...keys].some((k) => k.startsWith(`${key}/`));
  const out: NameEntry[] = [];
  for (const { key, value } of kvs) {
    const rest = key === nameKey ? '' : key.slice(nameKey.length + 1);
    const nameServer = /^dns\/ns\/[^/]+$/.test(rest);
    const own = rest === '' || nameServer || /^dns\/apex\/[^/]+$/.test(rest) || (!rest.includes('/') && isLeaf(key));
    if (!own) continue;
    const decoded = decodeEntry(value);
    out.push({ key, entry: decoded.ok ? decoded.entry : undefined, nameServer });
  }
  return out;
}

export class UpdateStore {
  private readonly client: Etcd3;
  private readonly prefix: string;

  constructor(client: Etcd3, prefix: string) {
    this.client = client;
    this.prefix = prefix;
  }

  /** The entries of `names`, all read in one transaction (one revision). */
  async read(names: readonly string[]): Promise<NamesRead> {
    const keys = names.map((n) => nameToKey(n, this.prefix));
    const response = await this.client.kv.txn({
      success: keys.flatMap((key) => [{ request_range: { key: Buffer.from(key) } }, { request_range: below(key) }]),
    });
    const entries = new Map<string, NameEntry[]>();
    names.forEach((name, i) => {
      const kvs = [response.responses[2 * i]!, response.responses[2 * i + 1]!].flatMap((r) =>
        (r.response_range?.kvs ?? []).map((kv) => ({ key: kv.key.toString(), value: kv.value.toString() })),
      );
      entries.set(name, entriesOfName(keys[i]!, kvs));
    });
    return { revision: BigInt(response.header.revision), entries };
  }

  /**
   * Writes `changes` if none of `names` changed since `read` (false: they did, read again). The
   * written entries are attached to a new lease of `leaseSeconds`, not kept alive: they expire.
   */
  async write(
    names: readonly string[],
    read: NamesRead,
    changes: UpdateChanges,
    leaseSeconds: number,
  ): Promise<boolean> {
    if (changes.put.length === 0 && changes.delete.length === 0) return true;
    const lease =
      changes.put.length > 0 ? (await this.client.leaseClient.leaseGrant({ TTL: leaseSeconds })).ID : undefined;
    const unchangedSince = String(read.revision + 1n);
    const response = await this.client.kv.txn({
      compare: names.flatMap((name) => {
        const key = nameToKey(name, this.prefix);
        return [{ key: Buffer.from(key) }, below(key)].map((range) => ({
          ...range,
          target: 'Mod' as const,
          result: 'Less' as const,
          mod_revision: unchangedSince,
        }));
      }),
      success: [
        ...changes.put.map(({ key, entry }) => ({
          request_put: { key: Buffer.from(key), value: Buffer.from(encodeEntry(entry)), lease },
        })),
        ...changes.delete.map((key) => ({ request_delete_range: { key: Buffer.from(key) } })),
      ],
    });
    if (!response.succeeded && lease !== undefined) await this.client.leaseClient.leaseRevoke({ ID: lease });
    return response.succeeded;
  }
}
