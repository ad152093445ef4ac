// The wire protocol of the server, over real sockets on loopback, asked by the real dig and by
// hand-made packets: EDNS0, truncation, TCP framing, error codes, letter case, compression.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { Packet } from 'dns2';
import { AnswerCache } from '../../../../src/runtime/dns-server/answer/answer-cache.ts';
import { Forwarder } from '../../../../src/runtime/dns-server/answer/forwarder.ts';
import { createQueryHandler } from '../../../../src/runtime/dns-server/dispatch.ts';
import { RecordIndex } from '../../../../src/runtime/dns-server/store/record-index.ts';
import { ServerMetrics } from '../../../../src/runtime/dns-server/server-metrics.ts';
import { startWireServer, type WireServer } from '../../../../src/runtime/dns-server/wire/wire-server.ts';
import { ZoneTable } from '../../../../src/runtime/dns-server/answer/zones.ts';
import { parseConfig } from '../../../../src/config/schema-problems.ts';
import { forwardSchema, type ForwardInput } from '../../../../src/config/server-config.ts';
import { dig } from '../../../support/dig.ts';

const MANY = 60;
// As many SRV records as fit 512 bytes, but not with their glue.
const SRV_TARGETS = 15;

function content(zone: string): Record<string, string> {
  const base = `/skydns/${zone.split('.').reverse().join('/')}`;
  const out: Record<string, string> = {
    [`${base}/www`]: '{"host":"10.0.0.1"}',
    [`${base}/alias`]: `{"host":"www.${zone}"}`,
  };
  for (let i = 0; i < MANY; i++)
    out[`${base}/many/${i.toString(16).padStart(8, '0')}`] = `{"host":"10.1.${i >> 8}.${i & 255}"}`;
  for (let i = 0; i < SRV_TARGETS; i++) out[`${base}/srv/t${i}`] = `{"host":"10.2.0.${i}","port":80}`;
  return out;
}

/** A server on loopback; `forward` as written in a config file. */
async function serve(zone: string, forward?: ForwardInput, tcpIdleMs = 10_000): Promise<WireServer> {
  const zones = new ZoneTable([{ name: zone }]);
  const kvs = Object.entries(content(zone)).map(([key, value]) => ({ key, value, modRevision: 5 }));
  const index = RecordIndex.fromSnapshot('/skydns', zones.names, kvs, 5);
  const handler = createQueryHandler({
    data: () => ({ index, zones, lookup: 'own' }),
    cache: new AnswerCache(),
    metrics: new ServerMetrics(),
    forwarder: forward ? new Forwarder(parseConfig(forwardSchema, forward)) : undefined,
  });
  return startWireServer({ host: '127.0.0.1', port: 0, handler, tcpIdleMs });
}

const portOf = (s: WireServer) => s.udp.address().port;

function query(name: string, type: number, tweak?: (p: Packet) => void): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 0x1234, rd: 1 });
  p.questions = [{ name, type, class: 1 } as Packet['questions'][number]];
  tweak?.(p);
  return p.toBuffer();
}

function udpExchange(port: number, msg: Buffer, waitMs = 1000): Promise<Buffer | undefined> {
  const socket = createSocket('udp4');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, waitMs);
    socket.on('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(msg, port, '127.0.0.1');
  });
}

describe('wire server', () => {
  let server: WireServer;
  let port: number;
  before(async () => {
    server = await serve('example.org');
    port = portOf(server);
  });
  after(async () => server.close());

  test('answers keep the letter case of the question, also from the cache', async () => {
    for (const name of ['WwW.ExAmPlE.oRg', 'www.EXAMPLE.org']) {
      const r = await dig({ port, name, type: 'A' });
      assert.equal(r.status, 'NOERROR');
      assert.deepEqual(
        r.answer.map((a) => `${a.name} ${a.data}`),
        [`${name}. 10.0.0.1`],
      );
      assert.ok(r.flags.includes('aa'));
    }
  });

  test('only answers owned by the question name take its letter case; other names stay lower-case', async () => {
    const nodata = await dig({ port, name: 'WwW.ExAmPlE.oRg', type: 'AAAA' });
    assert.deepEqual(
      nodata.authority.map((a) => `${a.name} ${a.data.split(' ').slice(0, 2).join(' ')}`),
      ['example.org. ns.dns.example.org. hostmaster.example.org.'],
    );
    const chased = await dig({ port, name: 'ALIAS.example.ORG', type: 'A' });
    assert.deepEqual(
      chased.answer.map((a) => `${a.name} ${a.type} ${a.data}`),
      ['ALIAS.example.ORG. CNAME www.example.org.', 'www.example.org. A 10.0.0.1'],
    );
  });

  test('the RD bit is copied from each query, also into cached answers; RA is never set', async () => {
    for (const [extra, rd] of [
      [['+recurse'], true],
      [['+norecurse'], false],
      [['+recurse'], true],
    ] as const) {
      const r = await dig({ port, name: 'www.example.org', type: 'A', extra: [...extra] });
      assert.equal(r.flags.includes('rd'), rd, r.raw);
      assert.ok(!r.flags.includes('ra'));
    }
  });

  for (const tcp of [false, true]) {
    test(`ANY over ${tcp ? 'TCP' : 'UDP'}: one HINFO "RFC8482" (an alias: its CNAME), NXDOMAIN for no name (RFC 8482)`, async () => {
      const many = await dig({ port, name: 'many.example.org', type: 'ANY', tcp });
      assert.equal(many.status, 'NOERROR');
      assert.ok(many.flags.includes('aa'));
      assert.deepEqual(
        many.answer.map((a) => `${a.name} ${a.ttl} ${a.type} ${a.data}`),
        ['many.example.org. 300 HINFO "RFC8482" ""'],
      );
      const alias = await dig({ port, name: 'alias.example.org', type: 'ANY', tcp });
      assert.deepEqual(
        alias.answer.map((a) => `${a.name} ${a.type} ${a.data}`),
        ['alias.example.org. CNAME www.example.org.'],
      );
      assert.equal((await dig({ port, name: 'nothing.example.org', type: 'ANY', tcp })).status, 'NXDOMAIN');
    });
  }

  test('EDNS0: the OPT record is echoed with our payload size', async () => {
    const r = await dig({ port, name: 'www.example.org', type: 'A', extra: ['+edns=0', '+bufsize=1232'] });
    assert.match(r.raw, /; EDNS: version: 0, flags:; udp: 1232/);
  });

  test('edns-tcp-keepalive over TCP: the answer carries the idle timeout (RFC 7828), also from the cache', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await dig({ port, name: 'www.example.org', type: 'A', tcp: true, extra: ['+keepalive'] });
      assert.equal(r.status, 'NOERROR');
      assert.match(r.raw, /; TCP KEEPALIVE: 10\.0 secs/);
    }
    const without = await dig({ port, name: 'www.example.org', type: 'A', tcp: true });
    assert.doesNotMatch(without.raw, /KEEPALIVE/);
  });

  test('edns-tcp-keepalive over UDP is ignored: never sent back, a TIMEOUT in it no error', async () => {
    for (const option of ['+ednsopt=11', '+ednsopt=11:0064']) {
      const r = await dig({ port, name: 'www.example.org', type: 'A', extra: [option] });
      assert.equal(r.status, 'NOERROR', r.raw);
      assert.doesNotMatch(r.raw, /KEEPALIVE/);
    }
  });

  test('edns-tcp-keepalive with a TIMEOUT in a TCP query: FORMERR (RFC 7828 3.2.1, as Unbound)', async () => {
    const r = await dig({ port, name: 'www.example.org', type: 'A', tcp: true, extra: ['+ednsopt=11:0064'] });
    assert.equal(r.status, 'FORMERR', r.raw);
  });

  test('an EDNS version other than 0 gets BADVERS', async () => {
    const r = await dig({ port, name: 'www.example.org', type: 'A', extra: ['+edns=1', '+noednsneg'] });
    assert.equal(r.status, 'BADVERS');
  });

  test('a UDP answer that does not fit 512 bytes without EDNS sets TC; TCP and a larger EDNS size get it whole', async () => {
    const small = await dig({ port, name: 'many.example.org', type: 'A', extra: ['+noedns', '+ignore'] });
    assert.ok(small.flags.includes('tc'), small.raw);
    assert.equal(small.answer.length, 0);
    const big = await dig({ port, name: 'many.example.org', type: 'A', extra: ['+bufsize=4096'] });
    assert.ok(!big.flags.includes('tc'));
    assert.equal(big.answer.length, MANY);
    const tcp = await dig({ port, name: 'many.example.org', type: 'A', tcp: true, extra: ['+noedns'] });
    assert.equal(tcp.answer.length, MANY);
  });

  test('optional additional records are dropped before truncating the answer', async () => {
    const r = await dig({ port, name: 'srv.example.org', type: 'SRV', extra: ['+noedns', '+ignore'] });
    assert.ok(!r.flags.includes('tc'), r.raw);
    assert.equal(r.answer.length, SRV_TARGETS);
    assert.equal(r.additional.length, 0);
  });

  test('names are compressed: the answer owner is a pointer to the question', async () => {
    const reply = await udpExchange(port, query('www.example.org', 1));
    assert.ok(reply);
    const questionEnd = 12 + 'www.example.org'.length + 2 + 4;
    assert.equal(reply.readUInt16BE(questionEnd), 0xc00c);
  });

  test('FORMERR for a malformed query, with the query ID', async () => {
    const cut = query('www.example.org', 1).subarray(0, 20);
    const two = query('www.example.org', 1);
    two.writeUInt16BE(2, 4);
    for (const msg of [cut, two]) {
      const reply = await udpExchange(port, msg);
      assert.ok(reply);
      assert.equal(reply.readUInt16BE(0), 0x1234);
      assert.equal(reply[3]! & 0x0f, 1);
      assert.ok(reply[2]! & 0x80, 'QR set');
    }
  });

  test('NOTIMP for opcodes other than QUERY', async () => {
    const msg = query('www.example.org', 1, (p) => {
      p.header.opcode = 2;
    });
    const reply = await udpExchange(port, msg);
    assert.ok(reply);
    assert.equal(reply[3]! & 0x0f, 4);
    assert.equal((reply[2]! >> 3) & 0x0f, 2);
  });

  test('a response (QR set) or a runt packet gets no answer', async () => {
    const response = query('www.example.org', 1);
    response[2]! |= 0x80;
    assert.equal(await udpExchange(port, response, 300), undefined);
    assert.equal(await udpExchange(port, Buffer.from([1, 2, 3]), 300), undefined);
  });

  test('TCP: several queries on one connection are answered in order', async () => {
    const names = ['www.example.org', 'alias.example.org', 'nope.example.org'];
    const framed = names.map((n, i) => {
      const q = query(n, 1);
      q.writeUInt16BE(i + 1, 0);
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(q.length);
      return Buffer.concat([prefix, q]);
    });
    const replies = await new Promise<Buffer[]>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = Buffer.alloc(0);
      const out: Buffer[] = [];
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        data = Buffer.concat([data, chunk]);
        while (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) {
          out.push(data.subarray(2, 2 + data.readUInt16BE(0)));
          data = data.subarray(2 + data.readUInt16BE(0));
        }
        if (out.length === names.length) {
          socket.destroy();
          resolve(out);
        }
      });
      // All three in one write, the last one split across two writes.
      const all = Buffer.concat(framed);
      socket.write(all.subarray(0, all.length - 5));
      setTimeout(() => socket.write(all.subarray(all.length - 5)), 50);
    });
    assert.deepEqual(
      replies.map((r) => [r.readUInt16BE(0), r[3]! & 0x0f, r.readUInt16BE(6)]),
      [
        [1, 0, 1],
        [2, 0, 2],
        [3, 3, 0],
      ],
    );
  });
});

test('TCP connections idle longer than the timeout are closed', async () => {
  const server = await serve('example.org', undefined, 300);
  try {
    const closedAfter = await new Promise<number>((resolve) => {
      const started = Date.now();
      const socket = connect(portOf(server), '127.0.0.1');
      socket.on('close', () => resolve(Date.now() - started));
      socket.on('error', () => undefined);
    });
    assert.ok(closedAfter >= 250 && closedAfter < 5000, `closed after ${closedAfter} ms`);
  } finally {
    await server.close();
  }
});

test(
  'closing: a TCP query in flight is answered before its connection ends; idle connections end at once',
  { timeout: 10_000 },
  async () => {
    const slow = await startWireServer({
      host: '127.0.0.1',
      port: 0,
      // Echoes the query as its "answer" after 300 ms.
      handler: (msg) => new Promise((resolve) => setTimeout(() => resolve(Buffer.from(msg)), 300)),
    });
    const port = portOf(slow);
    const connected = (socket: ReturnType<typeof connect>) =>
      new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const busy = connect(port, '127.0.0.1');
    const idle = connect(port, '127.0.0.1');
    await Promise.all([connected(busy), connected(idle)]);
    const idleEnded = new Promise<void>((resolve) => idle.once('end', () => resolve()));
    const reply = new Promise<Buffer>((resolve) => busy.once('data', (chunk) => resolve(chunk)));
    const busyEnded = new Promise<void>((resolve) => busy.once('end', () => resolve()));
    const q = query('www.example.org', 1);
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16BE(q.length);
    busy.write(Buffer.concat([prefix, q]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = slow.close();
    await idleEnded;
    const answered = await reply;
    assert.deepEqual(answered.subarray(2), q, 'the answer in flight was written');
    await busyEnded;
    idle.destroy();
    busy.destroy();
    await closing;
  },
);

describe('forwarding (off by default, only for configured client CIDRs)', () => {
  let upstream: WireServer;
  before(async () => {
    upstream = await serve('example.net');
  });
  after(async () => upstream.close());

  test('without forwarding, other names are REFUSED', async () => {
    const server = await serve('example.org');
    try {
      const r = await dig({ port: portOf(server), name: 'www.example.net', type: 'A' });
      assert.equal(r.status, 'REFUSED');
    } finally {
      await server.close();
    }
  });

  test('a client inside the CIDRs gets the upstream answer', async () => {
    const server = await serve('example.org', {
      upstreams: [`127.0.0.1:${portOf(upstream)}`],
      clientCidrs: ['127.0.0.0/8'],
    });
    try {
      const r = await dig({ port: portOf(server), name: 'www.example.net', type: 'A' });
      assert.equal(r.status, 'NOERROR');
      assert.deepEqual(
        r.answer.map((a) => a.data),
        ['10.0.0.1'],
      );
    } finally {
      await server.close();
    }
  });

  test('a client outside the CIDRs is REFUSED', async () => {
    const server = await serve('example.org', {
      upstreams: [`127.0.0.1:${portOf(upstream)}`],
      clientCidrs: ['10.0.0.0/8'],
    });
    try {
      const r = await dig({ port: portOf(server), name: 'www.example.net', type: 'A' });
      assert.equal(r.status, 'REFUSED');
    } finally {
      await server.close();
    }
  });
});
