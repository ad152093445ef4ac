// Which test files are pure (start no program), decided from the import graph rather than a kept list:
// a test file is pure when no module of test/ it reaches, itself included, imports node:child_process.
// Every helper that starts a real program (process.ts, dig.ts, ...) does so through child_process, so
// reaching one marks the file; src/ is the code under test and is not followed (its one spawner, the exec
// credential plugin, runs only when a test's kubeconfig names one, which only real-program tests do).
// The others are named *.e2e.test.ts, so a reader tells them apart by name (test-layout.test.ts checks it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const SPAWNERS = new Set(['node:child_process', 'child_process']);

/** How a test file that starts a real program ends: `npm test` runs it, `npm run test:unit` does not. */
const E2E_SUFFIX = '.e2e.test.ts';

/** Whether a test file's name says it starts a real program. */
export const isE2eName = (file: string): boolean => file.endsWith(E2E_SUFFIX);

/** The module specifiers a file names: static imports, re-exports and `import('...')` with a literal. */
export function importedSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

export type ReadModule = (path: string) => string | undefined;

/**
 * Whether `file` reaches a spawner through relative imports that stay inside `testRoot`, with the first
 * path to one (file first) when it does; `read` returns a module's text, undefined when there is none.
 */
export function spawnPath(file: string, testRoot: string, read: ReadModule): string[] | undefined {
  const seen = new Set<string>();
  const walk = (path: string): string[] | undefined => {
    if (seen.has(path)) return undefined;
    seen.add(path);
    const source = read(path);
    if (source === undefined) return undefined;
    for (const spec of importedSpecifiers(source)) {
      if (SPAWNERS.has(spec)) return [path];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(path), spec);
      if (!target.startsWith(testRoot + sep)) continue;
      const rest = walk(target);
      if (rest) return [path, ...rest];
    }
    return undefined;
  };
  return walk(file);
}

/** A module's text from disk, undefined when there is no such file. */
export const readModule: ReadModule = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** Every `*.test.ts` under `testRoot`, as `npm test`'s glob finds them, sorted. */
export function testFiles(testRoot: string): string[] {
  return readdirSync(testRoot, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(testRoot, name))
    .sort();
}

/** The pure test files under `testRoot`, relative to `cwd`: what `npm run test:unit` runs. */
export function pureTestFiles(testRoot: string, cwd = process.cwd(), read: ReadModule = readModule): string[] {
  return testFiles(testRoot)
    .filter((file) => spawnPath(file, testRoot, read) === undefined)
    .map((file) => relative(cwd, file));
}

/** A test file whose name disagrees with its imports, with the path to a spawner when it has one. */
export interface Misnamed {
  file: string;
  spawnPath: string[] | undefined;
}

/** The test files (absolute) named `*.e2e.test.ts` that start no program, and those that start one named otherwise. */
export function misnamedTests(files: string[], testRoot: string, read: ReadModule = readModule): Misnamed[] {
  return files
    .map((file) => ({ file, spawnPath: spawnPath(file, testRoot, read) }))
    .filter((m) => isE2eName(m.file) !== (m.spawnPath !== undefined));
}
