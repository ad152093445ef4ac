// The test tree mirrors src/: the tests of src/runtime/dns-server/answer/ sit in
// test/runtime/dns-server/answer/, a local helper beside the tests that use it. Only the folders
// below stand apart, each for tests that cut across src/ or test what is not in it.
import { readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** The top folders of test/ that have no src/ counterpart, and what they hold. */
export const CROSS_CUTTING: Readonly<Record<string, string>> = {
  bench: "the benchmarks' own code (bench/)",
  cluster: 'the cluster check (npm run test:cluster): the whole stack on a real single-node Kubernetes',
  docs: 'the pages under docs/ and the links of every Markdown file',
  faults: 'faults injected into etcd, the controller and the servers together',
  fuzz: 'the fuzz targets and their loop (fuzz/)',
  image: 'the container image and its release workflow',
  lint: 'the manifest linters on dist/',
  package: 'the npm package as a user installs it',
  smoke: 'the reference programs the tests run against, and the CLI',
  support: 'the helpers that start the real programs, and their own tests',
};

/** Every file below `root`, as paths relative to it with `/` between folders, sorted. */
export function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split(sep)
        .join('/'),
    )
    .sort();
}

/** Every folder below `root` (relative, `/` between folders) and `.` for root itself. */
export function foldersBelow(root: string): Set<string> {
  const folders = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split(sep)
        .join('/'),
    );
  return new Set(['.', ...folders]);
}

/**
 * The files of test/ (relative to it) that sit in a folder src/ does not have, outside the
 * cross-cutting folders; `srcFolders` as `foldersBelow` gives them.
 */
export function strayTestFiles(testPaths: string[], srcFolders: ReadonlySet<string>): string[] {
  return testPaths.filter((path) => {
    const folder = dirname(path);
    return !Object.hasOwn(CROSS_CUTTING, path.split('/')[0]!) && !srcFolders.has(folder);
  });
}
