// One full garbage collection, on purpose, right after a full load: the DNS server's copy of the
// records (dns-server/store/record-store.ts) and the controller's first full sync after its etcd copy
// was read (controller/controller.ts). Nearly all a load allocates survives the young
// generation's collections (it is the copy), so its passing garbage (gRPC pages, parsed JSON) is
// promoted with it, and after a reload the replaced copy is garbage too. V8 collects the old
// generation only when it grows further: an idle DNS server never does (100,000 records kept
// about 25 MiB of garbage), and the controller did so later, while it propagated changes. It is
// V8's "last resort" collection (repeated until nothing more is freed, compacting, and handing
// emptied pages back to the system): a plain full collection freed the garbage but left the
// pages mapped, 177 MiB of RSS at 100,000 records against 133. The pause is once per full load:
// in the DNS server about 0.2 s per 100,000 records, in the controller 0.1-0.25 s at 10,000
// Services and 0.8-1.2 s at 50,000.
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's gc(): with options, the kind of collection (v8/src/extensions/gc-extension.cc). */
type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'regular' | 'last-resort' }) => void;

let gc: Gc | undefined;

/** Runs a full collection; returns how long it took, ms. */
export function collectGarbage(): number {
  if (!gc) {
    // The documented way to reach gc() without exposing it to every module as a global.
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
    v8.setFlagsFromString('--no-expose-gc');
  }
  const started = performance.now();
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return performance.now() - started;
}
