// The order of A and AAAA records end to end: a real etcdns server on a real etcd with
// `--answer-rotation round-robin --answer-prefer 127.0.2.0/24,127.0.3.0/24`, asked by the real
// dig from different loopback source addresses (-b), over UDP and TCP. Rotation over many
// answers: every rotation appears, evenly within a bound, and no other order; the first answer of
// a name (uncached) starts at a random rotation and the next (cached) one step further; prefer:
// each client gets the record of its own network first, cached or not; other types never move.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dig, digRepeated, type DigResult } from '../../../support/dig.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { stopAll } from '../../../support/process.ts';

const ROTATED = ['10.1.0.1', '10.2.0.1', '10.3.0.1'];
const ROTATED6 = ['2001:db8::1', '2001:db8::2', '2001:db8::3'];
/** A name with one address in each client site and one in neither. */
const SITES = ['192.0.2.10', '127.0.2.10', '127.0.3.10'];
const FRESH_NAMES = 90;

let server: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  const client = etcd.client();
  const put = (key: string, value: object) => client.put(`/skydns/org/example/${key}`).value(JSON.stringify(value));
  for (const [i, host] of ROTATED.entries()) await put(`www/a${i}`, { host });
  for (const [i, host] of ROTATED6.entries()) await put(`v6/a${i}`, { host });
  for (const [i, text] of ['one', 'two', 'three'].entries()) await put(`txt/t${i}`, { text });
  for (let i = 0; i < 3; i++) await put(`mail/m${i}`, { host: `mx${i}.example.org`, mail: true });
  for (let n = 0; n < FRESH_NAMES; n++)
    for (const [i, host] of ROTATED.entries()) await put(`fresh${n}/a${i}`, { host });
  for (const row of PREFER_ROWS) for (const [i, host] of SITES.entries()) await put(`${row.name}/s${i}`, { host });
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org'],
    args: ['--answer-rotation', 'round-robin', '--answer-prefer', '127.0.2.0/24,127.0.3.0/24'],
  });
});
after(stopAll);

const data = (r: DigResult, type: string) => r.answer.filter((a) => a.type === type).map((a) => a.data);

/** Which rotation of `stored` an order is (0: as stored), or -1 when it is none. */
function rotationOf(order: string[], stored: string[]): number {
  const k = stored.indexOf(order[0]!);
  return order.every((d, i) => d === stored[(k + i) % stored.length]) && order.length === stored.length ? k : -1;
}

// [case, name, type, stored order, transport]
const rotationRows: [string, string, string, string[], boolean][] = [
  ['three A records, UDP', 'www.example.org.', 'A', ROTATED, false],
  ['three A records, TCP', 'www.example.org.', 'A', ROTATED, true],
  ['three AAAA records, UDP', 'v6.example.org.', 'AAAA', ROTATED6, false],
  ['three AAAA records, TCP', 'v6.example.org.', 'AAAA', ROTATED6, true],
];

for (const [what, name, type, stored, tcp] of rotationRows) {
  test(`rotation over 300 answers, ${what}: every rotation, each a third within 25%, no other order`, async () => {
    const answers = await digRepeated({ port: server.port, name, type, tcp, extra: ['-b', '127.0.0.1'] }, 300);
    const counts = [0, 0, 0];
    for (const r of answers) {
      assert.equal(r.status, 'NOERROR', r.raw);
      const k = rotationOf(data(r, type), stored);
      assert.ok(k >= 0, `not a rotation of the stored order: ${data(r, type).join(' ')}`);
      counts[k]! += 1;
    }
    for (const c of counts) assert.ok(c >= 75 && c <= 125, `rotations seen ${counts.join('/')}`);
  });
}

test(`uncached then cached: ${FRESH_NAMES} fresh names start at random rotations, each next answer one step on`, async () => {
  const firsts = [0, 0, 0];
  for (let n = 0; n < FRESH_NAMES; n++) {
    const [first, second] = await digRepeated(
      { port: server.port, name: `fresh${n}.example.org.`, type: 'A', extra: ['-b', '127.0.0.1'] },
      2,
    );
    const k = rotationOf(data(first!, 'A'), ROTATED);
    assert.ok(k >= 0, first!.raw);
    firsts[k]! += 1;
    assert.equal(rotationOf(data(second!, 'A'), ROTATED), (k + 1) % 3, second!.raw);
  }
  // Binomial(90, 1/3): mean 30, standard deviation 4.5; 12..48 is four of them either side.
  for (const c of firsts) assert.ok(c >= 12 && c <= 48, `first rotations ${firsts.join('/')}`);
});

interface PreferRow {
  what: string;
  name: string;
  source: string;
  tcp: boolean;
  /** The address every answer starts with; undefined: none preferred, so it rotates. */
  first: string | undefined;
}

const PREFER_ROWS: PreferRow[] = [
  { what: 'a client in 127.0.2.0/24, UDP', name: 'site1', source: '127.0.2.1', tcp: false, first: '127.0.2.10' },
  { what: 'a client in 127.0.3.0/24, UDP', name: 'site2', source: '127.0.3.7', tcp: false, first: '127.0.3.10' },
  { what: 'a client in 127.0.2.0/24, TCP', name: 'site3', source: '127.0.2.1', tcp: true, first: '127.0.2.10' },
  { what: 'a client in 127.0.3.0/24, TCP', name: 'site4', source: '127.0.3.7', tcp: true, first: '127.0.3.10' },
  { what: 'a client in neither network, UDP', name: 'site5', source: '127.0.0.2', tcp: false, first: undefined },
  { what: 'a client in neither network, TCP', name: 'site6', source: '127.0.0.2', tcp: true, first: undefined },
];

for (const row of PREFER_ROWS) {
  test(`prefer: ${row.what}: ${row.first ?? 'no record'} first, uncached and cached`, async () => {
    // Each row's name is its own: the first answer is made afresh, the 29 after it come from the cache.
    const answers = await digRepeated(
      { port: server.port, name: `${row.name}.example.org.`, type: 'A', tcp: row.tcp, extra: ['-b', row.source] },
      30,
    );
    const firsts = new Set(answers.map((r) => data(r, 'A')[0]));
    for (const r of answers) assert.deepEqual([...data(r, 'A')].sort(), [...SITES].sort(), r.raw);
    if (row.first) return assert.deepEqual([...firsts], [row.first]);
    assert.equal(firsts.size, 3, `firsts ${[...firsts].join(' ')}`);
  });
}

test('prefer: the same cached answer, asked from one site then the other, starts with each one', async () => {
  const ask = (source: string) =>
    dig({ port: server.port, name: 'site1.example.org.', type: 'A', extra: ['-b', source] });
  for (let i = 0; i < 5; i++) {
    assert.equal(data(await ask('127.0.3.7'), 'A')[0], '127.0.3.10');
    assert.equal(data(await ask('127.0.2.1'), 'A')[0], '127.0.2.10');
  }
});

// [case, name, type]: records of other types keep one order in every answer.
const stillRows: [string, string, string][] = [
  ['TXT', 'txt.example.org.', 'TXT'],
  ['MX', 'mail.example.org.', 'MX'],
];

for (const [what, name, type] of stillRows) {
  test(`${what} records are never reordered`, async () => {
    const answers = await digRepeated({ port: server.port, name, type, extra: ['-b', '127.0.2.1'] }, 12);
    const orders = new Set(answers.map((r) => data(r, type).join(' | ')));
    assert.equal(data(answers[0]!, type).length, 3, answers[0]!.raw);
    assert.equal(orders.size, 1, [...orders].join('\n'));
  });
}
