// The cdk8s app behind `npm run synth [-- [--out DIR] [env ...]]`: synthesizes each example
// environment (all by default) into DIR/<env>/ (default $CDK8S_OUTDIR, which `cdk8s synth` sets,
// else dist/), replacing only the files synth generated, and reports the time each took; and
// the Grafana dashboard the package ships, dashboards/etcdns.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dashboardFile } from './constructs/monitoring/dashboard.ts';
import { STACK_DEFAULTS } from './constructs/dns-stack.ts';
import { writeManifests } from './constructs/output/manifest-writer.ts';
import { ConfigError } from './config/config-error.ts';
import { ENVIRONMENT_FILES } from './environments/index.ts';

const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
const out = resolve(values.out ?? process.env.CDK8S_OUTDIR ?? join(import.meta.dirname, '..', 'dist'));
const known = Object.keys(ENVIRONMENT_FILES).sort();
const names = positionals.length > 0 ? positionals : known;
const unknown = names.filter((n) => !(n in ENVIRONMENT_FILES));
if (unknown.length > 0) {
  process.stderr.write(`synth: unknown environment(s) ${unknown.join(', ')}; known: ${known.join(', ')}\n`);
  process.exit(2);
}

const started = performance.now();
for (const name of names) {
  const t0 = performance.now();
  try {
    const result = writeManifests(join(out, name), ENVIRONMENT_FILES[name]!());
    const ms = (performance.now() - t0).toFixed(0);
    process.stdout.write(
      `${relative(process.cwd(), join(out, name)) || '.'}/: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed (${ms} ms)\n`,
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`synth: environment "${name}": ${error.message}\n`);
    process.exit(1);
  }
}
// The dashboard for import by hand (shipped in the package), for the default stack name.
const dashboard = join(import.meta.dirname, '..', 'dashboards', 'etcdns.json');
const text = dashboardFile(STACK_DEFAULTS.name);
const same = existsSync(dashboard) && readFileSync(dashboard, 'utf8') === text;
if (!same) {
  mkdirSync(dirname(dashboard), { recursive: true });
  writeFileSync(dashboard, text);
}
process.stdout.write(`${relative(process.cwd(), dashboard)}: ${same ? 'unchanged' : 'written'}\n`);
process.stdout.write(`synthesized ${names.length} environment(s) in ${(performance.now() - started).toFixed(0)} ms\n`);
