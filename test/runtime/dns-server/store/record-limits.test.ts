// The limits of the in-memory copy, pure: the checks row by row, then what the index keeps and
// skips for each hostile shape, then the log budget of the skip report.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import {
  DEFAULT_RECORD_LIMITS,
  entriesSkip,
  keyTailSkip,
  namePathSkip,
  recordLimits,
  valueSizeSkip,
  type RecordLimits,
  type SkipReason,
} from '../../../../src/runtime/dns-server/store/record-limits.ts';
import { encodeSnapshot, RecordSnapshot } from '../../../../src/runtime/dns-server/store/record-snapshot.ts';
import { SkipReport } from '../../../../src/runtime/dns-server/store/skip-report.ts';
import { tempDir } from '../../../support/temp-dir.ts';

const labels = (n: number, label = 'a') => Array.from({ length: n }, () => label);

describe('name limits (RFC 1035: 255 octets a name, 63 a label)', () => {
  const rows: { name: string; path: string[]; want: SkipReason | undefined }[] = [
    { name: 'an ordinary name', path: ['org', 'example', 'www'], want: undefined },
    { name: 'the prefix itself (the root)', path: [], want: undefined },
    { name: 'a 63-octet label', path: ['org', 'x'.repeat(63)], want: undefined },
    { name: 'a 64-octet label', path: ['org', 'x'.repeat(64)], want: 'label_too_long' },
    { name: 'a label of 32 two-octet characters (64 octets)', path: ['org', 'é'.repeat(32)], want: 'label_too_long' },
    { name: '127 one-octet labels: 255 octets, the most there is', path: labels(127), want: undefined },
    { name: '128 one-octet labels: 257 octets', path: labels(128), want: 'name_too_long' },
    {
      name: '127 labels under example.org: 263 octets',
      path: ['org', 'example', ...labels(125)],
      want: 'name_too_long',
    },
    { name: 'four 63-octet labels: 257 octets', path: labels(4, 'x'.repeat(63)), want: 'name_too_long' },
    {
      name: 'three 63-octet labels and one of 61: 255 octets',
      path: [...labels(3, 'x'.repeat(63)), 'x'.repeat(61)],
      want: undefined,
    },
  ];
  for (const row of rows) {
    test(row.name, () => assert.equal(namePathSkip(row.path)?.reason, row.want));
  }
});

describe('key length before splitting', () => {
  const rows = [
    { name: '1,020 characters may still be a name (empty labels)', chars: 1020, want: undefined },
    { name: '1,021 characters are not', chars: 1021, want: 'name_too_long' },
  ];
  for (const row of rows) test(row.name, () => assert.equal(keyTailSkip(row.chars)?.reason, row.want));
});

describe('value size', () => {
  const limits: RecordLimits = { maxValueBytes: 100, maxEntriesPerName: 10 };
  const rows = [
    { name: 'at the limit', bytes: 100, want: undefined },
    { name: 'one byte over', bytes: 101, want: 'value_too_large' },
    { name: 'default: 65,535 bytes (the largest DNS message)', bytes: 65_535, limits: DEFAULT_RECORD_LIMITS },
    {
      name: 'default: 1 MiB',
      bytes: 1 << 20,
      limits: DEFAULT_RECORD_LIMITS,
      want: 'value_too_large',
    },
  ];
  for (const row of rows) {
    test(row.name, () => assert.equal(valueSizeSkip(row.bytes, row.limits ?? limits)?.reason, row.want));
  }
});

describe('entries per name', () => {
  const limits: RecordLimits = { maxValueBytes: 100, maxEntriesPerName: 3 };
  const rows = [
    { name: 'a name holding 2 takes a third', stored: 2, want: undefined },
    { name: 'a name holding 3 takes no fourth', stored: 3, want: 'too_many_entries' },
  ];
  for (const row of rows) test(row.name, () => assert.equal(entriesSkip(row.stored, limits)?.reason, row.want));
});

describe('configured limits', () => {
  const rows = [
    { name: 'none configured: the defaults', input: undefined, want: DEFAULT_RECORD_LIMITS },
    {
      name: 'one field configured: the other keeps its default',
      input: { maxEntriesPerName: 10 },
      want: { maxValueBytes: 65_535, maxEntriesPerName: 10 },
    },
    {
      name: 'both configured',
      input: { maxValueBytes: 1024, maxEntriesPerName: 10 },
      want: { maxValueBytes: 1024, maxEntriesPerName: 10 },
    },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(recordLimits(row.input), row.want));
});

/** One put sequence, then what the index answers and skips. */
interface IndexRow {
  name: string;
  limits?: RecordLimits;
  zones?: string[];
  /** [key, value] puts, or [key] deletes, in order (mod revision = position + 1). */
  ops: ([string, string | Uint8Array] | [string])[];
  /** Entries expected at a name's labels (leftmost first). */
  entries?: [string[], number][];
  skipped: Partial<Record<SkipReason, number>>;
}

const small: RecordLimits = { maxValueBytes: 64, maxEntriesPerName: 3 };
const host = (i: number) => JSON.stringify({ host: `10.0.0.${i}` });
const under = (name: string, n: number) =>
  Array.from({ length: n }, (_, i): [string, string] => [`/skydns/org/example/${name}/id${i}`, host(i)]);

describe('the index keeps what fits and skips the rest', () => {
  const rows: IndexRow[] = [
    {
      name: 'a value over the size limit is skipped, as text or as bytes',
      limits: small,
      ops: [
        ['/skydns/org/example/ok', host(1)],
        ['/skydns/org/example/big', JSON.stringify({ host: '10.0.0.1', text: 'x'.repeat(100) })],
        ['/skydns/org/example/bytes', Buffer.from(JSON.stringify({ text: 'y'.repeat(100) }))],
      ],
      entries: [
        [['ok', 'example', 'org'], 1],
        [['big', 'example', 'org'], 0],
      ],
      skipped: { value_too_large: 2 },
    },
    {
      name: 'a stored value that grows over the limit is removed',
      limits: small,
      ops: [
        ['/skydns/org/example/www', host(1)],
        ['/skydns/org/example/www', JSON.stringify({ text: 'z'.repeat(100) })],
      ],
      entries: [[['www', 'example', 'org'], 0]],
      skipped: { value_too_large: 1 },
    },
    {
      name: 'entries over the per-name limit are skipped, the first ones kept',
      limits: small,
      ops: [...under('big', 5), ['/skydns/org/example/other', host(9)]],
      entries: [
        [['big', 'example', 'org'], 3],
        [['other', 'example', 'org'], 1],
      ],
      skipped: { too_many_entries: 2 },
    },
    {
      name: 'a full name still takes new values for its entries',
      limits: small,
      ops: [...under('big', 3), ['/skydns/org/example/big/id0', host(7)]],
      entries: [[['big', 'example', 'org'], 3]],
      skipped: {},
    },
    {
      name: 'a deleted entry makes room; a skipped key that is deleted is no longer skipped',
      limits: small,
      ops: [
        ...under('big', 4),
        ['/skydns/org/example/big/id3'],
        ['/skydns/org/example/big/id0'],
        ['/skydns/org/example/big/new', host(8)],
      ],
      entries: [[['big', 'example', 'org'], 3]],
      skipped: {},
    },
    {
      name: 'one label below a zone apex are names, not entries: no limit there',
      limits: small,
      zones: ['example.org.'],
      ops: Array.from({ length: 5 }, (_, i): [string, string] => [`/skydns/org/example/n${i}`, host(i)]),
      entries: [[['n4', 'example', 'org'], 1]],
      skipped: {},
    },
    {
      name: 'a name over 255 octets and a label over 63 are skipped; their neighbours served',
      ops: [
        [`/skydns/org/example/${labels(125).join('/')}`, host(1)],
        [`/skydns/org/example/${'x'.repeat(64)}`, host(2)],
        [`/skydns/org/example/${'/'.repeat(2000)}w`, host(3)],
        ['/skydns/org/example/www', host(4)],
      ],
      entries: [[['www', 'example', 'org'], 1]],
      skipped: { name_too_long: 2, label_too_long: 1 },
    },
    {
      name: 'undecodable values are skipped with their own reason',
      ops: [
        ['/skydns/org/example/bad', '{'],
        ['/skydns/org/example/www', host(1)],
      ],
      entries: [[['www', 'example', 'org'], 1]],
      skipped: { undecodable: 1 },
    },
    {
      name: 'a skipped key that later decodes within the limits is stored',
      limits: small,
      ops: [
        ['/skydns/org/example/www', JSON.stringify({ text: 'z'.repeat(100) })],
        ['/skydns/org/example/www', host(1)],
      ],
      entries: [[['www', 'example', 'org'], 1]],
      skipped: {},
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      const index = new RecordIndex('/skydns', row.zones ?? ['example.org.'], row.limits ?? DEFAULT_RECORD_LIMITS);
      row.ops.forEach((op, i) => (op.length === 2 ? index.put(op[0], op[1], i + 1) : index.delete(op[0], i + 1)));
      for (const [name, count] of row.entries ?? []) {
        const node = index.find(name);
        const here = (node?.stored ? 1 : 0) + [...(node?.children?.values() ?? [])].filter((c) => c.stored).length;
        assert.equal(here, count, `entries of ${name.join('.')}`);
      }
      const skipped = Object.fromEntries([...index.skippedByReason].filter(([, n]) => n > 0));
      assert.deepEqual(skipped, row.skipped);
      assert.equal(
        index.skippedCount,
        Object.values(row.skipped).reduce((a, b) => a + b, 0),
      );
    });
  }
});

describe('the skip report: every key counted, a budget of log lines per reason, the rest summed up', () => {
  const setup = (linesPerWindow: number) => {
    const lines: Record<string, unknown>[] = [];
    const counted: string[] = [];
    let now = 0;
    const report = new SkipReport({
      logger: createLogger('info', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
      count: (reason) => counted.push(reason),
      linesPerWindow,
      windowMs: 1000,
      now: () => now,
    });
    return { report, lines, counted, advance: (ms: number) => (now += ms) };
  };
  const skip = { reason: 'too_many_entries' as const, error: 'full' };

  test('within the budget: one line per key, naming it and the reason', () => {
    const { report, lines, counted } = setup(3);
    report.report('/skydns/a', skip);
    report.report('/skydns/b', { reason: 'undecodable', error: 'not JSON' });
    assert.deepEqual(
      lines.map((l) => [l.msg, l.key, l.reason]),
      [
        ['skipping value over a limit', '/skydns/a', 'too_many_entries'],
        ['skipping undecodable value', '/skydns/b', 'undecodable'],
      ],
    );
    assert.deepEqual(counted, ['too_many_entries', 'undecodable']);
  });

  test('over the budget: counted, not logged, until flushed as one line by reason', () => {
    const { report, lines, counted } = setup(2);
    for (let i = 0; i < 1000; i++) report.report(`/skydns/k${i}`, skip);
    assert.equal(lines.length, 2);
    assert.equal(counted.length, 1000);
    report.flush();
    assert.equal(lines.length, 3);
    assert.deepEqual([lines[2]!.count, lines[2]!.byReason], [998, { too_many_entries: 998 }]);
    report.flush();
    assert.equal(lines.length, 3, 'nothing more to sum up');
  });

  test('a flood of one reason does not use up the budget of another', () => {
    const { report, lines } = setup(2);
    for (let i = 0; i < 100; i++) report.report(`/skydns/k${i}`, skip);
    report.report('/skydns/huge', { reason: 'value_too_large', error: 'big' });
    assert.deepEqual(
      lines.map((l) => l.key),
      ['/skydns/k0', '/skydns/k1', '/skydns/huge'],
    );
  });

  test('a new window sums up the last one and names keys again', () => {
    const { report, lines, advance } = setup(1);
    report.report('/skydns/a', skip);
    report.report('/skydns/b', skip);
    advance(999);
    report.roll();
    assert.equal(lines.length, 1, 'the window is not over');
    advance(1);
    report.report('/skydns/c', skip);
    assert.deepEqual(
      lines.map((l) => l.key ?? l.count),
      ['/skydns/a', 1, '/skydns/c'],
    );
  });
});

test('a snapshot read back applies the limits of the server that loads it', () => {
  const written = new RecordIndex('/skydns', ['example.org.']);
  under('big', 10).forEach(([key, value], i) => written.put(key, value, i + 1));
  written.revision = 10;
  const file = join(tempDir('limits'), 'records.snapshot');
  writeFileSync(file, encodeSnapshot(written, '', new Date()));
  const lines: string[] = [];
  const loaded = new RecordSnapshot({
    file,
    prefix: '/skydns',
    zones: ['example.org.'],
    logger: createLogger('info', {}, (line) => lines.push(line)),
    limits: small,
  }).load();
  assert.equal(loaded?.index.entryCount, 3);
  assert.equal(loaded?.index.skippedByReason.get('too_many_entries'), 7);
  assert.ok(lines.some((l) => l.includes('values over the limits skipped') && l.includes('"too_many_entries":7')));
});
