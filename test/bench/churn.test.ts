// The benchmark's churn writes: which name each write changes, and that no two writes of a run
// give the same address (so a probe that sees its address sees its own write, not an older one).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Packet } from 'dns2';
import { answersAddress, churnWrite } from '../../bench/dns/churn.ts';
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

describe('a probe sees its address in an answer', () => {
  const p = new Packet();
  p.header = new Packet.Header({ id: 7, qr: 1 });
  p.questions = [{ name: 'a.bench.example.org', type: 1, class: 1 } as Packet['questions'][number]];
  const questionEnd = p.toBuffer().length;
  const answer = (addresses: string[]) => {
    p.answers = addresses.map(
      (address) => ({ name: 'a.bench.example.org', type: 1, class: 1, ttl: 30, address }) as Packet['answers'][number],
    );
    return p.toBuffer();
  };
  const rows = [
    { name: 'the address alone', addresses: ['10.250.1.2'], want: true },
    { name: 'among the name’s other addresses', addresses: ['10.0.0.1', '10.250.1.2', '10.0.0.2'], want: true },
    { name: 'only older addresses', addresses: ['10.250.1.1', '10.250.2.2'], want: false },
    { name: 'no answer', addresses: [], want: false },
  ];
  for (const row of rows) {
    test(row.name, () => assert.equal(answersAddress(answer(row.addresses), '10.250.1.2', questionEnd), row.want));
  }
});
