// dist/ is committed: it must be exactly what a fresh synth of every example environment gives.
// Synthesizes into a temporary folder with the same writer `npm run synth` uses and compares.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { ENVIRONMENT_FILES } from '../../src/environments/index.ts';

const dist = join(import.meta.dirname, '../../dist');
const fresh = mkdtempSync(join(tmpdir(), 'etcdns-synth-'));
after(() => rmSync(fresh, { recursive: true, force: true }));

test('dist/ holds exactly the example environments', () => {
  assert.deepEqual(readdirSync(dist).sort(), Object.keys(ENVIRONMENT_FILES).sort());
});

for (const name of Object.keys(ENVIRONMENT_FILES).sort()) {
  test(`dist/${name}/ is identical to a fresh synth (run "npm run synth" after changing the code)`, () => {
    writeManifests(join(fresh, name), ENVIRONMENT_FILES[name]!());
    const expected = readdirSync(join(fresh, name)).sort();
    assert.deepEqual(readdirSync(join(dist, name)).sort(), expected, `files in dist/${name}/`);
    for (const file of expected)
      assert.equal(
        readFileSync(join(dist, name, file), 'utf8'),
        readFileSync(join(fresh, name, file), 'utf8'),
        `dist/${name}/${file} differs from a fresh synth`,
      );
  });
}

test('synth is byte-identical across runs', () => {
  for (const synth of Object.values(ENVIRONMENT_FILES)) assert.deepEqual(synth(), synth());
});
