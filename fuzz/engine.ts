// A coverage-guided fuzzing loop: run every corpus input, then mutate inputs and keep those that
// reach code no earlier input did (BlockCoverage), until the time or execution budget is spent or
// the target throws. A target throws only when the code under test broke its contract (an
// unexpected exception, a result that violates an invariant); the documented failures of bad
// input (an error result, a ConfigError) are the target's own business.
//
// Why not Jazzer.js (the well-kept libFuzzer binding for Node): its native part, the only one
// published for Linux x64, needs glibc 2.38 and this project's machines run Debian 12 (2.36);
// its older releases download their binary from GitHub at install time. This loop uses V8's own
// coverage instead: fewer mutation strategies than libFuzzer, no comparison tracing, but no
// native code and no instrumentation of the sources.
import { BlockCoverage } from './coverage.ts';
import { mutate, Random } from './mutate.ts';

export interface FuzzTarget {
  name: string;
  /** Inputs longer than this are cut. */
  maxLength: number;
  /** Tokens the mutations insert (keywords, field names, delimiters). */
  dictionary?: readonly string[];
  /** Runs the code under test on one input; throws only when it broke its contract. */
  run(data: Buffer): void;
}

export interface FuzzOptions {
  seconds: number;
  /** Scripts whose URL contains this count for coverage. */
  scope?: string;
  maxExecutions?: number;
  seed: number;
  /** Called with each input that reached new code (to save it in the corpus). */
  onNewInput?: (data: Buffer) => void;
}

export interface FuzzResult {
  target: string;
  seed: number;
  executions: number;
  seconds: number;
  corpusSize: number;
  /** Distinct features (blocks by hit-count bucket) reached. */
  features: number;
  failure?: { input: Buffer; error: unknown };
}

export function fuzz(target: FuzzTarget, seeds: readonly Buffer[], o: FuzzOptions): FuzzResult {
  const coverage = new BlockCoverage(o.scope ?? '/src/');
  const rnd = new Random(o.seed);
  const dictionary = (target.dictionary ?? []).map((t) => Buffer.from(t, 'latin1'));
  const seen = new Set<string>();
  const corpus: Buffer[] = [];
  const started = performance.now();
  const deadline = started + o.seconds * 1000;
  let executions = 0;
  const result = (failure?: FuzzResult['failure']): FuzzResult => {
    return {
      target: target.name,
      seed: o.seed,
      executions,
      seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      corpusSize: corpus.length,
      features: seen.size,
      ...(failure ? { failure } : {}),
    };
  };
  /** Runs one input; true when it reached something new. */
  const runOne = (data: Buffer): boolean => {
    executions++;
    // Between two takes only the loop ran, which is outside the scope: no take before.
    target.run(data);
    let fresh = false;
    for (const f of coverage.take())
      if (!seen.has(f)) {
        seen.add(f);
        fresh = true;
      }
    return fresh;
  };

  const inputs = (seeds.length > 0 ? seeds : [Buffer.alloc(0)]).map((s) => s.subarray(0, target.maxLength));
  for (const data of inputs) {
    try {
      if (runOne(data) || corpus.length === 0) corpus.push(data);
    } catch (error) {
      return result({ input: data, error });
    }
  }
  while (performance.now() < deadline && executions < (o.maxExecutions ?? Infinity)) {
    const data = mutate(rnd.pick(corpus), rnd, corpus, dictionary, target.maxLength);
    try {
      if (runOne(data)) {
        corpus.push(data);
        o.onNewInput?.(data);
      }
    } catch (error) {
      return result({ input: data, error });
    }
  }
  return result();
}
