// Which code an input ran, from V8's own block coverage (the inspector protocol's precise
// coverage, as `node --experimental-test-coverage` and c8 use it): a feature is one block of a
// function in scope with its hit count in a power-of-two bucket (libFuzzer's trick, so running a
// loop more often counts as new behaviour once per bucket, not once per count).
//
// V8 reports a block only where its count differs from the enclosing range's: a block that ran
// exactly as often as its function is folded into it. So every block ever reported is kept in a
// catalog, and its count in a take is that of the innermost reported range holding it.
import { Session } from 'node:inspector';

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
}
interface ScriptCoverage {
  url: string;
  functions: { ranges: Range[] }[];
}

/**
 * One inspector session per process, started once and never stopped: V8 drops the block
 * counters of functions compiled under an earlier precise-coverage session, so a second start
 * would see whole functions only. Start it before the code under test is loaded or first run.
 */
let session: Session | undefined;

function post(method: string, params: object = {}): unknown {
  if (!session) {
    session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  }
  // A session on the main thread answers synchronously: the callback has run when post returns.
  let answer: unknown;
  let failure: Error | null = null;
  session.post(method, params, (err, res) => {
    failure = err;
    answer = res;
  });
  if (failure) throw failure;
  return answer;
}

export class BlockCoverage {
  private readonly scope: string;

  /** `scope`: only scripts whose URL contains it count (the product's own code). */
  constructor(scope: string) {
    this.scope = scope;
    this.take(); // what ran before this run is not its coverage
  }

  /** Blocks ever reported, by function (script URL and the function's start offset). */
  private readonly catalog = new Map<string, Map<string, [number, number]>>();

  /** The features hit since the last call (V8 resets its counters on each take). */
  take(): string[] {
    const { result } = post('Profiler.takePreciseCoverage') as { result: ScriptCoverage[] };
    const features: string[] = [];
    for (const script of result) {
      if (!script.url.includes(this.scope)) continue;
      for (const fn of script.functions) {
        const [whole, ...inner] = fn.ranges;
        if (!whole || whole.count === 0) continue;
        const key = `${script.url}:${whole.startOffset}`;
        let blocks = this.catalog.get(key);
        if (!blocks) this.catalog.set(key, (blocks = new Map()));
        for (const r of inner) blocks.set(`${r.startOffset}-${r.endOffset}`, [r.startOffset, r.endOffset]);
        features.push(`${key}:${bucket(whole.count)}`);
        for (const [id, [start, end]] of blocks) {
          // Ranges come outermost first, so the last one holding the block is the innermost.
          let count = whole.count;
          for (const r of inner) if (r.startOffset <= start && end <= r.endOffset) count = r.count;
          if (count > 0) features.push(`${key}:${id}:${bucket(count)}`);
        }
      }
    }
    return features;
  }
}

function bucket(count: number): number {
  return count >= 128 ? 8 : 32 - Math.clz32(count);
}
