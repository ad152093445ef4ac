// The cdk8s app behind `npm run synth [env ...]`: synthesizes each example environment (all by
// default) into dist/<env>/, replacing only the files synth generated, and reports the time.
import { join } from 'node:path';
import { writeManifests } from './constructs/manifest-writer.ts';
import { synthStack } from './constructs/synth-stack.ts';
import { ConfigError } from './constructs/validate.ts';
import { ENVIRONMENTS } from './environments/index.ts';

const root = join(import.meta.dirname, '..');
const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(ENVIRONMENTS).sort();
const unknown = names.filter((n) => !(n in ENVIRONMENTS));
if (unknown.length > 0) {
  process.stderr.write(
    `synth: unknown environment(s) ${unknown.join(', ')}; known: ${Object.keys(ENVIRONMENTS).sort().join(', ')}\n`,
  );
  process.exit(2);
}

const started = performance.now();
for (const name of names) {
  const t0 = performance.now();
  try {
    const result = writeManifests(join(root, 'dist', name), synthStack(ENVIRONMENTS[name]!));
    const ms = (performance.now() - t0).toFixed(0);
    process.stdout.write(
      `dist/${name}/: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed (${ms} ms)\n`,
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`synth: environment "${name}": ${error.message}\n`);
    process.exit(1);
  }
}
process.stdout.write(`synthesized ${names.length} environment(s) in ${(performance.now() - started).toFixed(0)} ms\n`);
