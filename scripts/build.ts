// `npm run build` (also run by `npm pack`): compiles what the package ships into lib/.
//   lib/        ESM JavaScript of the library (with declarations) and of the `etcdns` command
//   lib/cjs/    the library entry again as CommonJS, for require() callers and CommonJS projects
// Inside the repository nothing needs building: Node runs the .ts sources directly.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const lib = join(root, 'lib');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(lib, { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.build-cli.json', 'tsconfig.build-cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit' });
}
// The nearest package.json says "module"; this one makes Node and TypeScript read lib/cjs as CommonJS.
writeFileSync(join(lib, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');

// tsc rewrites `./x.ts` to `./x.js` in JavaScript only; declarations keep `.ts`, which TypeScript
// before 5.0 (still pinned by some project templates) rejects. Declarations say `.js` like the code.
const relativeTs = /((?:from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]*)\.ts(['"])/g;
for (const entry of readdirSync(lib, { recursive: true, encoding: 'utf8' })) {
  if (!entry.endsWith('.d.ts')) continue;
  const file = join(lib, entry);
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(relativeTs, '$1.js$2');
  if (rewritten !== text) writeFileSync(file, rewritten);
}
