// One full garbage collection, on purpose, right after a full load of the copy. Nearly all a load
// allocates survives the young generation's collections (it is the copy), so its passing garbage
// (gRPC pages, parsed JSON) is promoted with it, and after a resync the replaced copy is garbage
// too. V8 collects the old generation only when it grows further, which an idle server never does:
// 100,000 records kept about 25 MiB of garbage. The collection is a pause of tens of milliseconds
// per 100,000 records, once per full load.
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/** Runs a full collection; returns how long it took, ms. */
export function collectGarbage(): number {
  if (!gc) {
    // The documented way to reach gc() without exposing it to every module as a global.
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
  }
  const started = performance.now();
  gc();
  return performance.now() - started;
}
