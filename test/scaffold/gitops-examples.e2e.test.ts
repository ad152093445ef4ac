// The GitOps objects users copy, checked against the engines' own CRD schemas on the real
// kube-apiserver (server-side dry run, unknown fields refused): the Argo CD Applications and the
// Flux GitRepository/Kustomizations `etcdns init` writes, and the examples of docs/gitops.md's
// "Deploy with Argo CD" and "Deploy with Flux". The CRDs come from the engines' modules
// (scripts/setup-test-env.sh, downloaded, not built: Argo CD v3.5.7's manifests/crds, Flux
// v1.9.6's config/crd/bases). The engines themselves apply the scaffold in the cluster check:
// test/cluster/flux.cluster.ts and test/cluster/argocd.cluster.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadAll } from 'js-yaml';
import { scaffoldFiles } from '../../src/scaffold/scaffold-files.ts';
import { markdownSection } from '../support/markdown-section.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll } from '../support/process.ts';
import { repoRoot } from '../support/tools.ts';
import { scaffoldOptions } from './scaffold-options.ts';

const cache = join(repoRoot, '.cache');
let kube: KubeHandle;

function kubectl(args: string[], input?: string): { status: number | null; out: string } {
  const r = spawnSync('kubectl', ['--kubeconfig', kube.kubeconfigFile, ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Server-side dry run with strict field validation: the CRD's schema decides. */
const dryRun = (yaml: string) =>
  kubectl(
    ['apply', '--server-side', '--dry-run=server', '--validate=strict', '--field-manager=etcdns-test', '-f', '-'],
    yaml,
  );

const ENGINE_GROUP = /^(argoproj\.io|[a-z]+\.toolkit\.fluxcd\.io)\//;

/** The YAML blocks of a docs/gitops.md section that hold Argo CD or Flux objects. */
function gitopsDocExamples(section: string): string[] {
  return [...markdownSection('docs/gitops.md', section).matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((y) => (loadAll(y) as { apiVersion?: string }[]).some((o) => o && ENGINE_GROUP.test(o.apiVersion ?? '')));
}

// With a hub and a spoke: their folders get the same Application and Kustomization.
const files = scaffoldFiles({ ...scaffoldOptions(['dev', 'prod', 'pre-prod']), hub: { name: 'hub', spokes: ['dc1'] } });

before(async () => {
  kube = await startKubeApiserver();
  const crdDirs = [
    join(cache, 'argocd-crds'),
    join(cache, 'flux-crds', 'source-controller'),
    join(cache, 'flux-crds', 'kustomize-controller'),
  ];
  const files = crdDirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(d, f)),
  );
  const applied = kubectl(['apply', '--server-side', ...files.flatMap((f) => ['-f', f])]);
  assert.equal(applied.status, 0, applied.out);
  const established = kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
  assert.equal(established.status, 0, established.out);
  for (const ns of ['argocd', 'flux-system']) assert.equal(kubectl(['create', 'namespace', ns]).status, 0);
});
after(stopAll);

describe('what etcdns init writes is valid for the engines', () => {
  const gitops = [...files].filter(([f]) => f.startsWith('gitops/'));
  test('there are Argo CD and Flux files', () => {
    assert.ok(gitops.some(([f]) => f.startsWith('gitops/argocd/')));
    assert.ok(gitops.some(([f]) => f.startsWith('gitops/flux/')));
  });
  for (const [file, yaml] of gitops)
    test(`${file} is accepted by its CRD's schema`, () => {
      const r = dryRun(yaml);
      assert.equal(r.status, 0, r.out);
      assert.match(r.out, /serverside-applied \(server dry run\)/);
    });
});

describe("docs/gitops.md's examples are valid for the engines", () => {
  for (const section of ['Deploy with Argo CD', 'Deploy with Flux'])
    test(`"${section}"`, () => {
      const examples = gitopsDocExamples(section);
      assert.ok(examples.length > 0, 'the section has an example');
      for (const yaml of examples) {
        const r = dryRun(yaml);
        assert.equal(r.status, 0, `${r.out}\n${yaml}`);
      }
    });
});

describe('the check refuses what the engines would refuse', () => {
  for (const [name, file, from, to, error] of [
    [
      'a misspelt field',
      'gitops/argocd/dev.yaml',
      'selfHeal: true',
      'selfheal: true',
      /automated\.selfheal: field not declared in schema/,
    ],
    ['a wrong type', 'gitops/flux/dev.yaml', 'prune: true', 'prune: "yes"', /spec\.prune: expected boolean/],
    ['a missing required field', 'gitops/flux/dev.yaml', '  prune: true\n', '', /spec\.prune: Required value/],
  ] as const)
    test(name, () => {
      const yaml = files.get(file)!;
      assert.ok(yaml.includes(from), `${file} has ${from}`);
      const r = dryRun(yaml.replace(from, to));
      assert.notEqual(r.status, 0, `accepted: ${r.out}`);
      assert.match(r.out, error);
    });
});
