// `etcdns init DIR`: scaffolds a GitOps repository for etcdns (see scaffold-files.ts) into DIR,
// which must not hold any of the files it writes. Exit code 0 done, 1 on a file in the way, 2 on
// bad arguments.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Subcommand } from '../runtime/shared/subcommand.ts';
import {
  ENVIRONMENT_NAME,
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
  --env NAME          an environment to start with; repeat for more (default: ${SCAFFOLD_DEFAULTS.environments.join(', ')})
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
    const environments = values.env ?? SCAFFOLD_DEFAULTS.environments;
    const badEnv = environments.find((e) => !ENVIRONMENT_NAME.test(e));
    if (badEnv !== undefined)
      return fail(`--env "${badEnv}": must be lower-case letters, digits and single hyphens, starting with a letter`);
    if (new Set(environments).size !== environments.length) return fail('--env: each environment once');
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
