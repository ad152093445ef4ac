// The comparison the interoperability test relies on: it must see every difference that
// matters (rcode, AA, records, TTLs, letter case, duplicates) and ignore order and SOA serials.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDig } from './dig-output.ts';
import { answerDifferences, comparable } from './dns-compare.ts';

const answer = (status: string, flags: string, lines: string[], authority: string[] = []) =>
  comparable(
    parseDig(`;; ->>HEADER<<- opcode: QUERY, status: ${status}, id: 1
;; flags: ${flags}; QUERY: 1, ANSWER: ${lines.length}, AUTHORITY: ${authority.length}, ADDITIONAL: 1

;; ANSWER SECTION:
${lines.join('\n')}

;; AUTHORITY SECTION:
${authority.join('\n')}

`),
  );

const base = answer('NOERROR', 'qr aa', [
  'www.example.org.\t60\tIN\tA\t10.0.0.1',
  'www.example.org.\t60\tIN\tA\t10.0.0.2',
]);
const soa = (serial: number) =>
  `example.org.\t30\tIN\tSOA\tns.dns.example.org. hostmaster.example.org. ${serial} 7200 1800 86400 30`;

test('differences that matter are reported, order and SOA serials are not', async (t) => {
  const cases = [
    {
      name: 'same records in another order',
      other: answer('NOERROR', 'qr aa', [
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
        'www.example.org.\t60\tIN\tA\t10.0.0.1',
      ]),
      want: [],
    },
    {
      name: 'another rcode',
      other: answer('NXDOMAIN', 'qr aa', [
        'www.example.org.\t60\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
      ]),
      want: ['rcode: ours NOERROR, theirs NXDOMAIN'],
    },
    {
      name: 'not authoritative',
      other: answer('NOERROR', 'qr', [
        'www.example.org.\t60\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
      ]),
      want: ['AA: ours true, theirs false'],
    },
    {
      name: 'another TTL',
      other: answer('NOERROR', 'qr aa', [
        'www.example.org.\t300\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
      ]),
      want: [
        'answer: only ours: www.example.org. 60 IN A 10.0.0.1',
        'answer: only theirs: www.example.org. 300 IN A 10.0.0.1',
      ],
    },
    {
      name: 'letter case of the owner name',
      other: answer('NOERROR', 'qr aa', [
        'WWW.example.org.\t60\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
      ]),
      want: [
        'answer: only ours: www.example.org. 60 IN A 10.0.0.1',
        'answer: only theirs: WWW.example.org. 60 IN A 10.0.0.1',
      ],
    },
    {
      name: 'a duplicate record',
      other: answer('NOERROR', 'qr aa', [
        'www.example.org.\t60\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.1',
        'www.example.org.\t60\tIN\tA\t10.0.0.2',
      ]),
      want: ['answer: ours has 2 records, theirs 3 (duplicates)'],
    },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(answerDifferences(base, c.other), c.want));

  await t.test('SOA serials are ignored, other SOA fields are not', () => {
    const a = answer('NXDOMAIN', 'qr aa', [], [soa(1)]);
    assert.deepEqual(answerDifferences(a, answer('NXDOMAIN', 'qr aa', [], [soa(1795380911)])), []);
    const otherMinimum = answer('NXDOMAIN', 'qr aa', [], [soa(1).replace(/ 30$/, ' 60')]);
    assert.equal(answerDifferences(a, otherMinimum).length, 2);
  });
});
