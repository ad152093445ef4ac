// The construct library stays free of the runtime: following every import from src/constructs,
// it reaches only pure modules of src/runtime (config types and their validation, the DNS-name
// rules), never the runtime's I/O dependencies. A synth must not load an etcd or DNS client.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { typeScriptFilesBelow } from '../support/module-imports.ts';
import { repoRoot } from '../support/tools.ts';

const FORBIDDEN = /^(etcd3|dns2|@kubernetes\/client-node|node:(dgram|http|https|cluster|child_process))$/;

/** What a file loads at run time: type-only imports are erased and load nothing. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)\b[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
}

test('src/constructs reaches no runtime I/O dependency through any import', () => {
  const constructs = join(repoRoot, 'src', 'constructs');
  // Every file in every folder below, not only those an import reaches.
  const pending = typeScriptFilesBelow(constructs);
  const seen = new Set<string>();
  const violations: string[] = [];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      else if (FORBIDDEN.test(specifier)) violations.push(`${relative(repoRoot, file)} imports ${specifier}`);
    }
  }
  assert.ok(seen.size > 10, `followed the library's imports (${seen.size} files)`);
  assert.deepEqual(violations, []);
});
