// The versions of a hub's merged zone a process transferred (answer/zone-versions.ts),
// table-driven: the difference from a version to the latest, condensed (RFC 1995 4), which
// versions are kept, and which serials are not known.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ZoneVersions } from '../../../../src/runtime/dns-server/answer/zone-versions.ts';
import { TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';

const ZONE = 'example.org.';
/** "h1" is h1.example.org. A 10.0.0.1 TTL 300; "h1/60" the same with TTL 60. */
const rr = (spec: string): ResourceRecord => {
  const [host, ttl] = spec.split('/');
  return { name: `${host}.${ZONE}`, ttl: Number(ttl ?? 300), type: TYPE.A, address: `10.0.0.${host!.slice(1)}` };
};
const show = (rs: readonly ResourceRecord[]) =>
  rs.map((r) => `${r.name.split('.')[0]}${r.ttl === 300 ? '' : `/${r.ttl}`}`).sort();

/** Four versions, one record replaced at each step. */
const FOUR_VERSIONS: [number, string[]][] = [
  [10, ['h0', 'h1', 'h2', 'h3']],
  [11, ['h0', 'h1', 'h2', 'h4']],
  [12, ['h0', 'h1', 'h2', 'h5']],
  [13, ['h0', 'h1', 'h2', 'h6']],
];

const rows: {
  name: string;
  /** Versions recorded in this order: serial and records. */
  versions: [number, string[]][];
  kept?: number;
  from: number;
  expect: { serial: number; deleted: string[]; added: string[] } | 'not known';
}[] = [
  {
    name: 'one step: the record added',
    versions: [
      [10, ['h0', 'h1']],
      [11, ['h0', 'h1', 'h2']],
    ],
    from: 10,
    expect: { serial: 11, deleted: [], added: ['h2'] },
  },
  {
    name: 'one step: a record gone and one changed (TTL)',
    versions: [
      [10, ['h0', 'h1', 'h2']],
      [11, ['h0/60', 'h2']],
    ],
    from: 10,
    expect: { serial: 11, deleted: ['h0', 'h1'], added: ['h0/60'] },
  },
  {
    name: 'two steps condensed: a record added then deleted is in neither list',
    versions: [
      [10, ['h0', 'h7', 'h8']],
      [11, ['h0', 'h1', 'h7', 'h8']],
      [12, ['h0', 'h2', 'h7', 'h8']],
    ],
    from: 10,
    expect: { serial: 12, deleted: [], added: ['h2'] },
  },
  {
    name: 'two steps condensed: a record deleted then added back is in neither list',
    versions: [
      [10, ['h0', 'h1']],
      [11, ['h0']],
      [12, ['h0', 'h1']],
    ],
    from: 10,
    expect: { serial: 12, deleted: [], added: [] },
  },
  {
    name: 'from a version between: only the later steps',
    versions: [
      [10, ['h0', 'h7', 'h8']],
      [11, ['h0', 'h1', 'h7', 'h8']],
      [12, ['h0', 'h2', 'h7', 'h8']],
    ],
    from: 11,
    expect: { serial: 12, deleted: ['h1'], added: ['h2'] },
  },
  {
    name: 'from the latest: no difference',
    versions: [
      [10, ['h0']],
      [11, ['h1']],
    ],
    from: 11,
    expect: { serial: 11, deleted: [], added: [] },
  },
  {
    name: 'a serial never transferred: not known',
    versions: [
      [10, ['h0']],
      [12, ['h1']],
    ],
    from: 11,
    expect: 'not known',
  },
  {
    name: 'a zone never transferred: not known',
    versions: [],
    from: 10,
    expect: 'not known',
  },
  {
    name: 'a version older than the latest, recorded after it (two walks at once): not kept',
    versions: [
      [10, ['h0']],
      [12, ['h2']],
      [11, ['h1']],
    ],
    from: 10,
    expect: { serial: 12, deleted: ['h0'], added: ['h2'] },
  },
  {
    name: 'the same serial recorded twice: one version',
    versions: [
      [10, ['h0']],
      [10, ['h0']],
      [11, ['h1']],
    ],
    from: 10,
    expect: { serial: 11, deleted: ['h0'], added: ['h1'] },
  },
  {
    name: 'more versions than kept: the oldest is dropped',
    versions: FOUR_VERSIONS,
    kept: 2,
    from: 10,
    expect: 'not known',
  },
  {
    name: 'more versions than kept: the ones kept still answer',
    versions: FOUR_VERSIONS,
    kept: 2,
    from: 11,
    expect: { serial: 13, deleted: ['h4'], added: ['h6'] },
  },
  {
    name: 'differences holding more records than the zone: the oldest dropped (the whole zone is smaller)',
    versions: [
      [10, ['h0', 'h1']],
      [11, ['h2', 'h3']],
      [12, ['h2', 'h4']],
    ],
    from: 10,
    expect: 'not known',
  },
  {
    name: 'a serial past 2^32: asked as on the wire',
    versions: [
      [2 ** 32 + 5, ['h0']],
      [2 ** 32 + 6, ['h0', 'h1']],
    ],
    from: 5,
    expect: { serial: 2 ** 32 + 6, deleted: [], added: ['h1'] },
  },
];

describe('ZoneVersions', () => {
  for (const row of rows) {
    test(row.name, () => {
      const versions = new ZoneVersions(row.kept);
      for (const [serial, records] of row.versions) versions.record(ZONE, serial, records.map(rr));
      const got = versions.since(ZONE, row.from);
      if (row.expect === 'not known') assert.equal(got, undefined);
      else {
        assert.ok(got);
        assert.deepEqual({ serial: got.serial, deleted: show(got.deleted), added: show(got.added) }, row.expect);
      }
    });
  }

  test('zones are kept apart', () => {
    const versions = new ZoneVersions();
    versions.record(ZONE, 10, [rr('h0')]);
    versions.record('example.com.', 11, [rr('h1')]);
    assert.equal(versions.since(ZONE, 11), undefined);
    assert.deepEqual(versions.since('example.com.', 11), { serial: 11, deleted: [], added: [] });
  });
});
