// Writes many key/value pairs into etcd quickly: transactions of 128 puts (etcd's default
// --max-txn-ops), a few in flight at a time.
import type { Etcd3 } from 'etcd3';

const OPS_PER_TXN = 128;
const IN_FLIGHT = 4;

export async function loadIntoEtcd(client: Etcd3, entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const batches: Array<ReadonlyArray<readonly [string, string]>> = [];
  for (let i = 0; i < entries.length; i += OPS_PER_TXN) batches.push(entries.slice(i, i + OPS_PER_TXN));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      // A compare that always holds (a key's version is never negative): the puts always apply.
      await client
        .if(batch[0]![0], 'Version', '>', -1)
        .then(...batch.map(([k, v]) => client.put(k).value(v)))
        .commit();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}
