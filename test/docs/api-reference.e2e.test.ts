// docs/api/ is the API reference typedoc generates from the constructs' TSDoc (typedoc.json,
// `npm run docs:api`). It fails when the committed pages are stale: typedoc writes the reference
// again into a temporary directory, and every page must be there, and be the same, in both.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, describe, test } from 'node:test';
import { tempDir } from '../support/temp-dir.ts';
import { repoRoot } from '../support/tools.ts';

const committed = join(repoRoot, 'docs', 'api');
let generated: string;

/** Every file under `dir`, relative to it, sorted. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

const committedFiles = files(committed);
const regenerate = 'npm run docs:api';

before(() => {
  generated = tempDir('api-reference');
  const typedoc = join(repoRoot, 'node_modules', 'typedoc', 'bin', 'typedoc');
  const r = spawnSync(process.execPath, [typedoc, '--out', generated, '--logLevel', 'Error'], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(r.status, 0, `typedoc failed:\n${r.stdout}${r.stderr}`);
});

describe(`docs/api/ is what typedoc generates now (else: ${regenerate})`, () => {
  test('the reference has the stack and its props', () => {
    for (const page of ['README.md', 'classes/DnsStack.md', 'interfaces/DnsStackProps.md'])
      assert.ok(committedFiles.includes(page), page);
  });
  test('the same pages', () => {
    assert.deepEqual(committedFiles, files(generated));
  });
  for (const page of committedFiles)
    test(page, () => {
      assert.equal(
        readFileSync(join(committed, page), 'utf8'),
        readFileSync(join(generated, page), 'utf8'),
        `docs/api/${page} is stale: ${regenerate}`,
      );
    });
});
