// `etcdns init DIR`: scaffolds a GitOps repository for etcdns (see scaffold-files.ts) into DIR,
// which must not hold any of the files it writes. Exit code 0 done, 1 on a file in the way, 2 on
// bad arguments.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Subcommand } from '../runtime/shared/subcommand.ts';
import { CLUSTER_NAME } from '../skydns/cluster-prefix.ts';
import { ENVIRONMENT_NAME, identifier, RESERVED_ENVIRONMENTS, spokeEnvironment } from './environment-name.ts';
import {
  GITOPS_ENGINES,
  SCAFFOLD_DEFAULTS,
  scaffoldFiles,
  type GitopsEngines,
  type ScaffoldOptions,
} from './scaffold-files.ts';

const isGitopsEngines = (v: string): v is GitopsEngines => (GITOPS_ENGINES as readonly string[]).includes(v);

const HELP = `Usage: etcdns init DIR [options]

Writes a GitOps repository into DIR: package.json, one typed file per environment under
environments/, main.ts (npm run synth writes dist/<env>/), cdk8s.yaml, a CI workflow
(.github/workflows/ci.yml: typecheck, synth, dist/ as committed), renovate.json, and example
Argo CD Applications and/or Flux Kustomizations under gitops/.
Then: cd DIR && npm install && npm run synth

Options:
  --env NAME          an environment to start with; repeat for more (default: ${SCAFFOLD_DEFAULTS.environments.join(', ')},
                      none with --hub)
  --hub NAME          a hub (etcdns docs/multi-cluster.md): environments/NAME.ts, etcd and the
                      DNS servers answering for every --spoke. It replaces the default
                      environments, since the hub already is the DNS of every cluster (add
                      --env to keep single-cluster ones beside it)
  --spoke CLUSTER     a member cluster of the hub; repeat for more: environments/clusters.ts
                      (its suffixes and networks, EXAMPLE values to edit) and
                      environments/spoke-CLUSTER.ts (only its controller, writing to the hub)
  --name NAME         the package name (default: DIR's name)
  --repo-url URL      the Git URL Argo CD and Flux read (default: ${SCAFFOLD_DEFAULTS.repoUrl})
  --gitops ENGINE     flux, argocd or both: whose examples gitops/ holds (default: ${SCAFFOLD_DEFAULTS.gitops})
  --etcdns SPEC       what package.json depends on for etcdns (default: ^<this version>;
                      a tarball path or git URL also works)
  -h, --help          this help
`;

interface OwnPackage {
  version: string;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** Version ranges for the new repository: etcdns's peer ranges and the tools it is tested with. */
function versions(pkg: OwnPackage): ScaffoldOptions['versions'] {
  const caret = (name: string) => `^${pkg.devDependencies[name]}`;
  return {
    cdk8s: pkg.peerDependencies.cdk8s!,
    'cdk8s-plus-27': pkg.peerDependencies['cdk8s-plus-27']!,
    constructs: pkg.peerDependencies.constructs!,
    tsx: caret('tsx'),
    typescript: caret('typescript'),
    '@types/node': caret('@types/node'),
  };
}

function fail(message: string): number {
  process.stderr.write(`etcdns init: ${message}\n`);
  return 2;
}

const subcommand: Subcommand = {
  async run(args) {
    let parsed;
    try {
      parsed = parseArgs({
        args,
        allowPositionals: true,
        options: {
          env: { type: 'string', multiple: true },
          hub: { type: 'string' },
          spoke: { type: 'string', multiple: true },
          name: { type: 'string' },
          'repo-url': { type: 'string' },
          gitops: { type: 'string' },
          etcdns: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (error) {
      return fail((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1) return fail('needs exactly one directory (etcdns init DIR)');
    const dir = resolve(positionals[0]!);
    const spokes = values.spoke ?? [];
    if (values.hub === undefined && spokes.length > 0) return fail('--spoke needs --hub NAME: the hub it writes to');
    if (values.hub !== undefined && spokes.length === 0)
      return fail(`--hub "${values.hub}" needs at least one --spoke CLUSTER`);
    const environments = values.env ?? (values.hub === undefined ? SCAFFOLD_DEFAULTS.environments : []);
    const named: [flag: string, env: string][] = [
      ...environments.map((e) => ['--env', e] as [string, string]),
      ...(values.hub === undefined ? [] : [['--hub', values.hub] as [string, string]]),
    ];
    const badEnv = named.find(([, e]) => !ENVIRONMENT_NAME.test(e));
    if (badEnv !== undefined)
      return fail(
        `${badEnv[0]} "${badEnv[1]}": must be lower-case letters, digits and single hyphens, starting with a letter`,
      );
    const badSpoke = spokes.find((c) => !CLUSTER_NAME.test(c) || !ENVIRONMENT_NAME.test(spokeEnvironment(c)));
    if (badSpoke !== undefined)
      return fail(
        `--spoke "${badSpoke}": a cluster name is a DNS label of at most 56 characters (lower-case letters, digits, single hyphens)`,
      );
    const reserved = named.find(([, e]) => (RESERVED_ENVIRONMENTS as readonly string[]).includes(e));
    if (reserved !== undefined) return fail(`${reserved[0]} "${reserved[1]}": the scaffold's own file has that name`);
    const all = [...named.map(([, e]) => e), ...spokes.map(spokeEnvironment)];
    if (new Set(all.map(identifier)).size !== all.length)
      return fail('--env, --hub and --spoke: each environment once (spoke-CLUSTER for a spoke)');
    const gitops = values.gitops ?? SCAFFOLD_DEFAULTS.gitops;
    if (!isGitopsEngines(gitops)) return fail(`--gitops "${gitops}": must be one of ${GITOPS_ENGINES.join(', ')}`);

    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as OwnPackage;
    const files = scaffoldFiles({
      name: values.name ?? basename(dir),
      etcdnsSpec: values.etcdns ?? `^${pkg.version}`,
      versions: versions(pkg),
      repoUrl: values['repo-url'] ?? SCAFFOLD_DEFAULTS.repoUrl,
      environments,
      gitops,
      ...(values.hub === undefined ? {} : { hub: { name: values.hub, spokes } }),
    });
    // Nothing is written when any file is in the way: a half-written scaffold helps nobody.
    const inTheWay = [...files.keys()].filter((f) => existsSync(join(dir, f)));
    if (inTheWay.length > 0) {
      process.stderr.write(`etcdns init: ${dir} already has ${inTheWay.join(', ')}; nothing written\n`);
      return 1;
    }
    for (const [file, content] of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), content);
    }
    process.stdout.write(
      `Wrote ${files.size} files into ${dir}.\nNext: cd ${positionals[0]} && npm install && npm run synth\n`,
    );
    return 0;
  },
};

export default subcommand;
