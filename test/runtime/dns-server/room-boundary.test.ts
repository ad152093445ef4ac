// The DNS server is seven rooms (src/runtime/dns-server/README.md): the wire, TSIG, answering,
// the store, zone transfer, dynamic update, and the process at the top that wires them. Each room
// imports only the rooms below it, type-only imports included (a type names a dependency as much
// as a value): the wire imports no other room; the store none either; TSIG reads the wire alone;
// answering reads the store and the wire and never imports transfer or TSIG; transfer reaches the
// records only through the narrow interface it declares (the top hands it the zone's records), so
// it imports the wire and TSIG alone; update reads and writes etcd itself and is handed the
// verified key by the top, so it imports the wire alone. No room imports the top.
import assert from 'node:assert/strict';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { moduleImports, typeScriptFilesBelow } from '../../support/module-imports.ts';
import { repoRoot } from '../../support/tools.ts';

const SERVER = join(repoRoot, 'src', 'runtime', 'dns-server');
const ROOMS = ['wire', 'tsig', 'answer', 'store', 'transfer', 'update'] as const;
type Room = (typeof ROOMS)[number] | 'top';

/** What each room may import of the others. */
const ALLOWED: Record<Room, readonly Room[]> = {
  wire: [],
  store: [],
  tsig: ['wire'],
  answer: ['wire', 'store'],
  transfer: ['wire', 'tsig'],
  update: ['wire'],
  top: ['wire', 'tsig', 'answer', 'store', 'transfer', 'update'],
};

function roomOf(file: string): Room | undefined {
  const rel = relative(SERVER, file);
  if (rel.startsWith('..')) return undefined;
  const first = rel.split(sep)[0]!;
  return (ROOMS as readonly string[]).includes(first) ? (first as Room) : 'top';
}

/** Every relative module a file names, type-only imports and dynamic imports included. */
function importsOf(file: string): string[] {
  return moduleImports(file)
    .map((i) => i.specifier)
    .filter((s) => s.startsWith('.'));
}

test('the DNS server rooms import only the rooms below them', () => {
  const files = typeScriptFilesBelow(SERVER);
  const violations: string[] = [];
  const seen = new Map<Room, number>();
  for (const file of files) {
    const from = roomOf(file)!;
    seen.set(from, (seen.get(from) ?? 0) + 1);
    for (const specifier of importsOf(file)) {
      const to = roomOf(resolve(dirname(file), specifier));
      if (to === undefined || to === from || ALLOWED[from].includes(to)) continue;
      violations.push(`${relative(SERVER, file)} (${from}) imports ${specifier} (${to})`);
    }
  }
  // Each room holds files, so the rule is checked against real imports, not an empty folder.
  for (const room of [...ROOMS, 'top'] as const) assert.ok((seen.get(room) ?? 0) >= 2, `${room} has files`);
  assert.deepEqual(violations, []);
});

test('the room rule sees a crossing import', () => {
  // The check itself: answering importing transfer, and the wire importing the top, are caught.
  const answer = join(SERVER, 'answer', 'resolver.ts');
  const wire = join(SERVER, 'wire', 'wire-server.ts');
  assert.equal(roomOf(resolve(dirname(answer), '../transfer/zone-transfer.ts')), 'transfer');
  assert.equal(roomOf(resolve(dirname(answer), '../tsig/tsig.ts')), 'tsig');
  assert.ok(!ALLOWED.answer.includes('tsig'));
  assert.ok(!ALLOWED.answer.includes('transfer'));
  assert.equal(roomOf(resolve(dirname(wire), '../dispatch.ts')), 'top');
  assert.ok(!ALLOWED.wire.includes('top'));
  assert.deepEqual(
    importsOf(join(SERVER, 'server-process.ts')).filter((s) => s.startsWith('./store/')).length > 0,
    true,
  );
});
