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
  GITOPS_ENGINES,
  GROUPED_PACKAGES,
  SCAFFOLD_DEFAULTS,
  scaffoldFiles,
} from '../../src/scaffold/scaffold-files.ts';
import { ENVIRONMENT_NAME } from '../../src/scaffold/environment-name.ts';
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

describe('--hub and --spoke: a hub environment, one spoke environment per cluster, one clusters file', () => {
  const files = scaffoldFiles({ ...scaffoldOptions([]), hub: { name: 'hub', spokes: ['dc1', 'dc-2'] } });

  test('the files: clusters.ts, the hub, spoke-<cluster> each, and GitOps examples for every folder', () => {
    const written = [...files.keys()].filter((f) => /^(environments|gitops)\//.test(f)).sort();
    assert.deepEqual(written, [
      'environments/clusters.ts',
      'environments/hub.ts',
      'environments/index.ts',
      'environments/shared.ts',
      'environments/spoke-dc-2.ts',
      'environments/spoke-dc1.ts',
      'gitops/argocd/argocd-cm.yaml',
      'gitops/argocd/hub.yaml',
      'gitops/argocd/spoke-dc-2.yaml',
      'gitops/argocd/spoke-dc1.yaml',
      'gitops/flux/hub.yaml',
      'gitops/flux/repository.yaml',
      'gitops/flux/spoke-dc-2.yaml',
      'gitops/flux/spoke-dc1.yaml',
    ]);
  });

  test('index.ts names the hub a DnsStack environment and each spoke a SpokeStack one', () => {
    const index = files.get('environments/index.ts')!;
    assert.match(index, /^export const environments: Record<string, DnsStackProps> = \{ hub \};$/m);
    assert.match(
      index,
      /^export const spokes: Record<string, SpokeStackProps> = \{ 'spoke-dc1': spokeDc1, 'spoke-dc-2': spokeDc2 \};$/m,
    );
  });

  test('each cluster once in clusters.ts, its placeholders marked EXAMPLE; each spoke reads its own', () => {
    const clusters = files.get('environments/clusters.ts')!;
    for (const [cluster, key, site] of [
      ['dc1', 'dc1', '10.1'],
      ['dc-2', "'dc-2'", '10.2'],
    ] as const) {
      assert.match(clusters, new RegExp(`\\n  ${key}: \\{\\n    name: '${cluster}',\\n`));
      for (const field of ['suffixes', 'siteCidrs', 'etcdClientCidrs'])
        assert.match(clusters, new RegExp(`// EXAMPLE: [^\\n]*\\n(?:    //[^\\n]*\\n)?    ${field}: \\['`), field);
      assert.ok(clusters.includes(`siteCidrs: ['${site}.0.0/16']`), cluster);
    }
    assert.ok(files.get('environments/spoke-dc1.ts')!.includes('\n  cluster: clusters.dc1,\n'));
    assert.ok(files.get('environments/spoke-dc-2.ts')!.includes("\n  cluster: clusters['dc-2'],\n"));
    assert.ok(files.get('environments/hub.ts')!.includes('\n  clusters: Object.values(clusters),\n'));
  });

  test('without --env, no dev or prod beside the hub', () => {
    assert.ok(!files.has('environments/dev.ts'));
    const withEnv = scaffoldFiles({ ...scaffoldOptions(['dev']), hub: { name: 'hub', spokes: ['dc1'] } });
    assert.ok(withEnv.has('environments/dev.ts') && withEnv.has('gitops/flux/dev.yaml'));
  });
});

describe('etcdns init refuses a bad hub or spoke, naming the flag and writing nothing', () => {
  for (const [args, message] of [
    [['--spoke', 'dc1'], '--spoke needs --hub NAME: the hub it writes to'],
    [['--hub', 'hub'], '--hub "hub" needs at least one --spoke CLUSTER'],
    [
      ['--hub', 'hub', '--spoke', 'DC1'],
      '--spoke "DC1": a cluster name is a DNS label of at most 56 characters (lower-case letters, digits, single hyphens)',
    ],
    [
      ['--hub', 'hub', '--spoke', 'x'.repeat(57)],
      `--spoke "${'x'.repeat(57)}": a cluster name is a DNS label of at most 56 characters (lower-case letters, digits, single hyphens)`,
    ],
    [
      ['--hub', 'Hub', '--spoke', 'dc1'],
      '--hub "Hub": must be lower-case letters, digits and single hyphens, starting with a letter',
    ],
    [['--hub', 'clusters', '--spoke', 'dc1'], `--hub "clusters": the scaffold's own file has that name`],
    [
      ['--hub', 'hub', '--spoke', 'dc1', '--spoke', 'dc1'],
      '--env, --hub and --spoke: each environment once (spoke-CLUSTER for a spoke)',
    ],
  ] as const) {
    test(args.join(' ').slice(0, 60), () => {
      const dir = join(tempDir('init-hub'), 'repo');
      const r = spawnSync(nodeBin, [etcdnsBin, 'init', dir, ...args], { encoding: 'utf8' });
      assert.equal(r.status, 2);
      assert.equal(r.stderr, `etcdns init: ${message}\n`);
      assert.equal(existsSync(dir), false, 'nothing written');
    });
  }
});
