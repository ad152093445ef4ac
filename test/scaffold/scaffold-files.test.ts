// What `etcdns init` writes, as a pure function of its options (the installed-package test runs it for real).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ENVIRONMENT_NAME,
  SCAFFOLD_DEFAULTS,
  scaffoldFiles,
  type ScaffoldOptions,
} from '../../src/scaffold/scaffold-files.ts';

const options = (environments: readonly string[]): ScaffoldOptions => ({
  name: 'dns-gitops',
  etcdnsSpec: '^1.2.3',
  versions: {
    cdk8s: '^2',
    'cdk8s-plus-27': '^2',
    constructs: '^10',
    tsx: '^4',
    typescript: '^5',
    '@types/node': '^24',
  },
  repoUrl: SCAFFOLD_DEFAULTS.repoUrl,
  environments,
});

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
  const files = [...scaffoldFiles(options(['dev', 'pre-prod'])).keys()].sort();
  assert.deepEqual(files, [
    '.gitignore',
    'README.md',
    'cdk8s.yaml',
    'environments/dev.ts',
    'environments/index.ts',
    'environments/pre-prod.ts',
    'environments/shared.ts',
    'gitops/argocd/dev.yaml',
    'gitops/argocd/pre-prod.yaml',
    'gitops/flux/dev.yaml',
    'gitops/flux/pre-prod.yaml',
    'gitops/flux/repository.yaml',
    'main.ts',
    'package.json',
    'tsconfig.json',
  ]);
});

test('an environment without an example of its own starts as a copy of dev under its name', () => {
  const files = scaffoldFiles(options(['pre-prod']));
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
  const pkg = JSON.parse(scaffoldFiles(options(['dev'])).get('package.json')!) as {
    dependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  assert.deepEqual(pkg.dependencies, { cdk8s: '^2', 'cdk8s-plus-27': '^2', constructs: '^10', etcdns: '^1.2.3' });
  assert.equal(pkg.scripts.synth, 'tsx main.ts');
});
