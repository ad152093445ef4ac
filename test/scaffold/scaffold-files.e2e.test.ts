// What `etcdns init` writes, as a pure function of its options (the installed-package test runs it
// for real, test/cluster/flux.cluster.ts has Flux apply it); its CI workflow linted by the real
// actionlint and shellcheck (scripts/setup-test-env.sh).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  ACTION_PINS,
  ENVIRONMENT_NAME,
  GITOPS_ENGINES,
  GROUPED_PACKAGES,
  SCAFFOLD_DEFAULTS,
  scaffoldFiles,
} from '../../src/scaffold/scaffold-files.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin, repoRoot } from '../support/tools.ts';
import { ETCDNS_SPEC, scaffoldOptions } from './scaffold-options.ts';

describe('environment names (folders, files, Argo CD and Flux object names)', () => {
  for (const [name, ok] of [
    ['dev', true],
    ['pre-prod', true],
    ['eu2', true],
    ['Prod', false],
    ['2prod', false],
    ['pre--prod', false],
    ['prod-', false],
    ['pre_prod', false],
    ['../x', false],
  ] as const) {
    test(`"${name}" is ${ok ? 'accepted' : 'refused'}`, () => assert.equal(ENVIRONMENT_NAME.test(name), ok));
  }
});

test('one environment file, one Argo CD Application and one Flux Kustomization per environment', () => {
  const files = [...scaffoldFiles(scaffoldOptions(['dev', 'pre-prod'])).keys()].sort();
  assert.deepEqual(files, [
    '.github/workflows/ci.yml',
    '.gitignore',
    'README.md',
    'cdk8s.yaml',
    'environments/dev.ts',
    'environments/index.ts',
    'environments/pre-prod.ts',
    'environments/shared.ts',
    'gitops/argocd/argocd-cm.yaml',
    'gitops/argocd/dev.yaml',
    'gitops/argocd/pre-prod.yaml',
    'gitops/flux/dev.yaml',
    'gitops/flux/pre-prod.yaml',
    'gitops/flux/repository.yaml',
    'main.ts',
    'package.json',
    'renovate.json',
    'tsconfig.json',
  ]);
});

describe('--gitops chooses whose examples gitops/ holds', () => {
  for (const [engines, folders] of [
    ['flux', ['gitops/flux']],
    ['argocd', ['gitops/argocd']],
    ['both', ['gitops/argocd', 'gitops/flux']],
  ] as const) {
    test(`${engines}: ${folders.join(' and ')}`, () => {
      const files = [...scaffoldFiles(scaffoldOptions(['dev'], engines)).keys()];
      const gitops = [...new Set(files.filter((f) => f.startsWith('gitops/')).map((f) => f.replace(/\/[^/]+$/, '')))];
      assert.deepEqual(gitops.sort(), [...folders]);
      assert.match(
        scaffoldFiles(scaffoldOptions(['dev'], engines)).get('README.md')!,
        engines === 'argocd' ? /Argo CD/ : /Flux/,
      );
    });
  }
  test('the default is both', () => assert.equal(SCAFFOLD_DEFAULTS.gitops, 'both'));
  test('etcdns init refuses another value, writing nothing', () => {
    const dir = join(tempDir('init-gitops'), 'repo');
    const r = spawnSync(nodeBin, [etcdnsBin, 'init', dir, '--gitops', 'jenkins'], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `etcdns init: --gitops "jenkins": must be one of ${GITOPS_ENGINES.join(', ')}\n`);
    assert.equal(existsSync(dir), false, 'nothing written');
  });
});

describe("the repository's CI workflow", () => {
  const workflow = scaffoldFiles(scaffoldOptions(['dev'])).get('.github/workflows/ci.yml')!;

  test('passes the real actionlint with shellcheck on its scripts', async () => {
    const dir = tempDir('scaffold-ci');
    mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
    const file = join(dir, '.github', 'workflows', 'ci.yml');
    writeFileSync(file, workflow);
    const lint = join(repoRoot, '.cache', 'bin', 'actionlint');
    // actionlint exits 1 with its findings on stdout; anything else (not installed, crashed) throws.
    const r = await promisify(execFile)(lint, ['-no-color', '-shellcheck', '/usr/bin/shellcheck', file], {
      cwd: dir,
    }).catch((e: { code?: number | string; stdout?: string; message: string }) => {
      if (e.code === 1 && e.stdout) return { stdout: e.stdout };
      throw new Error(`actionlint did not run (npm run setup installs it): ${e.message}`);
    });
    assert.equal(r.stdout, '', 'actionlint findings');
  });

  test('runs typecheck and synth, then fails when dist/ differs from what is committed', () => {
    const runs = [...workflow.matchAll(/^\s+- run: (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(runs, ['npm ci --no-audit --no-fund', 'npm run typecheck', 'npm run synth']);
    assert.match(workflow, /git add --intent-to-add dist\n\s+if ! git diff --quiet -- dist; then/);
  });

  test("pins the same actions as etcdns's own release workflow", () => {
    const release = readFileSync(join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8');
    for (const pin of Object.values(ACTION_PINS)) assert.ok(release.includes(`uses: ${pin}`), pin);
  });
});

test('renovate.json groups etcdns with every peer dependency etcdns declares', () => {
  const own = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };
  const renovate = JSON.parse(scaffoldFiles(scaffoldOptions(['dev'])).get('renovate.json')!) as {
    packageRules: { matchPackageNames: string[]; groupName: string }[];
  };
  const grouped = renovate.packageRules.find((r) => r.matchPackageNames.includes('etcdns'));
  assert.ok(grouped?.groupName);
  assert.deepEqual([...grouped.matchPackageNames].sort(), ['etcdns', ...Object.keys(own.peerDependencies)].sort());
  assert.deepEqual([...GROUPED_PACKAGES].sort(), [...grouped.matchPackageNames].sort());
});

test('an environment without an example of its own starts as a copy of dev under its name', () => {
  const files = scaffoldFiles(scaffoldOptions(['pre-prod']));
  const env = files.get('environments/pre-prod.ts')!;
  assert.match(env, /^export const preProd: DnsStackProps = \{$/m);
  assert.match(env, /'pre-prod\.example\.org'/);
  assert.match(env, /ownerId: 'etcdns-pre-prod'/);
  assert.match(
    files.get('environments/index.ts')!,
    /import \{ preProd \} from '\.\/pre-prod\.ts';[\s\S]*\{ 'pre-prod': preProd \}/,
  );
});

test('package.json depends on the given etcdns spec and the peer ranges, and synthesizes with tsx', () => {
  const pkg = JSON.parse(scaffoldFiles(scaffoldOptions(['dev'])).get('package.json')!) as {
    dependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  assert.deepEqual(pkg.dependencies, { cdk8s: '^2', 'cdk8s-plus-27': '^2', constructs: '^10', etcdns: ETCDNS_SPEC });
  assert.equal(pkg.scripts.synth, 'tsx main.ts');
});
