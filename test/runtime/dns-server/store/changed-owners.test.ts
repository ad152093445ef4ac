// Which names an IXFR resolves: the names whose keys differ between two copies of a zone, and the
// names above them up to the apex; 'all' when a zone cut changed. One row per kind of change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedOwners } from '../../../../src/runtime/dns-server/store/changed-owners.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';

const ZONE = 'example.org.';
type Keys = Record<string, number>;
const index = (keys: Keys) =>
  RecordIndex.fromSnapshot(
    '/skydns',
    [ZONE, 'sub.example.org.'],
    Object.entries(keys).map(([key, modRevision]) => ({
      key: `/skydns/${key}`,
      value: JSON.stringify({ host: '10.0.0.1' }),
      modRevision,
    })),
    100,
  );

const BASE: Keys = { 'org/example/www': 2, 'org/example/svc/a/x1': 3, 'org/example/svc/a/x2': 4, 'org/other/y': 5 };

const rows: { name: string; after: Keys; want: string[] | 'all' }[] = [
  { name: 'nothing changed: no name', after: BASE, want: [] },
  {
    name: 'a key added: its name and the names above it',
    after: { ...BASE, 'org/example/new/deep': 9 },
    want: ['deep.new.example.org.', 'new.example.org.', 'example.org.'],
  },
  {
    name: 'a key rewritten (new mod revision)',
    after: { ...BASE, 'org/example/svc/a/x1': 9 },
    want: ['x1.a.svc.example.org.', 'a.svc.example.org.', 'svc.example.org.', 'example.org.'],
  },
  {
    name: 'a key deleted',
    after: { 'org/example/svc/a/x1': 3, 'org/example/svc/a/x2': 4, 'org/other/y': 5 },
    want: ['www.example.org.', 'example.org.'],
  },
  { name: 'a key outside the zone changed: no name', after: { ...BASE, 'org/other/y': 9 }, want: [] },
  {
    name: 'a wildcard added: the "*" name',
    after: { ...BASE, 'org/example/wild/*': 9 },
    want: ['*.wild.example.org.', 'wild.example.org.', 'example.org.'],
  },
  { name: 'a name server (zone cut) added: all', after: { ...BASE, 'org/example/dns/ns/ns1': 9 }, want: 'all' },
];

for (const row of rows) {
  test(row.name, () => {
    const got = changedOwners(index(BASE), index(row.after), ZONE);
    assert.deepEqual(got === 'all' ? 'all' : [...got].sort(), row.want === 'all' ? 'all' : [...row.want].sort());
  });
}
