// DNS over TCP under pressure (issue 31, RFC 7766 6.2.3): 3,000 idle connections to `etcdns
// server` (real etcd, the server as users run it) with a bound of 2,000, a few of them with a query
// in flight. A new TCP client (the real dig) is answered at once on its first connection, UDP
// too; the least recently active idle connections were the ones closed, the newer ones and those
// with a query in flight kept, and the keepalive told to clients (RFC 7828) is the short one of
// full slots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { Packet } from 'dns2';
import { dig } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { stopAll, waitFor } from '../../../support/process.ts';

after(stopAll);

const BOUND = 2000;
const IDLE = 3000;
/** Connections whose out-of-zone query waits on upstreams that never answer (2 s each, 6 in turn). */
const IN_FLIGHT = 5;

interface Client {
  socket: Socket;
  closed: boolean;
  replies: Buffer[];
}

function open(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const client: Client = { socket, closed: false, replies: [] };
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      while (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) {
        client.replies.push(data.subarray(2, 2 + data.readUInt16BE(0)));
        data = data.subarray(2 + data.readUInt16BE(0));
      }
    });
    socket.on('close', () => (client.closed = true));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      resolve(client);
    });
  });
}

function framedQuery(name: string): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 7, rd: 1 });
  p.questions = [{ name, type: 1, class: 1 } as Packet['questions'][number]];
  const q = p.toBuffer();
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(q.length);
  return Buffer.concat([prefix, q]);
}

let etcd: EtcdHandle;
let server: EtcdnsServerHandle;
const silent: UdpSocket[] = [];

before(async () => {
  etcd = await startEtcd();
  await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
  for (let i = 0; i < 6; i++) {
    const s = createSocket('udp4');
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
    silent.push(s);
  }
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org'],
    args: [
      '--max-tcp-connections',
      String(BOUND),
      // An hour, so that a twentieth of it (full slots) outlasts opening them on a busy machine.
      '--tcp-idle-seconds',
      '3600',
      ...silent.flatMap((s) => ['--forward-upstream', `127.0.0.1:${s.address().port}`]),
      '--forward-client-cidr',
      '127.0.0.0/8',
    ],
  });
});

after(async () => {
  for (const s of silent) s.close();
  await server?.stop();
  await etcd?.stop();
});

test(`${IDLE} idle TCP connections over a bound of ${BOUND}: a new TCP client is answered at once`, async () => {
  const tcpMetric = async (name: string) => metricSum((await server.http('/metrics')).body, name);
  const busy: Client[] = [];
  for (let i = 0; i < IN_FLIGHT; i++) {
    const c = await open(server.port);
    c.socket.write(framedQuery(`q${i}.elsewhere.test`));
    busy.push(c);
  }
  // One at a time: the server accepts them in this order, so "least recently active" is "first opened".
  const idle: Client[] = [];
  for (let i = 0; i < IDLE; i++) idle.push(await open(server.port));
  const overflow = IN_FLIGHT + IDLE - BOUND;
  await waitFor(`${overflow} idle connections closed under pressure`, async () =>
    (await tcpMetric('etcdns_dns_tcp_closed_under_pressure_total')) === overflow ? true : undefined,
  ).catch(async (e: Error) => {
    const page = (await server.http('/metrics')).body;
    throw new Error(
      `${e.message}; ${page
        .split('\n')
        .filter((l) => l.startsWith('etcdns_dns_tcp'))
        .join('; ')}`,
    );
  });
  assert.equal(await tcpMetric('etcdns_dns_tcp_connections'), BOUND);
  assert.ok(
    busy.every((c) => c.replies.length === 0),
    'the in-flight queries are still waiting (else this test shows nothing of them)',
  );

  const started = performance.now();
  const answer = await dig({ port: server.port, name: 'www.example.org', tcp: true, extra: ['+keepalive'] });
  const answeredMs = performance.now() - started;
  assert.equal(answer.status, 'NOERROR', answer.raw);
  assert.deepEqual(
    answer.answer.map((r) => r.data),
    ['10.0.0.1'],
  );
  assert.ok(answeredMs < 1000, `answered after ${answeredMs.toFixed(0)} ms`);
  // Full slots: a twentieth of the configured idle timeout.
  assert.match(answer.raw, /; TCP KEEPALIVE: 180\.0 secs/);
  const udp = await dig({ port: server.port, name: 'www.example.org' });
  assert.equal(udp.status, 'NOERROR', udp.raw);

  // dig's connection closed one more idle one: the least recently active of those left.
  await waitFor('the closes reach the clients', () =>
    idle.filter((c) => c.closed).length >= overflow + 1 ? true : undefined,
  );
  const closed = idle.flatMap((c, i) => (c.closed ? [i] : []));
  assert.deepEqual(
    closed,
    Array.from({ length: overflow + 1 }, (_, i) => i),
  );
  assert.equal(
    busy.filter((c) => c.closed).length,
    0,
    'connections with a query in flight are kept, though the oldest',
  );
  assert.equal(await tcpMetric('etcdns_dns_tcp_refused_total'), 0);
  process.stdout.write(
    `# ${IDLE} idle + ${IN_FLIGHT} in flight, bound ${BOUND}: dig +tcp answered in ${answeredMs.toFixed(0)} ms; ` +
      `${closed.length} least recently active idle ones closed\n`,
  );

  // The kept in-flight queries get their answer (SERVFAIL: no upstream answered).
  await waitFor(
    'the in-flight queries answered',
    () => (busy.every((c) => c.replies.length === 1) ? true : undefined),
    15_000,
  );
  assert.deepEqual(
    busy.map((c) => c.replies[0]![3]! & 0x0f),
    busy.map(() => 2),
  );
  for (const c of [...busy, ...idle]) c.socket.destroy();
});
