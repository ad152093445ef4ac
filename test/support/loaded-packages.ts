// Which npm packages a piece of code really loads: the module loader's own record (a resolve
// hook), not the source text, so an `import { type X }` that still loads a package is caught too.
import { execFileSync } from 'node:child_process';
import { nodeBin, repoRoot } from './tools.ts';

/** Runs `code` (ESM, relative imports from the repository root) in a fresh Node; the packages it resolved, sorted. */
export function loadedPackages(code: string): string[] {
  const probe = `
import { registerHooks } from 'node:module';
const packages = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(r.url);
    if (m) packages.add(m[1]);
    return r;
  },
});
${code}
console.log(JSON.stringify([...packages].sort()));
`;
  const out = execFileSync(nodeBin, ['--input-type=module', '-e', probe], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 20_000,
  });
  // The last line is the probe's; the code may have printed before it.
  return JSON.parse(out.trimEnd().split('\n').pop()!) as string[];
}
