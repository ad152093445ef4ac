// The controller's memory budget (< 200 MiB at 10,000 Services, bench:controller) rests on what
// it loads: @kubernetes/client-node's generated API client alone costs ~80 MiB on import, so the
// controller talks to the API server through its own small client and uses client-node's types
// only. loadedPackages() follows the real module loader, not the source text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadedPackages } from '../../support/loaded-packages.ts';

test('the controller loads neither @kubernetes/client-node nor undici at run time', () => {
  const packages = loadedPackages(`
await import('./src/runtime/controller/controller-process.ts');
await import('./src/runtime/controller/controller-command.ts');
`);
  const out = packages.join(', ');
  assert.ok(packages.includes('etcd3'), `the probe sees packages: ${out}`);
  assert.ok(packages.includes('js-yaml'), `the probe sees packages: ${out}`);
  assert.ok(!packages.includes('@kubernetes/client-node'), out);
  assert.ok(!packages.includes('undici'), out);
});
