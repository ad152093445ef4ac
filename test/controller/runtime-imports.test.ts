// The controller's memory budget (< 200 MiB at 10,000 Services, bench:controller) rests on what
// it loads: @kubernetes/client-node's generated API client alone costs ~80 MiB on import, so the
// controller talks to the API server through its own small client and uses client-node's types
// only. This follows the real module loader, not the source text, so an `import { type X }` that
// still loads the package is caught too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { nodeBin, repoRoot } from '../support/tools.ts';

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
await import('./src/runtime/controller/controller-process.ts');
await import('./src/runtime/controller/controller-command.ts');
console.log(JSON.stringify([...packages].sort()));
`;

test('the controller loads neither @kubernetes/client-node nor undici at run time', () => {
  const out = execFileSync(nodeBin, ['--input-type=module', '-e', probe], { cwd: repoRoot, encoding: 'utf8' });
  const packages = JSON.parse(out) as string[];
  assert.ok(packages.includes('etcd3'), `the probe sees packages: ${out}`);
  assert.ok(packages.includes('js-yaml'), `the probe sees packages: ${out}`);
  assert.ok(!packages.includes('@kubernetes/client-node'), out);
  assert.ok(!packages.includes('undici'), out);
});
