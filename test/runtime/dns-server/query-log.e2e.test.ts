// The opt-in query log on the real server: one JSON line per Nth query, with the client, the
// question and the outcome; nothing without the option.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dig } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { stopAll, waitFor } from '../../support/process.ts';

after(stopAll);

interface QueryLine {
  msg: string;
  client: string;
  transport: string;
  name: string;
  type: string;
  rcode: string;
  bytes: number;
}

const queryLines = (server: EtcdnsServerHandle): QueryLine[] =>
  server.process
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"msg":"query"'))
    .map((l) => JSON.parse(l) as QueryLine);

describe('the query log', () => {
  let etcd: EtcdHandle;
  let logged: EtcdnsServerHandle;
  let quiet: EtcdnsServerHandle;
  before(async () => {
    etcd = await startEtcd();
    await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
    const base = { etcdEndpoints: etcd.endpoints, zones: ['example.org'] };
    [logged, quiet] = await Promise.all([
      startEtcdnsServer({ ...base, args: ['--query-log-every', '2'] }),
      startEtcdnsServer(base),
    ]);
  });
  after(async () => {
    await Promise.all([logged?.stop(), quiet?.stop()]);
    await etcd?.stop();
  });

  test('every 2nd query is logged with client, question, rcode and size', async () => {
    const asked = [
      { name: 'www.example.org', type: 'A' },
      { name: 'missing.example.org', type: 'A' },
      { name: 'www.example.org', type: 'TXT' },
      { name: 'other.example.org', type: 'AAAA' },
    ];
    for (const q of asked) await dig({ port: logged.port, ...q, extra: ['-b', '127.0.0.5'] });
    const lines = await waitFor(
      'two query lines',
      () => (queryLines(logged).length >= 2 ? queryLines(logged) : undefined),
      5000,
    );
    assert.deepEqual(
      lines.map((l) => [l.client, l.transport, l.name, l.type, l.rcode]),
      [
        ['127.0.0.5', 'udp', 'missing.example.org.', 'A', 'NXDOMAIN'],
        ['127.0.0.5', 'udp', 'other.example.org.', 'AAAA', 'NXDOMAIN'],
      ],
    );
    for (const l of lines) assert.ok(l.bytes > 12, JSON.stringify(l));
  });

  test('off by default', async () => {
    for (let i = 0; i < 4; i++) await dig({ port: quiet.port, name: 'www.example.org' });
    assert.deepEqual(queryLines(quiet), []);
  });
});
