// What `etcdns init` writes: a GitOps repository in which each environment is one small typed file,
// `npm run synth` writes dist/<env>/ (plain YAML + kustomization.yaml), and Argo CD or Flux apply
// those folders. Pure: options in, file contents out; the command writes them.

import { argoHealthConfigMap } from './argocd-health.ts';
import { identifier, spokeEnvironment } from './environment-name.ts';
import { clustersFile, hubEnvironmentFile, spokeEnvironmentFile, type HubOptions } from './hub-files.ts';

export interface ScaffoldOptions {
  /** The npm package name of the new repository. */
  name: string;
  /** What its package.json depends on for etcdns: a version range, or a tarball/path/git spec. */
  etcdnsSpec: string;
  /** Version ranges of the peer and tool packages, from etcdns's own package.json. */
  versions: Record<'cdk8s' | 'cdk8s-plus-27' | 'constructs' | 'tsx' | 'typescript' | '@types/node', string>;
  /** Git URL Argo CD and Flux read the repository from. */
  repoUrl: string;
  /** The environments to start with, each a file under environments/. */
  environments: readonly string[];
  /** Which GitOps engine's examples gitops/ holds. */
  gitops: GitopsEngines;
  /** A hub and its member clusters (spokes), each an environment beside `environments`. */
  hub?: HubOptions;
}

export const GITOPS_ENGINES = ['flux', 'argocd', 'both'] as const;
export type GitopsEngines = (typeof GITOPS_ENGINES)[number];

export const SCAFFOLD_DEFAULTS = {
  repoUrl: 'https://git.example.org/platform/dns-gitops.git',
  environments: ['dev', 'prod'],
  gitops: 'both',
} as const;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function packageJson(o: ScaffoldOptions): string {
  return json({
    name: o.name,
    private: true,
    type: 'module',
    scripts: {
      synth: 'tsx main.ts',
      typecheck: 'tsc --noEmit',
    },
    dependencies: {
      cdk8s: o.versions.cdk8s,
      'cdk8s-plus-27': o.versions['cdk8s-plus-27'],
      constructs: o.versions.constructs,
      etcdns: o.etcdnsSpec,
    },
    devDependencies: {
      '@types/node': o.versions['@types/node'],
      tsx: o.versions.tsx,
      typescript: o.versions.typescript,
    },
  });
}

const TSCONFIG = json({
  compilerOptions: {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: false,
    types: ['node'],
  },
  include: ['*.ts', 'environments'],
});

// `cdk8s synth` runs the app with CDK8S_OUTDIR set to `output`; main.ts writes there.
const CDK8S_YAML = `language: typescript
app: npx tsx main.ts
output: dist
`;

const MAIN = `// Synthesizes every environment in environments/ into dist/<env>/: one YAML file per object
// plus kustomization.yaml, for Argo CD or Flux. Only files synth generated are replaced.
//   npm run synth            every environment
//   npm run synth -- prod    only the named ones
import { join } from 'node:path';
import { ConfigError, synthSpokeStack, synthStack, writeManifests } from 'etcdns';
import { environments, spokes } from './environments/index.ts';

const synths: Record<string, () => Map<string, string>> = {
  ...Object.fromEntries(Object.entries(environments).map(([n, props]) => [n, () => synthStack(props)])),
  ...Object.fromEntries(Object.entries(spokes).map(([n, props]) => [n, () => synthSpokeStack(props)])),
};
const out = process.env.CDK8S_OUTDIR ?? 'dist';
const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(synths);
for (const name of names) {
  const synth = synths[name];
  if (!synth) {
    console.error(\`synth: unknown environment "\${name}" (known: \${Object.keys(synths).join(', ')})\`);
    process.exit(2);
  }
  try {
    const result = writeManifests(join(out, name), synth());
    console.log(\`\${join(out, name)}/: \${result.written.length} written, \${result.unchanged.length} unchanged, \${result.removed.length} removed\`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(\`synth: environment "\${name}": \${error.message}\`);
    process.exit(1);
  }
}
`;

const SHARED = `// What every environment has in common. Each environment file spreads it and changes only what
// differs. Every prop is typed and documented with its default (hover in your editor).
import type { DnsStackProps } from 'etcdns';

export const shared = {
  zones: [{ name: 'example.org', soa: { rname: 'hostmaster.example.org' } }],
  sources: { kinds: ['service', 'ingress'] },
  // Gateway API routes and DNSEndpoint objects, by external-dns's source names (the routes need
  // the Gateway API CRDs on the cluster; see the etcdns docs, docs/sources.md):
  // sources: { kinds: ['service', 'gateway-httproute', 'gateway-grpcroute', 'crd'], dnsEndpointCrd: true },
  // Records kept in Git, each one a DNSEndpoint in dist/<env>/ (needs "crd" above):
  // records: [{ name: 'example.org', type: 'MX', targets: ['10 mail.example.org'] }],
  // Where your CI publishes the etcdns image (see the etcdns docs, docs/image.md).
  // server: { image: { repository: 'registry.example.org/etcdns', tag: '<version>' } },
  // controller: { image: { repository: 'registry.example.org/etcdns', tag: '<version>' } },
} satisfies DnsStackProps;
`;

const ENVIRONMENT_FILES: Record<string, string> = {
  dev: `// dev: one etcd member and one DNS server; cheap on a small cluster.
import type { DnsStackProps } from 'etcdns';
import { shared } from './shared.ts';

export const dev: DnsStackProps = {
  ...shared,
  zones: [{ name: 'dev.example.org', defaultTtl: 30 }],
  ownership: { ownerId: 'etcdns-dev' },
  etcd: { replicas: 1, storage: { size: '1Gi' } },
  server: { replicas: 1 },
};
`,
  prod: `// prod: a 3-member etcd (quorum survives one lost member), three DNS servers behind a fixed
// load-balancer address (in MetalLB's annotation; "kube-vip", "cilium" or "spec" for others),
// two controllers with leader election.
import type { DnsStackProps } from 'etcdns';
import { shared } from './shared.ts';

export const prod: DnsStackProps = {
  ...shared,
  ownership: { ownerId: 'etcdns-prod', policy: 'sync' },
  etcd: { replicas: 3, antiAffinity: 'required', storage: { size: '10Gi' } },
  server: { replicas: 3, service: { loadBalancer: { addresses: ['10.0.0.53'], implementation: 'metallb' } } },
  controller: { replicas: 2 },
};
`,
};

/** A file for an environment name the scaffold has no example of: a copy of dev under its name. */
function environmentFile(env: string): string {
  const known = ENVIRONMENT_FILES[env];
  if (known) return known;
  return ENVIRONMENT_FILES.dev!.replace(/^\/\/ dev:.*$/m, `// ${env}:`)
    .replaceAll('export const dev', `export const ${identifier(env)}`)
    .replaceAll("'dev.example.org'", `'${env}.example.org'`)
    .replaceAll("'etcdns-dev'", `'etcdns-${env}'`);
}

function environmentIndex(envs: readonly string[], spokes: readonly string[]): string {
  const imports = [...envs, ...spokes].map((e) => `import { ${identifier(e)} } from './${e}.ts';`).join('\n');
  const entries = (names: readonly string[]) =>
    names.map((e) => (identifier(e) === e ? e : `'${e}': ${identifier(e)}`)).join(', ');
  return `// The environments \`npm run synth\` writes, by folder name under dist/: DnsStacks, and the
// spokes of a hub (SpokeStacks: only a controller writing into the hub's etcd; etcdns docs,
// docs/multi-cluster.md). Add one: a new file here and a line below.
import type { DnsStackProps, SpokeStackProps } from 'etcdns';
${imports}

export const environments: Record<string, DnsStackProps> = { ${entries(envs)} };

export const spokes: Record<string, SpokeStackProps> = { ${entries(spokes)} };
`;
}

// Argo CD: one Application per environment, reading dist/<env>. No resources finalizer: deleting
// the Application must not cascade into etcd's volumes.
function argoApplication(o: ScaffoldOptions, env: string): string {
  return `# Argo CD Application for dist/${env}. Apply it to the cluster that runs Argo CD
# (kubectl apply -n argocd -f gitops/argocd/${env}.yaml), or list it in your app-of-apps, after
# merging argocd-cm.yaml (Argo CD's health check for DNSEndpoints) into its argocd-cm.
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: etcdns-${env}
  namespace: argocd
spec:
  project: default
  source:
    repoURL: ${o.repoUrl}
    targetRevision: main
    path: dist/${env}
  destination:
    # The cluster dist/${env} is for: Argo CD's own here (a spoke's: that cluster, as Argo CD names it).
    server: https://kubernetes.default.svc
    # The namespace the stack's props name (default "etcdns"); dist/ sets it on every object.
    namespace: etcdns
  syncPolicy:
    automated:
      prune: true
      selfHeal: true
    syncOptions:
      # The DNS Service has port 53 twice (UDP, TCP); only server-side apply keys ports by protocol.
      - ServerSideApply=true
`;
}

// Flux: the repository once, then one Kustomization per environment. prune removes objects that
// left dist/; the Namespace carries Flux's prune opt-out, so etcd's volumes are never pruned.
function fluxRepository(o: ScaffoldOptions): string {
  return `# The Git source every Flux Kustomization of this repository reads (kubectl apply -f gitops/flux/).
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: dns-gitops
  namespace: flux-system
spec:
  interval: 1m
  url: ${o.repoUrl}
  ref:
    branch: main
`;
}

function fluxKustomization(env: string): string {
  return `# Flux Kustomization for dist/${env}.
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: etcdns-${env}
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: dns-gitops
  path: ./dist/${env}
  prune: true
  # Ready only when every workload of the stack is (etcd, DNS servers, controller).
  wait: true
  timeout: 10m
  # With opt-in objects whose CRDs another Kustomization installs (ServiceMonitor: the Prometheus
  # Operator; Certificate: cert-manager; ExternalSecret: External Secrets), order after it:
  # dependsOn:
  #   - name: kube-prometheus-stack
`;
}

/**
 * Actions the repository's workflow uses, pinned by commit (the tag in the comment) as etcdns's
 * own release workflow pins them; test/scaffold keeps the two in step.
 */
export const ACTION_PINS = {
  checkout: 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1',
  setupNode: 'actions/setup-node@820762786026740c76f36085b0efc47a31fe5020 # v7.0.0',
} as const;

// CI of the repository: the environments type-check and synthesize, and dist/ is exactly what
// they synthesize (GitOps engines apply what is committed, so a forgotten `npm run synth` would
// deploy the old output). New files count too: `git add -N` makes git diff show them.
const CI_WORKFLOW = `# CI: the environments type-check, and dist/ is exactly what \`npm run synth\` writes from them.
# When this fails on dist/, run \`npm run synth\` and commit dist/ with the change.
name: ci

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  synth:
    runs-on: ubuntu-24.04
    steps:
      - uses: ${ACTION_PINS.checkout}
        with:
          persist-credentials: false
      - uses: ${ACTION_PINS.setupNode}
        with:
          node-version: 24
          cache: npm
      - run: npm ci --no-audit --no-fund
      - run: npm run typecheck
      - run: npm run synth
      - name: dist/ is committed as synthesized
        run: |
          git add --intent-to-add dist
          if ! git diff --quiet -- dist; then
            git diff --stat -- dist
            echo "::error::dist/ differs from what npm run synth writes: run it and commit dist/"
            exit 1
          fi
`;

/** The packages whose versions must move together: etcdns and the cdk8s peers it builds on. */
export const GROUPED_PACKAGES = ['etcdns', 'cdk8s', 'cdk8s-plus-27', 'constructs'] as const;

// Renovate: etcdns and its peer dependencies in one pull request (a newer etcdns may need newer
// peers, and one constructs copy must serve both); CI then shows whether dist/ changes with it.
const RENOVATE = json({
  $schema: 'https://docs.renovatebot.com/renovate-schema.json',
  extends: ['config:recommended'],
  packageRules: [
    {
      description:
        'etcdns and the cdk8s packages it builds on move together. A new version can change dist/: CI then fails until `npm run synth` is committed on the branch.',
      matchPackageNames: [...GROUPED_PACKAGES],
      groupName: 'etcdns and cdk8s',
    },
  ],
});

const ENGINE_FOLDERS = {
  flux: 'Flux (`gitops/flux/`)',
  argocd: 'Argo CD (`gitops/argocd/`)',
  both: 'Argo CD (`gitops/argocd/`) or Flux (`gitops/flux/`)',
} as const satisfies Record<GitopsEngines, string>;

const ARGOCD_README_LINE = `- Argo CD: merge \`gitops/argocd/argocd-cm.yaml\` into its argocd-cm before the first Application
  (its health check for DNSEndpoints; the file says how).
`;

function readme(o: ScaffoldOptions): string {
  return `# ${o.name}

DNS for this cluster's Services and Ingresses with [etcdns](https://www.npmjs.com/package/etcdns):
each environment is one typed file under \`environments/\`; \`npm run synth\` writes its manifests
into \`dist/<env>/\`, which ${ENGINE_FOLDERS[o.gitops]} applies.

\`\`\`sh
npm install && npm run synth   # writes dist/<env>/ for every environment
npm run typecheck              # a wrong prop is a type error
\`\`\`

Commit \`dist/\` with the change that produced it, and \`package-lock.json\`. Never edit \`dist/\` by
hand: overlay it with your own \`kustomization.yaml\` (patches, \`images:\`, \`namespace:\`) or change
the environment file.

- CI (\`.github/workflows/ci.yml\`) installs with \`npm ci\`, type-checks, synthesizes and fails
  when \`dist/\` differs from what is committed.
${o.gitops === 'flux' ? '' : ARGOCD_README_LINE}- Renovate (\`renovate.json\`) proposes etcdns and its cdk8s peers (${GROUPED_PACKAGES.slice(1).join(', ')})
  in one pull request. When the new version changes the output, CI fails on that branch until
  \`npm run synth\` is run there and \`dist/\` committed: review that diff, it is what will roll.
`;
}

export function scaffoldFiles(o: ScaffoldOptions): Map<string, string> {
  const flux = o.gitops !== 'argocd';
  const argocd = o.gitops !== 'flux';
  const files = new Map<string, string>([
    ['package.json', packageJson(o)],
    ['tsconfig.json', TSCONFIG],
    ['cdk8s.yaml', CDK8S_YAML],
    ['main.ts', MAIN],
    ['README.md', readme(o)],
    ['.gitignore', 'node_modules/\n'],
    ['.github/workflows/ci.yml', CI_WORKFLOW],
    ['renovate.json', RENOVATE],
    ['environments/shared.ts', SHARED],
  ]);
  const hubEnvs = o.hub ? [o.hub.name] : [];
  const spokeEnvs = (o.hub?.spokes ?? []).map(spokeEnvironment);
  files.set('environments/index.ts', environmentIndex([...o.environments, ...hubEnvs], spokeEnvs));
  if (o.hub) {
    files.set('environments/clusters.ts', clustersFile(o.hub));
    files.set(`environments/${o.hub.name}.ts`, hubEnvironmentFile(o.hub));
    for (const cluster of o.hub.spokes)
      files.set(`environments/${spokeEnvironment(cluster)}.ts`, spokeEnvironmentFile(o.hub, cluster));
  }
  if (flux) files.set('gitops/flux/repository.yaml', fluxRepository(o));
  if (argocd) files.set('gitops/argocd/argocd-cm.yaml', argoHealthConfigMap());
  for (const env of o.environments) files.set(`environments/${env}.ts`, environmentFile(env));
  for (const env of [...o.environments, ...hubEnvs, ...spokeEnvs]) {
    if (argocd) files.set(`gitops/argocd/${env}.yaml`, argoApplication(o, env));
    if (flux) files.set(`gitops/flux/${env}.yaml`, fluxKustomization(env));
  }
  return files;
}
