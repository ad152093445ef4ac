// Response rate limiting: the pure accounting (prefixes, accounts, credit, slip) row by row, then
// the real server flooded over UDP from one loopback address while a client elsewhere and TCP
// from the flooding address are still answered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Packet } from 'dns2';
import {
  accountKey,
  clientPrefix,
  RATE_LIMIT_DEFAULTS,
  rateLimitSettings,
  ResponseRateLimiter,
  truncated,
  type RatedResponse,
} from '../../../src/runtime/dns-server/rate-limit.ts';
import { dig } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { stopAll } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { tool } from '../../support/tools.ts';

after(stopAll);

function reply(name: string, rcode: number): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 7, qr: 1, rcode });
  p.questions = [{ name, type: Packet.TYPE.A, class: Packet.CLASS.IN } as Packet['questions'][number]];
  if (rcode === 0)
    p.answers = [
      { name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 30, address: '10.0.0.1' } as Packet['answers'][number],
    ];
  return p.toBuffer();
}

/** Where a reply's one question ends (its name is uncompressed): what the dispatch knows of its query. */
function questionEnd(r: Buffer): number {
  let off = 12;
  while (r[off] !== 0) off += 1 + r[off]!;
  return off + 5;
}

/** What the dispatch charges a reply by: its rcode and question (lower-case wire bytes, type, class). */
function rated(r: Buffer): RatedResponse {
  return { rcode: r[3]! & 0x0f, question: r.toString('latin1', 12, questionEnd(r)).toLowerCase() };
}

describe('client prefixes', () => {
  const rows = [
    { address: '192.0.2.1', same: '192.0.2.254', other: '192.0.3.1' },
    { address: '2001:db8:1:2::1', same: '2001:db8:1:ff::9', other: '2001:db8:1:100::1' },
    { address: '::ffff:192.0.2.1', same: '192.0.2.77', other: '192.0.3.1' },
  ];
  for (const row of rows) {
    test(`${row.address}: one prefix with ${row.same}, another than ${row.other}`, () => {
      const p = (a: string) => clientPrefix(a, RATE_LIMIT_DEFAULTS);
      assert.equal(p(row.address), p(row.same));
      assert.notEqual(p(row.address), p(row.other));
    });
  }
});

describe('accounts', () => {
  const rows = [
    { what: 'answers count per question', a: reply('a.example.org', 0), b: reply('b.example.org', 0), same: false },
    { what: 'the question is case-blind', a: reply('a.example.org', 0), b: reply('A.Example.org', 0), same: true },
    {
      what: 'NXDOMAIN counts per prefix (random names share it)',
      a: reply('x1.example.org', 3),
      b: reply('x2.example.org', 3),
      same: true,
    },
    {
      what: 'an answer and an NXDOMAIN are separate',
      a: reply('a.example.org', 0),
      b: reply('a.example.org', 3),
      same: false,
    },
  ];
  for (const row of rows) {
    test(row.what, () => assert.equal(accountKey('p', rated(row.a)) === accountKey('p', rated(row.b)), row.same));
  }
});

describe('credit, window and slip', () => {
  const settings = { ...RATE_LIMIT_DEFAULTS, responsesPerSecond: 4, windowSeconds: 2, slip: 2 };
  const rows: { what: string; times: number[]; want: string }[] = [
    { what: 'a burst up to the rate is sent', times: [0, 0, 0, 0], want: 'send send send send' },
    {
      what: 'past it, drop and slip alternate (slip 2)',
      times: [0, 0, 0, 0, 0, 0, 0, 0],
      want: 'send send send send drop slip drop slip',
    },
    { what: 'credit comes back with time', times: [0, 0, 0, 0, 0, 1], want: 'send send send send drop send' },
    {
      what: 'a debt is paid before anything is sent again',
      times: [0, 0, 0, 0, 0, 0, 0, 0, 0.5],
      want: 'send send send send drop slip drop slip drop',
    },
  ];
  for (const row of rows) {
    test(row.what, () => {
      const limiter = new ResponseRateLimiter(settings);
      const got = row.times.map((t) => limiter.check('192.0.2.1', rated(reply('a.example.org', 0)), t));
      assert.equal(got.join(' '), row.want);
    });
  }
  test('another prefix has its own account', () => {
    const limiter = new ResponseRateLimiter({ ...settings, responsesPerSecond: 1 });
    assert.equal(limiter.check('192.0.2.1', rated(reply('a.example.org', 0)), 0), 'send');
    assert.equal(limiter.check('192.0.2.1', rated(reply('a.example.org', 0)), 0), 'drop');
    assert.equal(limiter.check('198.51.100.1', rated(reply('a.example.org', 0)), 0), 'send');
  });
  test('a slipped response is the question alone with TC set', () => {
    const r = reply('a.example.org', 0);
    const t = Packet.parse(truncated(r, questionEnd(r)));
    assert.equal(t.header.tc, 1);
    assert.equal(t.questions[0]!.name, 'a.example.org');
    assert.equal(t.answers.length, 0);
  });
});

describe('defaults by exposure', () => {
  const rows = [
    { config: { exposure: 'external' as const }, want: 20 },
    { config: { exposure: 'internal' as const }, want: undefined },
    { config: {}, want: undefined },
    { config: { rateLimit: { responsesPerSecond: 0 }, exposure: 'external' as const }, want: undefined },
    { config: { rateLimit: { responsesPerSecond: 50 } }, want: 50 },
  ];
  for (const row of rows) {
    test(`${JSON.stringify(row.config)} -> ${row.want ?? 'off'}`, () => {
      assert.equal(rateLimitSettings(row.config)?.responsesPerSecond, row.want);
    });
  }
});

describe('a UDP flood from one address on the real server', () => {
  let etcd: EtcdHandle;
  let server: EtcdnsServerHandle;
  before(async () => {
    etcd = await startEtcd();
    await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
    server = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: ['example.org'],
      args: ['--exposure', 'external'],
    });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('limits the flooding prefix; other clients and TCP are answered', async () => {
    const queries = join(tempDir('rrl'), 'queries.txt');
    writeFileSync(queries, 'www.example.org A\n');
    const flood = promisify(execFile)(
      tool('dnsperf'),
      [
        '-s',
        '127.0.0.1',
        '-p',
        String(server.port),
        '-a',
        '127.0.0.2',
        '-d',
        queries,
        '-l',
        '4',
        '-Q',
        '2000',
        '-q',
        '5000',
        '-t',
        '1',
      ],
      { timeout: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 1000));
    const others = [];
    for (let i = 0; i < 10; i++) {
      others.push(await dig({ port: server.port, name: 'www.example.org', extra: ['-b', '127.0.1.3'] }));
      await new Promise((r) => setTimeout(r, 100));
    }
    const overTcp = await dig({ port: server.port, name: 'www.example.org', tcp: true, extra: ['-b', '127.0.0.2'] });
    const { stdout } = await flood;
    const page = (await server.http('/metrics')).body;
    const dropped = metricSum(page, 'etcdns_dns_rate_limited_total', 'action="dropped"');
    const slipped = metricSum(page, 'etcdns_dns_rate_limited_total', 'action="slipped"');
    const sent = Number(/Queries sent:\s+(\d+)/.exec(stdout)?.[1]);
    console.log(`flood: ${sent} queries, ${dropped} responses dropped, ${slipped} slipped (TC)`);
    assert.ok(sent > 4000, stdout);
    // 20/s for ~4 s, plus the first burst: nearly everything else is limited, half of it slipped.
    assert.ok(dropped > sent * 0.4, `dropped ${dropped} of ${sent}`);
    assert.ok(Math.abs(slipped - dropped) <= 1, `slip 2: slipped ${slipped}, dropped ${dropped}`);
    for (const r of others) assert.deepEqual([r.status, r.answer[0]?.data], ['NOERROR', '10.0.0.1']);
    assert.deepEqual([overTcp.status, overTcp.answer[0]?.data], ['NOERROR', '10.0.0.1']);
  });
});
