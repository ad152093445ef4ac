// docs/layout.md stays true to the tree: every path its Layout table names exists (issue 33
// point 6: the README's old table still placed the SkyDNS model in a folder it had left).
// One test per path.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { markdownSection } from '../support/markdown-section.ts';
import { repoRoot } from '../support/tools.ts';

/** The paths in the first column of the table under "## Layout". */
function layoutPaths(): string[] {
  const rows = markdownSection('docs/layout.md', 'Layout')
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

const paths = layoutPaths();

describe('every path docs/layout.md names exists', () => {
  test('the table names the top folders', () => {
    for (const top of ['src/constructs/', 'src/runtime/', 'test/support/', 'scripts/build.ts'])
      assert.ok(
        paths.some((p) => p.startsWith(top)),
        top,
      );
  });
  for (const path of paths)
    test(path, () => {
      assert.ok(existsSync(join(repoRoot, path)), `${path} does not exist`);
    });
});
