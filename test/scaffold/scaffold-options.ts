// The options `etcdns init` passes to scaffoldFiles, fixed for tests: what the scaffold writes
// must not depend on the versions this checkout happens to carry.
import { SCAFFOLD_DEFAULTS, type GitopsEngines, type ScaffoldOptions } from '../../src/scaffold/scaffold-files.ts';

export const ETCDNS_SPEC = '^1.2.3';

export const scaffoldOptions = (environments: readonly string[], gitops: GitopsEngines = 'both'): ScaffoldOptions => ({
  name: 'dns-gitops',
  etcdnsSpec: ETCDNS_SPEC,
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
  gitops,
});
