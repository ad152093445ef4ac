// The construct library's rooms are layers (src/constructs/README.md): the compositions at the top
// of src/constructs, then dnssec/, the components (server/, controller/, monitoring/), etcd/, and
// base/ and output/ at the bottom. A room imports only the rooms its row names, each in a lower
// layer, type-only imports included (a type names a dependency as much as a value), so no import
// arrow runs back up; and no file of the library imports itself through a cycle.
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

const CONSTRUCTS = join(repoRoot, 'src', 'constructs');

/** Top first; a room may import only rooms of the layers below its own. */
const LAYERS = [['top'], ['dnssec'], ['server', 'controller', 'monitoring'], ['etcd'], ['base', 'output']] as const;
type Room = (typeof LAYERS)[number][number];
const ROOMS: readonly Room[] = LAYERS.flat();

/** What each room may import of the others. */
const ALLOWED: Record<Room, readonly Room[]> = {
  top: ['dnssec', 'server', 'controller', 'monitoring', 'etcd', 'base', 'output'],
  dnssec: ['server', 'base'],
  server: ['etcd', 'base'],
  controller: ['etcd', 'base'],
  monitoring: ['base'],
  etcd: ['base'],
  base: [],
  output: [],
};

/** The room of a file in src/constructs ('top' for its loose files); undefined outside it. */
function roomOf(file: string): Room | undefined {
  const rel = relative(CONSTRUCTS, file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return (parts.length === 1 ? 'top' : parts[0]) as Room;
}

/** Why an import of `file` crosses a boundary, or undefined when it may. */
function crossing(file: string, imported: ModuleImport): string | undefined {
  if (!imported.specifier.startsWith('.')) return undefined;
  const from = roomOf(file)!;
  const to = roomOf(resolve(dirname(file), imported.specifier));
  // What the library may load outside itself is import-boundary.test.ts's.
  if (to === undefined || to === from || ALLOWED[from].includes(to)) return undefined;
  return `${relative(CONSTRUCTS, file)} (${from}) imports ${imported.specifier} (${to})`;
}

test('every folder of src/constructs is a room with its layer', () => {
  assert.deepEqual(foldersIn(CONSTRUCTS), ROOMS.filter((r) => r !== 'top').sort());
});

test('a room may import only rooms of lower layers', () => {
  assert.deepEqual(arrowsNotDown(LAYERS, ALLOWED), []);
});

test("the constructs' rooms import only what their rows allow", () => {
  const violations: string[] = [];
  const seen = new Map<Room, number>();
  for (const file of typeScriptFilesBelow(CONSTRUCTS)) {
    const room = roomOf(file)!;
    seen.set(room, (seen.get(room) ?? 0) + 1);
    for (const imported of moduleImports(file)) {
      const problem = crossing(file, imported);
      if (problem) violations.push(problem);
    }
  }
  // Each room holds files, so its row is checked against real imports, not an empty folder.
  for (const room of ROOMS) assert.ok((seen.get(room) ?? 0) > 0, `${room} has files`);
  assert.deepEqual(violations, []);
});

test('no file of the construct library imports itself through a cycle', () => {
  const files = typeScriptFilesBelow(CONSTRUCTS);
  const edges = new Map(
    files.map((file) => [
      file,
      moduleImports(file)
        .filter((i) => i.specifier.startsWith('.'))
        .map((i) => resolve(dirname(file), i.specifier))
        .filter((target) => roomOf(target) !== undefined),
    ]),
  );
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(CONSTRUCTS, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of files) visit(file, []);
  assert.deepEqual(cycles, []);
});

// The check itself: one row per kind of crossing it must catch, and the imports it must let pass.
const at = (path: string) => join(CONSTRUCTS, path);
const value = (specifier: string): ModuleImport => ({ specifier, typeOnly: false });
const type = (specifier: string): ModuleImport => ({ specifier, typeOnly: true });
const rows: [string, string, ModuleImport, boolean][] = [
  ['base imports a component (an arrow back up)', 'base/workload.ts', type('../etcd/etcd-client-access.ts'), true],
  ['a component imports the composition', 'server/dns-server.ts', type('../network-policies.ts'), true],
  ['one component imports another', 'controller/dns-controller.ts', type('../server/dns-server.ts'), true],
  ['etcd imports monitoring', 'etcd/etcd-cluster.ts', value('../monitoring/service-monitor.ts'), true],
  ['output imports base', 'output/manifest-writer.ts', value('../base/labels.ts'), true],
  ['the composition imports a component', 'dns-stack.ts', value('./server/dns-server.ts'), false],
  ['a component imports etcd', 'server/dns-server.ts', value('../etcd/etcd-client-access.ts'), false],
  ['a component imports base', 'monitoring/service-monitor.ts', value('../base/metrics-service.ts'), false],
  ['a file imports its own room', 'etcd/etcd-cluster.ts', value('./etcd-certificates.ts'), false],
  ['a room imports the pure config', 'server/dns-server.ts', value('../../config/server-config.ts'), false],
];
for (const [name, file, imported, caught] of rows) {
  test(`the room rule ${caught ? 'catches' : 'lets pass'}: ${name}`, () => {
    assert.equal(crossing(at(file), imported) !== undefined, caught);
  });
}
