// Zone transfers out, against real peers: dig AXFR and IXFR (with and without TSIG, from a listed
// and an unlisted address) and the real Knot as a TSIG-authenticated secondary of an etcdns zone,
// told of changes by NOTIFY.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { dig } from '../../../support/dig.ts';
import { digAxfr } from '../../../support/dig-axfr.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { freePort } from '../../../support/ports.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from '../../../support/knot-secondary.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { transferArgs, writeKeyFile } from '../../../support/tsig-key.ts';

after(stopAll);

const SECRET = Buffer.from('etcdns zone transfer test secret!').toString('base64');
const KEY = `hmac-sha256:xfr.example.org:${SECRET}`;
const WRONG_SECRET = `hmac-sha256:xfr.example.org:${Buffer.from('not the secret at all, no no no').toString('base64')}`;

const RECORDS: Record<string, object> = {
  '/skydns/org/example/www': { host: '10.0.0.1' },
  '/skydns/org/example/www6': { host: '2001:db8::1' },
  '/skydns/org/example/multi/a1': { host: '10.0.0.2' },
  '/skydns/org/example/multi/a2': { host: '10.0.0.3' },
  '/skydns/org/example/alias': { host: 'www.example.org' },
  '/skydns/org/example/txt': { text: 'hello world' },
  '/skydns/org/example/mail': { host: 'mx.example.net', mail: true, priority: 10 },
  '/skydns/org/example/_tcp/_http/svc': { host: 'www.example.org', port: 8080 },
  '/skydns/org/example/wild/*': { host: '10.0.0.9' },
  '/skydns/org/example/dns/ns/ns1': { host: '127.0.0.1' },
};

/** One comparable line per record: owner, type, data (TTLs are the server's either way). */
function line(r: { name: string; type: string; data: string }): string {
  return `${r.name.toLowerCase()} ${r.type} ${r.data}`;
}

describe('zone transfers out (AXFR over TCP, TSIG)', () => {
  /** Every type the server answers from records: the transfer holds exactly these answers. */
  const TYPES = ['SOA', 'NS', 'A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR'];

  let etcd: EtcdHandle;
  let server: EtcdnsServerHandle;
  /** Knot's port, known before it starts, so the server can NOTIFY it. */
  let knotPort: number;

  before(async () => {
    etcd = await startEtcd();
    knotPort = await freePort();
    const kv = etcd.client();
    for (const [key, value] of Object.entries(RECORDS)) await kv.put(key).value(JSON.stringify(value));
    const dir = tempDir('transfer');
    const keyFile = writeKeyFile(dir, { name: 'xfr.example.org', algorithm: 'hmac-sha256', secret: SECRET });
    server = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: ['example.org'],
      args: transferArgs([knotPort], keyFile),
    });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('a signed AXFR from a listed address: SOA first and last, every record once', async () => {
    const { records: all, raw } = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
    assert.doesNotMatch(raw, /verify|failure/i);
    const records = all.filter((r) => r.type !== 'TSIG');
    const soas = records.filter((r) => r.type === 'SOA');
    assert.equal(records[0]?.type, 'SOA', raw);
    assert.equal(records.at(-1)?.type, 'SOA', raw);
    assert.equal(soas.length, 2, raw);
    assert.match(raw, /XFR size: \d+ records/);
    const body = records.filter((r) => r.type !== 'SOA' && r.type !== 'TSIG').map(line);
    assert.equal(new Set(body).size, body.length, `a record twice:\n${raw}`);
    for (const want of [
      'www.example.org. A 10.0.0.1',
      'multi.example.org. A 10.0.0.3',
      'txt.example.org. TXT "hello world"',
    ])
      assert.ok(body.includes(want), `${want} missing:\n${raw}`);
    assert.ok(body.includes('*.wild.example.org. A 10.0.0.9'), `wildcard missing:\n${raw}`);
  });

  test('the AXFR equals, as a record set, what the server answers for each name', async () => {
    const { records, raw } = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
    const transferred = new Set(records.filter((r) => r.type !== 'TSIG').map(line));
    const asked = new Set<string>();
    const names = new Set(records.map((r) => r.name.toLowerCase()));
    for (const name of names) {
      for (const type of TYPES) {
        const r = await dig({ port: server.port, name, type });
        for (const a of r.answer) if (a.type === type && a.name.toLowerCase() === name) asked.add(line(a));
      }
    }
    assert.deepEqual([...transferred].sort(), [...asked].sort(), raw);
  });

  test('IXFR from a serial whose changes outgrow the zone gets the whole zone (RFC 1995 4)', async () => {
    const axfr = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
    const ixfr = await digAxfr({ port: server.port, zone: 'example.org', key: KEY, type: 'IXFR=1' });
    const lines = (rs: typeof axfr.records) => rs.filter((r) => r.type !== 'TSIG').map(line);
    assert.deepEqual(lines(ixfr.records), lines(axfr.records), ixfr.raw);
    assert.doesNotMatch(ixfr.raw, /verify|failure|failed/i);
  });

  test('IXFR from the current serial is one SOA; from an older one, only the changes since', async () => {
    const kv = etcd.client();
    const serial = async () =>
      Number((await dig({ port: server.port, name: 'example.org', type: 'SOA' })).answer[0]!.data.split(' ')[2]);
    const before = await serial();
    const current = await digAxfr({ port: server.port, zone: 'example.org', key: KEY, type: `IXFR=${before}` });
    assert.deepEqual(
      current.records.filter((r) => r.type !== 'TSIG').map((r) => r.type),
      ['SOA'],
      current.raw,
    );

    await kv.put('/skydns/org/example/ixfr-added').value(JSON.stringify({ host: '10.0.0.55' }));
    await kv.delete().key('/skydns/org/example/www6');
    await waitFor('both changes answered', async () => {
      const r = await dig({ port: server.port, name: 'www6.example.org', type: 'AAAA' });
      return r.status === 'NXDOMAIN' ? true : undefined;
    });
    const after = await serial();
    assert.ok(after > before, `serial ${before} -> ${after}`);
    const ixfr = await digAxfr({ port: server.port, zone: 'example.org', key: KEY, type: `IXFR=${before}` });
    const seq = ixfr.records.filter((r) => r.type !== 'TSIG').map(line);
    const soa = (n: number) => new RegExp(`^example\\.org\\. SOA \\S+ \\S+ ${n} `);
    // RFC 1995 4: new SOA, old SOA, deletions, new SOA, additions, new SOA. A plain address name
    // has its address and nothing else (no SRV: it is not a service name).
    assert.equal(seq.length, 6, ixfr.raw);
    assert.match(seq[0]!, soa(after));
    assert.match(seq[1]!, soa(before));
    assert.deepEqual(seq.slice(2, 3), ['www6.example.org. AAAA 2001:db8::1']);
    assert.match(seq[3]!, soa(after));
    assert.deepEqual(seq.slice(4, 5), ['ixfr-added.example.org. A 10.0.0.55']);
    assert.match(seq[5]!, soa(after));
    assert.doesNotMatch(ixfr.raw, /verify|failure|failed/i);
    const page = (await server.http('/metrics')).body;
    assert.ok(metricSum(page, 'etcdns_dns_transfers_served_total', 'form="ixfr"') >= 1, page);
    assert.ok(metricSum(page, 'etcdns_dns_transfers_served_total', 'form="soa"') >= 1, page);
    const readyz = (await server.http('/readyz')).body;
    assert.match(readyz, new RegExp(`transferred to 127\\.0\\.0\\.1 serial ${after} \\(ixfr\\)`));
  });

  test('IXFR from a serial whose etcd history is compacted gets the whole zone', async () => {
    const kv = etcd.client();
    const soa = await dig({ port: server.port, name: 'example.org', type: 'SOA' });
    const before = Number(soa.answer[0]!.data.split(' ')[2]);
    const put = await kv
      .put('/skydns/org/example/compacted')
      .value(JSON.stringify({ host: '10.0.0.56' }))
      .exec();
    await kv.delete().key('/skydns/org/example/compacted');
    // Everything before the put's revision is gone from etcd's history.
    await kv.kv.compact({ revision: put.header.revision, physical: true });
    await waitFor('the delete answered', async () => {
      const r = await dig({ port: server.port, name: 'compacted.example.org', type: 'A' });
      return r.status === 'NXDOMAIN' ? true : undefined;
    });
    const axfr = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
    const ixfr = await digAxfr({ port: server.port, zone: 'example.org', key: KEY, type: `IXFR=${before}` });
    const lines = (rs: typeof axfr.records) => rs.filter((r) => r.type !== 'TSIG').map(line);
    assert.deepEqual(lines(ixfr.records), lines(axfr.records), ixfr.raw);
    const page = (await server.http('/metrics')).body;
    assert.ok(metricSum(page, 'etcdns_dns_transfers_served_total', 'form="ixfr_full"') >= 1, page);
  });

  const signedQueries: { name: string; key: string; expect: RegExp; refute: RegExp }[] = [
    // A secondary (BIND) signs its SOA query before a transfer and drops an unsigned answer.
    {
      name: 'signed with the key: answered and signed (dig verifies it)',
      key: KEY,
      expect: /status: NOERROR[\s\S]*IN\s+SOA[\s\S]*TSIG\s+hmac-sha256\.[^\n]*NOERROR/,
      refute: /Couldn't verify|expected a TSIG|failure/i,
    },
    {
      name: 'a wrong secret: NOTAUTH, BADSIG',
      key: WRONG_SECRET,
      expect: /NOTAUTH[\s\S]*BADSIG/,
      refute: /ANSWER: [1-9]/,
    },
    {
      name: 'an unknown key: NOTAUTH, BADKEY',
      key: `hmac-sha256:other.key:${SECRET}`,
      expect: /NOTAUTH[\s\S]*BADKEY/,
      refute: /ANSWER: [1-9]/,
    },
  ];
  for (const row of signedQueries) {
    test(`a TSIG-signed SOA query, ${row.name}`, async () => {
      const { raw } = await digAxfr({ port: server.port, zone: 'example.org', key: row.key, type: 'SOA' });
      assert.match(raw, row.expect, raw);
      assert.doesNotMatch(raw, row.refute, raw);
    });
  }

  const refusals: { name: string; query: () => Parameters<typeof digAxfr>[0]; expect: RegExp }[] = [
    { name: 'no key', query: () => ({ port: server.port, zone: 'example.org' }), expect: /Transfer failed/ },
    {
      name: 'unlisted address (127.0.0.2)',
      query: () => ({ port: server.port, zone: 'example.org', key: KEY, source: '127.0.0.2' }),
      expect: /Transfer failed/,
    },
    {
      name: 'wrong key secret (BADSIG)',
      query: () => ({ port: server.port, zone: 'example.org', key: WRONG_SECRET }),
      expect: /NOTAUTH|tsig|Transfer failed|BADSIG/i,
    },
    {
      name: 'unknown key name (BADKEY)',
      query: () => ({ port: server.port, zone: 'example.org', key: `hmac-sha256:other.key:${SECRET}` }),
      expect: /NOTAUTH|tsig|Transfer failed|BADKEY/i,
    },
  ];
  for (const row of refusals) {
    test(`refused: ${row.name}`, async () => {
      const { records, raw } = await digAxfr(row.query());
      assert.equal(records.filter((r) => r.type !== 'TSIG').length, 0, raw);
      assert.match(raw, row.expect);
    });
  }

  test('AXFR over UDP is REFUSED; refusals and transfers are counted', async () => {
    const query = Buffer.from('abcd00000001000000000000076578616d706c65036f72670000fc0001', 'hex');
    const socket = createSocket('udp4');
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no UDP answer')), 3000);
      socket.once('message', (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      socket.send(query, server.port, '127.0.0.1');
    }).finally(() => socket.close());
    assert.equal(reply[3]! & 0x0f, 5);
    const page = (await server.http('/metrics')).body;
    assert.ok(metricSum(page, 'etcdns_dns_transfers_total', 'outcome="served"') >= 2, page);
    assert.ok(metricSum(page, 'etcdns_dns_transfers_total', 'outcome="refused"') >= 3, page);
    assert.ok(metricSum(page, 'etcdns_dns_transfers_total', 'outcome="notauth"') >= 2, page);
  });

  describe('Knot as a TSIG-authenticated secondary', () => {
    let knot: KnotSecondaryHandle;
    before(async () => {
      knot = await startKnotSecondary({
        zone: 'example.org.',
        primaryPort: server.port,
        port: knotPort,
        key: { name: 'xfr.example.org', algorithm: 'hmac-sha256', secret: SECRET },
      });
    });
    after(async () => {
      await knot?.stop();
    });

    test('knotd transfers the zone and answers every name as etcdns does', async () => {
      const started = performance.now();
      await waitFor(
        'the zone on knotd',
        async () => {
          const r = await dig({ port: knot.port, name: 'example.org', type: 'SOA', timeoutSeconds: 1 });
          return r.status === 'NOERROR' && r.answer.length > 0 ? true : undefined;
        },
        15_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${knot.process.logs()}`);
      });
      const ms = Math.round(performance.now() - started);
      const { records } = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
      const names = new Set(records.filter((r) => r.type !== 'TSIG').map((r) => r.name.toLowerCase()));
      for (const name of names) {
        for (const type of TYPES) {
          const ours = await dig({ port: server.port, name, type });
          const theirs = await dig({ port: knot.port, name, type });
          const data = (r: typeof ours) =>
            r.answer
              .filter((a) => a.type === type)
              .map(line)
              .sort();
          assert.deepEqual(data(theirs), data(ours), `${name} ${type}`);
        }
      }
      assert.match(knot.process.logs(), /AXFR, incoming|finished/i);
      console.log(`knotd had the zone after ${ms} ms (${names.size} names)`);
    });

    test('a change in etcd reaches knotd by NOTIFY and IXFR, no refresh asked', async () => {
      const kv = etcd.client();
      const started = performance.now();
      await kv.put('/skydns/org/example/added').value(JSON.stringify({ host: '10.0.0.77' }));
      await kv.delete().key('/skydns/org/example/txt');
      await waitFor(
        'knotd answers the change',
        async () => {
          const added = await dig({ port: knot.port, name: 'added.example.org', type: 'A', timeoutSeconds: 1 });
          const removed = await dig({ port: knot.port, name: 'txt.example.org', type: 'TXT', timeoutSeconds: 1 });
          return added.answer[0]?.data === '10.0.0.77' && removed.status === 'NXDOMAIN' ? true : undefined;
        },
        10_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${knot.process.logs().slice(-3000)}`);
      });
      const ms = Math.round(performance.now() - started);
      const logs = knot.process.logs();
      assert.match(logs, /notify, incoming/i, logs.slice(-3000));
      assert.match(logs, /IXFR, incoming, .*(started|finished)/, logs.slice(-3000));
      assert.doesNotMatch(logs, /AXFR-style IXFR/, logs.slice(-3000));
      const page = (await server.http('/metrics')).body;
      assert.ok(metricSum(page, 'etcdns_dns_notify_total', 'outcome="acked"') >= 1, page);
      assert.match((await server.http('/readyz')).body, new RegExp(`NOTIFY acked by 127\\.0\\.0\\.1:${knotPort}`));
      console.log(`knotd answered the change ${ms} ms after the etcd write (NOTIFY, IXFR)`);
    });
  });

  test('a large zone goes in several messages, each TSIG-signed, dig verifies them all', async () => {
    const kv = etcd.client();
    const count = 3000; // below the default 4,000 entries per name
    for (let i = 0; i < count; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, count - i) }, (_, j) =>
          kv
            .put(`/skydns/org/example/bulk/h${i + j}`)
            .value(JSON.stringify({ host: `10.1.${(i + j) >> 8}.${(i + j) & 255}` })),
        ),
      );
    }
    let result = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
    await waitFor(
      'all bulk records transferred',
      async () => {
        result = await digAxfr({ port: server.port, zone: 'example.org', key: KEY });
        return result.records.filter((r) => r.name.startsWith('h') && r.type === 'A').length === count
          ? true
          : undefined;
      },
      15_000,
    ).catch((e: Error) => {
      const bulk = result.records.filter((r) => r.name.startsWith('h')).length;
      throw new Error(`${e.message}: ${bulk} bulk records; ${result.raw.slice(-700)}`);
    });
    const size = /XFR size: (\d+) records \(messages (\d+), bytes (\d+)\)/.exec(result.raw);
    assert.ok(size, result.raw.slice(-500));
    assert.ok(Number(size[2]) > 1, `one message only: ${size[0]}`);
    assert.doesNotMatch(result.raw, /verify|failure|failed/i);
    const time = /Query time: (\d+) msec/.exec(result.raw)?.[1];
    console.log(`AXFR of ${size[1]} records: ${size[2]} messages, ${size[3]} bytes, ${time} ms`);
  });
});
