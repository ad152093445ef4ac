// The benchmark's churn writes: which name each write changes, and that no two writes of a run
// give the same address (so a probe that sees its address sees its own write, not an older one).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { churnWrite } from '../../bench/dns/churn.ts';
import { generateRecordSet, queryLines } from '../../bench/dns/record-set.ts';

const set = generateRecordSet(1000);
const queried = new Set(queryLines(set, 1000).map((l) => `${l.split(' ')[0]!.replace(/\.?$/, '.')}`));

describe('churn writes', () => {
  const rows = [
    { target: 'other' as const, inQueryFile: false },
    { target: 'queried' as const, inQueryFile: true },
  ];
  for (const row of rows) {
    test(`${row.target}: names ${row.inQueryFile ? 'the query file asks for' : 'outside the query file'}, keys below the name`, () => {
      for (let n = 0; n < 500; n++) {
        const w = churnWrite(set, '/skydns', row.target, n);
        if (row.target === 'other') assert.equal(queried.has(w.name), false, w.name);
        else
          assert.ok(
            set.names.some((x) => x.name === w.name),
            w.name,
          );
        assert.ok(w.key.startsWith('/skydns/org/example/bench/'), w.key);
        assert.equal(JSON.parse(w.value).host, w.address);
      }
    });
  }
  test('100,000 writes of a run use 100,000 distinct addresses', () => {
    const addresses = new Set<string>();
    for (let n = 0; n < 100_000; n++) addresses.add(churnWrite(set, '/skydns', 'other', n).address);
    assert.equal(addresses.size, 100_000);
  });
});
