// The runtime's folders are layers (docs/layout.md): the command at the top (cli.ts); `etcdns
// status`, which reads what the processes serve; the processes and jobs; the pieces they share
// (the Kubernetes client, the status pages' frame); shared/ at the bottom. A folder imports only
// the folders its row names, each in a lower layer, type-only imports included (a type names a
// dependency as much as a value), so no import arrow runs back up and no two folders import each
// other. `etcdns status` names the summary types the processes' pages serve but loads none of
// their code; it says what they serve in the status pages' own words (status-page/, which imports
// nothing). Outside the runtime, a folder imports only the pure modules (src/config, src/dns,
// src/skydns, src/version.ts), and the command also the scaffold of `etcdns init`.
import assert from 'node:assert/strict';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import {
  arrowsNotDown,
  foldersIn,
  moduleImports,
  typeScriptFilesBelow,
  type ModuleImport,
} from '../support/module-imports.ts';
import { repoRoot } from '../support/tools.ts';

const SRC = join(repoRoot, 'src');
const RUNTIME = join(SRC, 'runtime');

/** Top first; a folder may import only folders of the layers below its own. */
const LAYERS = [
  ['top'],
  ['status'],
  ['controller', 'dns-server', 'etcd-member', 'etcd-roles'],
  ['kube', 'status-page'],
  ['shared'],
] as const;
type Folder = (typeof LAYERS)[number][number];
const FOLDERS: readonly Folder[] = LAYERS.flat();

/** What each folder may import of the others. */
const ALLOWED: Record<Folder, readonly Folder[]> = {
  top: ['status', 'controller', 'dns-server', 'etcd-member', 'etcd-roles', 'shared'],
  status: ['kube', 'status-page', 'shared'],
  controller: ['kube', 'status-page', 'shared'],
  'dns-server': ['kube', 'status-page', 'shared'],
  'etcd-member': ['kube', 'shared'],
  'etcd-roles': ['shared'],
  kube: [],
  'status-page': [],
  shared: [],
};

/** What a folder may name with `import type` only. */
const TYPES_ONLY: Partial<Record<Folder, readonly Folder[]>> = { status: ['controller', 'dns-server'] };

/** What of src/ outside the runtime a folder may import (a folder, or a file at src/'s top). */
const PURE = ['config', 'dns', 'skydns', 'version.ts'];
const OUTSIDE: Partial<Record<Folder, readonly string[]>> = { top: [...PURE, 'scaffold'] };

/** The runtime folder of a path in src/runtime ('top' for its loose files), else its place in src/. */
function placeOf(file: string): { folder: Folder } | { outside: string } {
  const rel = relative(RUNTIME, file);
  if (rel.startsWith('..')) return { outside: relative(SRC, file).split(sep)[0]! };
  const parts = rel.split(sep);
  return { folder: (parts.length === 1 ? 'top' : parts[0]) as Folder };
}

/** Why an import of `file` crosses a boundary, or undefined when it may. */
function crossing(file: string, imported: ModuleImport): string | undefined {
  if (!imported.specifier.startsWith('.')) return undefined;
  const from = placeOf(file);
  if (!('folder' in from)) return undefined;
  const to = placeOf(resolve(dirname(file), imported.specifier));
  const what = `${relative(RUNTIME, file)} (${from.folder}) imports ${imported.specifier}`;
  if ('outside' in to)
    return (OUTSIDE[from.folder] ?? PURE).includes(to.outside) ? undefined : `${what}: src/${to.outside} is not for it`;
  if (to.folder === from.folder || ALLOWED[from.folder].includes(to.folder)) return undefined;
  if (imported.typeOnly && TYPES_ONLY[from.folder]?.includes(to.folder)) return undefined;
  return `${what} (${to.folder})`;
}

test('every folder of src/runtime has its layer', () => {
  assert.deepEqual(foldersIn(RUNTIME), FOLDERS.filter((f) => f !== 'top').sort());
});

test('a folder may import only folders of lower layers', () => {
  const withTypes = Object.fromEntries(
    FOLDERS.map((from) => [from, [...ALLOWED[from], ...(TYPES_ONLY[from] ?? [])]]),
  ) as Record<Folder, Folder[]>;
  assert.deepEqual(arrowsNotDown(LAYERS, withTypes), []);
});

test("the runtime's folders import only what their rows allow", () => {
  const violations: string[] = [];
  const seen = new Map<Folder, number>();
  for (const file of typeScriptFilesBelow(RUNTIME)) {
    const place = placeOf(file) as { folder: Folder };
    seen.set(place.folder, (seen.get(place.folder) ?? 0) + 1);
    for (const imported of moduleImports(file)) {
      const problem = crossing(file, imported);
      if (problem) violations.push(problem);
    }
  }
  // Each folder holds files, so its row is checked against real imports, not an empty folder.
  for (const folder of FOLDERS) assert.ok((seen.get(folder) ?? 0) > 0, `${folder} has files`);
  assert.deepEqual(violations, []);
});

// The check itself: one row per kind of crossing it must catch, and the imports it must let pass.
const at = (path: string) => join(RUNTIME, path);
const value = (specifier: string): ModuleImport => ({ specifier, typeOnly: false });
const type = (specifier: string): ModuleImport => ({ specifier, typeOnly: true });
const rows: [string, string, ModuleImport, boolean][] = [
  ['shared imports a process (an arrow back up)', 'shared/log.ts', value('../controller/controller.ts'), true],
  ['a page frame imports its process', 'status-page/html.ts', type('../dns-server/server-page.ts'), true],
  [
    'the Kubernetes client imports the controller',
    'kube/kube-target.ts',
    value('../controller/controller-options.ts'),
    true,
  ],
  ['a process imports the command at the top', 'dns-server/server-command.ts', type('../cli.ts'), true],
  ['one process imports another', 'dns-server/dispatch.ts', value('../controller/desired-record.ts'), true],
  ["status loads a process's code", 'status/status-report.ts', value('../controller/controller-page.ts'), true],
  ['a process imports the construct library', 'controller/controller.ts', value('../../constructs/dns-stack.ts'), true],
  ['a process imports the scaffold', 'dns-server/server-command.ts', value('../../scaffold/init-command.ts'), true],
  ['status names a page summary type', 'status/status-report.ts', type('../controller/controller-page.ts'), false],
  ['a process imports the Kubernetes client', 'dns-server/shutdown-drain.ts', value('../kube/kube-client.ts'), false],
  ['a process imports the page frame', 'controller/controller-page.ts', value('../status-page/html.ts'), false],
  ['a file imports its own folder', 'controller/controller.ts', value('./plan/plan.ts'), false],
  ['a process imports the pure config', 'controller/controller.ts', value('../../config/source-kinds.ts'), false],
  ['the command loads the scaffold', 'cli.ts', value('../scaffold/init-command.ts'), false],
];
for (const [name, file, imported, caught] of rows) {
  test(`the folder rule ${caught ? 'catches' : 'lets pass'}: ${name}`, () => {
    assert.equal(crossing(at(file), imported) !== undefined, caught);
  });
}
