// What a platform team's CI finds in etcdns's manifests: kube-score (CRITICAL) and trivy's
// Kubernetes configuration checks (HIGH, CRITICAL) over every example environment in dist/ (the
// hub's spokes too) and over a repository made by `etcdns init`, then synthesized. Nothing may be
// found beyond test/lint/allowlist.yaml, whose every entry says why it is kept and must still match.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { load } from 'js-yaml';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import type { DnsStackProps } from '../../src/index.ts';
import { ENVIRONMENT_FILES } from '../../src/environments/index.ts';
import {
  describeFinding,
  isAllowed,
  kubeScoreFindings,
  lintManifests,
  trivyContainer,
  trivyFindings,
  type Allowed,
  type Finding,
} from '../support/manifest-linters.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin, repoRoot } from '../support/tools.ts';

const allowlist = load(readFileSync(join(import.meta.dirname, 'allowlist.yaml'), 'utf8')) as Allowed[];

/** `etcdns init` for real, then its environments synthesized as its `npm run synth` does
 *  (test/package/installed-package.e2e.test.ts shows the two write the same files). */
async function initRepository(): Promise<Record<string, string>> {
  const repo = join(tempDir('lint-init'), 'dns-gitops');
  const r = spawnSync(nodeBin, [etcdnsBin, 'init', repo], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { environments } = (await import(join(repo, 'environments', 'index.ts'))) as {
    environments: Record<string, DnsStackProps>;
  };
  return Object.fromEntries(
    Object.entries(environments).map(([env, props]) => {
      writeManifests(join(repo, 'dist', env), synthStack(props));
      return [`etcdns init's dist/${env}`, join(repo, 'dist', env)];
    }),
  );
}

const findings = new Map<string, Finding[]>();

before(async () => {
  const inputs = {
    ...Object.fromEntries(Object.keys(ENVIRONMENT_FILES).map((env) => [`dist/${env}`, join(repoRoot, 'dist', env)])),
    ...(await initRepository()),
  };
  for (const [name, dir] of Object.entries(inputs)) findings.set(name, await lintManifests(dir));
});

describe('the linters find nothing beyond the allowlist', () => {
  for (const name of [
    ...Object.keys(ENVIRONMENT_FILES).map((env) => `dist/${env}`),
    "etcdns init's dist/dev",
    "etcdns init's dist/prod",
  ])
    test(name, () => {
      const found = findings.get(name);
      assert.ok(found, `${name} was linted`);
      assert.deepEqual(found.filter((f) => !isAllowed(f, allowlist)).map(describeFinding), []);
    });
});

describe('the allowlist', () => {
  for (const entry of allowlist)
    test(`${entry.tool} ${entry.check}${entry.finding ? `: ${entry.finding}` : ''} says why and is still needed`, () => {
      assert.ok(entry.why.length > 40, 'a reason');
      const all = [...findings.values()].flat();
      assert.ok(
        all.some((f) => isAllowed(f, [entry])),
        'it matches a finding (remove it when nothing needs it any more)',
      );
    });
});

// A Deployment any platform team would stop: both linters must see it, so that "nothing found"
// above means the manifests are clean, not that a linter did not look.
test('both linters find a privileged container with host networking at their error level', async () => {
  const dir = tempDir('lint-bad');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'deployment-bad.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
  namespace: demo
spec:
  replicas: 1
  selector:
    matchLabels: { app: bad }
  template:
    metadata:
      labels: { app: bad }
    spec:
      hostNetwork: true
      containers:
        - name: web
          image: nginx:1.27
          securityContext:
            privileged: true
`,
  );
  const found = await lintManifests(dir);
  const checks = (tool: string) => new Set(found.filter((f) => f.tool === tool).map((f) => f.check));
  assert.ok(checks('kube-score').has('container-security-context-privileged'), [...checks('kube-score')].join(' '));
  assert.ok(checks('trivy').has('KSV-0017'), [...checks('trivy')].join(' ')); // privileged
  assert.ok(checks('trivy').has('KSV-0009'), [...checks('trivy')].join(' ')); // host network
  assert.ok(
    found.some(
      (f) =>
        f.tool === 'trivy' && f.check === 'KSV-0017' && f.object === 'Deployment/demo/bad' && f.container === 'web',
    ),
    'object and container named',
  );
});

describe('findings from the linters’ reports', () => {
  const kubeScoreReport = [
    {
      type_meta: { kind: 'Deployment' },
      object_meta: { name: 'server', namespace: 'dns' },
      checks: [
        {
          check: { id: 'container-resources' },
          grade: 1,
          skipped: false,
          comments: [{ path: 'server', summary: 'CPU limit is not set' }],
        },
        { check: { id: 'container-image-tag' }, grade: 10, skipped: false, comments: [] },
        {
          check: { id: 'container-resource-requests-equal-limits' },
          grade: 1,
          skipped: true,
          comments: [{ path: '', summary: 'Skipped' }],
        },
        {
          check: { id: 'deployment-replicas' },
          grade: 5,
          skipped: false,
          comments: [{ path: '', summary: 'one replica' }],
        },
        { check: { id: 'deployment-has-poddisruptionbudget' }, grade: 1, skipped: false, comments: null },
      ],
    },
  ];
  test('kube-score: CRITICAL and not skipped only, one finding per comment', () =>
    assert.deepEqual(kubeScoreFindings(kubeScoreReport), [
      {
        tool: 'kube-score',
        check: 'container-resources',
        object: 'Deployment/dns/server',
        container: 'server',
        finding: 'CPU limit is not set',
      },
      {
        tool: 'kube-score',
        check: 'deployment-has-poddisruptionbudget',
        object: 'Deployment/dns/server',
        container: '',
        finding: '',
      },
    ]));

  for (const [severity, kept] of [
    ['CRITICAL', true],
    ['HIGH', true],
    ['MEDIUM', false],
    ['LOW', false],
  ] as const)
    test(`trivy: ${severity} is ${kept ? '' : 'not '}a finding`, () =>
      assert.equal(
        trivyFindings(
          [{ file: 'a.yaml', id: 'KSV-0001', severity, message: "Container 'a' of Deployment 'b' should" }],
          () => 'Deployment/ns/b',
        ).length,
        kept ? 1 : 0,
      ));

  for (const [message, container] of [
    ["Container 'server' of Deployment 'etcdns-server' should set 'resources.limits.cpu'", 'server'],
    [
      'Container etcd-member in statefulset etcdns-etcd (namespace: dns) uses an image from an untrusted registry.',
      'etcd-member',
    ],
    ["Container of StatefulSet 'etcdns-etcd' should set 'spec.automountServiceAccountToken' to false", ''],
    ['Ensure that the --client-cert-auth argument is set to true', ''],
  ] as const)
    test(`trivy's container in "${message.slice(0, 50)}...": "${container}"`, () =>
      assert.equal(trivyContainer(message), container));
});

describe('allowlist matching', () => {
  const finding: Finding = {
    tool: 'kube-score',
    check: 'container-resources',
    object: 'Deployment/dns/server',
    container: 'server',
    finding: 'CPU limit is not set',
  };
  const entry = (e: Partial<Allowed>): Allowed => ({
    tool: 'kube-score',
    check: 'container-resources',
    why: 'x',
    ...e,
  });
  for (const [name, allowed, expected] of [
    ['the same check, any finding', entry({}), true],
    ['the same check and finding', entry({ finding: 'CPU limit is not set' }), true],
    ['another finding of the same check', entry({ finding: 'Memory limit is not set' }), false],
    ['another check', entry({ check: 'container-image-pull-policy' }), false],
    ['the same check id from the other tool', entry({ tool: 'trivy' }), false],
  ] as const)
    test(name, () => assert.equal(isAllowed(finding, [allowed]), expected));
});
