// The GitHub workflows, linted here since nothing here can run them: actionlint (syntax, expressions,
// permissions, action inputs, runner labels) with shellcheck on every `run:` script. Both come from
// scripts/setup-test-env.sh (actionlint through the Go module proxy into .cache/bin, shellcheck
// from Debian). A deliberately broken workflow proves the linter reports what it should.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../support/temp-dir.ts';
import { repoRoot } from '../support/tools.ts';

const run = promisify(execFile);
const workflowsDir = join(repoRoot, '.github', 'workflows');
const workflows = readdirSync(workflowsDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => join(workflowsDir, f));

function executable(path: string): string {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    throw new Error(`${path} is not installed: run "npm run setup" (scripts/setup-test-env.sh)`);
  }
}

const actionlint = () => executable(join(repoRoot, '.cache', 'bin', 'actionlint'));
const shellcheck = () => executable('/usr/bin/shellcheck');

interface Finding {
  message: string;
  filepath: string;
  line: number;
  kind: string;
}

/** actionlint's findings for the files, as JSON (it exits 1 when there are any). */
async function lint(files: string[], cwd: string): Promise<Finding[]> {
  const args = ['-no-color', '-shellcheck', shellcheck(), '-format', '{{json .}}', ...files];
  const { stdout } = await run(actionlint(), args, { cwd, timeout: 60_000 }).catch(
    (e: { code?: number; stdout?: string; stderr?: string; message: string }) => {
      if (e.code === 1 && e.stdout) return { stdout: e.stdout };
      throw new Error(`actionlint failed: ${e.message}\n${e.stderr ?? ''}`);
    },
  );
  return JSON.parse(stdout || '[]') as Finding[];
}

test('the workflows pass actionlint and shellcheck', async () => {
  assert.ok(workflows.length > 0, 'there are workflows to lint');
  const findings = await lint(workflows, repoRoot);
  assert.deepEqual(
    findings.map((f) => `${f.filepath}:${f.line}: ${f.message} [${f.kind}]`),
    [],
  );
});

test('a broken workflow fails the lint: expression, shell and permission mistakes are reported', async () => {
  const dir = tempDir('actionlint');
  mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
  const broken = join(dir, '.github', 'workflows', 'broken.yml');
  writeFileSync(
    broken,
    [
      'on: push',
      'permissions:',
      '  id-tokens: write', // a permission that does not exist
      'jobs:',
      '  build:',
      '    runs-on: ubuntu-24.04',
      '    steps:',
      '      - run: echo ${{ steps.nope.outputs.digest }}', // no step "nope"
      '      - run: cosign sign $IMAGE@$DIGEST', // unquoted: shellcheck SC2086
      '',
    ].join('\n'),
  );
  const kinds = new Set((await lint([broken], dir)).map((f) => f.kind));
  for (const kind of ['permissions', 'expression', 'shellcheck']) assert.ok(kinds.has(kind), `reports ${kind}`);
});

test('every action is pinned by a full commit SHA, with its version in a comment', () => {
  for (const file of workflows) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const uses = /^\s*-?\s*uses:\s*(\S+)(.*)$/.exec(line);
      if (!uses || uses[1]!.startsWith('./')) continue;
      assert.match(uses[1]!, /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/, `${file}: ${line.trim()}`);
      assert.match(uses[2]!, /^\s*# v\d+(\.\d+)*$/, `${file}: ${line.trim()} names its version`);
    }
  }
});
