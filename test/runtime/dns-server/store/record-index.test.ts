// The copy under churn, pure: names created, changed and deleted leave nothing behind in the
// index (no node, no skipped key), whatever their shape and the order of their deletes. A server
// that churns through always new names must hold what etcd holds now, not every name it ever saw
// (issue 15's soak).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { childrenOf, RecordIndex, type IndexNode } from '../../../../src/runtime/dns-server/store/record-index.ts';

const PREFIX = '/skydns';
const A = (host: string) => JSON.stringify({ host, ttl: 30 });
const STABLE = `${PREFIX}/org/example/stable`;

/** Every node of the tree below and including `node`. */
function nodeCount(node: IndexNode | undefined): number {
  if (!node) return 0;
  let n = 1;
  for (const child of childrenOf(node)) n += nodeCount(child);
  return n;
}

type Step = { put: string; value?: string } | { del: string };

interface Row {
  name: string;
  /** The steps for name i (run for i = 0..N-1, all puts of every name before any delete). */
  puts: (i: number) => Step[];
  deletes: (i: number) => Step[];
}

const N = 50; // above the 8 children a node keeps in an array: its Map is used and emptied too

const rows: Row[] = [
  {
    name: 'one key a name, directly under the apex',
    puts: (i) => [{ put: `${PREFIX}/org/example/n${i}` }],
    deletes: (i) => [{ del: `${PREFIX}/org/example/n${i}` }],
  },
  {
    name: 'several entries a name (the controller layout: one key a record id)',
    puts: (i) => [{ put: `${PREFIX}/org/example/n${i}/x1` }, { put: `${PREFIX}/org/example/n${i}/x2` }],
    deletes: (i) => [{ del: `${PREFIX}/org/example/n${i}/x2` }, { del: `${PREFIX}/org/example/n${i}/x1` }],
  },
  {
    name: 'deep names sharing a parent created with them',
    puts: (i) => [{ put: `${PREFIX}/org/example/ns${i % 7}/svc${i}/a/b/x1` }],
    deletes: (i) => [{ del: `${PREFIX}/org/example/ns${i % 7}/svc${i}/a/b/x1` }],
  },
  {
    name: 'a name with a value of its own and one below, the upper deleted first',
    puts: (i) => [{ put: `${PREFIX}/org/example/n${i}` }, { put: `${PREFIX}/org/example/n${i}/sub/x1` }],
    deletes: (i) => [{ del: `${PREFIX}/org/example/n${i}` }, { del: `${PREFIX}/org/example/n${i}/sub/x1` }],
  },
  {
    name: 'updated, then overwritten with an undecodable value (skipped), then deleted',
    puts: (i) => [
      { put: `${PREFIX}/org/example/n${i}/x1` },
      { put: `${PREFIX}/org/example/n${i}/x1`, value: A('10.0.0.2') },
      { put: `${PREFIX}/org/example/n${i}/x1`, value: '{not json' },
    ],
    deletes: (i) => [{ del: `${PREFIX}/org/example/n${i}/x1` }],
  },
  {
    name: 'skipped from the start (a value over the size limit), then deleted',
    puts: (i) => [{ put: `${PREFIX}/org/example/n${i}/x1`, value: A('x'.repeat(64 * 1024)) }],
    deletes: (i) => [{ del: `${PREFIX}/org/example/n${i}/x1` }],
  },
  {
    name: 'names in a zone with no other record (the apex node goes too)',
    puts: (i) => [{ put: `${PREFIX}/net/other/n${i}/x1` }],
    deletes: (i) => [{ del: `${PREFIX}/net/other/n${i}/x1` }],
  },
];

describe('created and deleted names leave no node and no skipped key behind', () => {
  for (const row of rows) {
    test(row.name, () => {
      const index = new RecordIndex(PREFIX, ['example.org.', 'other.net.']);
      let revision = 1;
      const run = (steps: Step[]) => {
        for (const step of steps) {
          if ('del' in step) index.delete(step.del, ++revision);
          else index.put(step.put, step.value ?? A(`10.0.${revision >> 8}.${revision & 255}`), ++revision);
        }
      };
      run([{ put: STABLE }]);
      const before = nodeCount(index.find([]));
      for (let i = 0; i < N; i++) run(row.puts(i));
      assert.ok(nodeCount(index.find([])) > before || index.skippedCount === N, 'the names were added or skipped');
      for (let i = 0; i < N; i++) run(row.deletes(i));

      // Only the stable name remains: root, org, example, stable.
      assert.equal(index.entryCount, 1);
      assert.equal(index.skippedCount, 0);
      assert.equal(nodeCount(index.find([])), before);
      assert.deepEqual(
        [...childrenOf(index.find(['example', 'org'])!)].map((n) => n.label),
        ['stable'],
      );
      assert.equal(index.find(['other', 'net']), undefined);
    });
  }
});

/** Every stored key with its mod revision and host, in key order. */
function contents(index: RecordIndex): string[] {
  const root = index.find([]);
  return root ? index.subtree(root).map((s) => `${s.key} ${s.modRevision} ${s.entry.host}`) : [];
}

interface OrderRow {
  name: string;
  keys: string[];
}

// A load puts keys in key order and the index reuses the last key's path; watch events come in
// any order. Both must make the same copy, whatever the keys' shapes.
const orderRows: OrderRow[] = [
  {
    name: 'names whose labels share a beginning ("-" sorts before "/")',
    keys: ['svc', 'svc/x1', 'svc-2/x1', 'svc/x2', 'svc-2', 'sv', 'svc2/x1'].map((k) => `${PREFIX}/org/example/${k}`),
  },
  {
    name: 'empty labels and a trailing slash (keyPath drops them)',
    keys: ['a//b', 'a/b', 'a//b/c', 'a/b//c', 'a/', 'a', 'a/b/'].map((k) => `${PREFIX}/org/example/${k}`),
  },
  {
    name: 'the prefix itself, the apex and deep names',
    keys: [PREFIX, `${PREFIX}/org/example`, `${PREFIX}/org/example/a/b/c/d`, `${PREFIX}/org/example/a/b/c/e`],
  },
];

describe('keys put in key order or in any other order make the same copy', () => {
  for (const row of orderRows) {
    test(row.name, () => {
      const sorted = [...row.keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const nameOf = (key: string) => key.replace(/\/+/g, '/').replace(/\/$/, '');
      const names = [...new Set(row.keys.map(nameOf))];
      const build = (keys: string[], withDelete: boolean) => {
        const index = new RecordIndex(PREFIX, ['example.org.']);
        // Each name's revision and host follow its place in the row, not the order it is put in
        // (keys that differ only in empty labels are one name).
        const revisionOf = (key: string) => 10 + names.indexOf(nameOf(key));
        for (const key of keys) {
          index.put(key, A(`10.0.0.${revisionOf(key)}`), revisionOf(key));
          // A removal in the middle (a pruned path must not be reused), then the key back.
          if (withDelete && key === keys[Math.floor(keys.length / 2)]) {
            index.delete(key, 99);
            index.put(key, A(`10.0.0.${revisionOf(key)}`), revisionOf(key));
          }
        }
        return contents(index);
      };
      const expected = build([...row.keys].reverse(), false);
      assert.equal(expected.length, names.length);
      assert.deepEqual(build(sorted, false), expected);
      assert.deepEqual(build(sorted, true), expected);
      assert.deepEqual(build(row.keys, true), expected);
    });
  }
});
