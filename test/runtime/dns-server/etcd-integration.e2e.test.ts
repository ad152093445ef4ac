// The server as users run it (`etcdns server`), on a real etcd, asked by the real dig: answers
// follow puts, changes and deletes; an etcd outage is served stale and caught up afterwards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Etcd3 } from 'etcd3';
import { dig, waitForAnswer } from '../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor, waitReady } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

after(stopAll);

describe('etcdns server on a real etcd', () => {
  let etcd: EtcdHandle;
  let kv: Etcd3;
  let server: EtcdnsServerHandle;

  before(async () => {
    etcd = await startEtcd();
    kv = etcd.client();
    await kv.put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
    await kv.put('/skydns/org/example/bad').value('{"host": 42}');
    server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('ready after the first full load, with the reason', async () => {
    const r = await server.http('/readyz');
    assert.equal(r.status, 200);
    assert.match(r.body, /^ready: synced: 1 records at revision \d+, watching/);
    assert.equal((await server.http('/healthz')).status, 200);
  });

  test('put, change and delete: the answers follow within the watch delay', async () => {
    await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);
    await kv.put('/skydns/org/example/new/3f1a9c2e').value('{"host":"10.0.0.2","targetstrip":1}');
    await waitForAnswer({ port: server.port, name: 'new.example.org', type: 'A' }, ['10.0.0.2'], 1000);
    await kv.put('/skydns/org/example/new/3f1a9c2e').value('{"host":"10.0.0.3","targetstrip":1}');
    await waitForAnswer({ port: server.port, name: 'new.example.org', type: 'A' }, ['10.0.0.3'], 1000);
    await kv.delete().key('/skydns/org/example/new/3f1a9c2e');
    await waitForAnswer({ port: server.port, name: 'new.example.org', type: 'A' }, [], 1000);
    assert.equal((await dig({ port: server.port, name: 'new.example.org' })).status, 'NXDOMAIN');
  });

  test('an undecodable value is skipped, logged once and counted; the rest is served', async () => {
    await kv.put('/skydns/org/example/bad/ok').value('{"host":"10.0.0.4"}');
    await waitForAnswer({ port: server.port, name: 'bad.example.org', type: 'A' }, ['10.0.0.4']);
    const page = (await server.http('/metrics')).body;
    assert.equal(metricSum(page, 'etcdns_dns_skipped_values'), 1);
    const logged = server.process
      .logs()
      .split('\n')
      .filter((l) => l.includes('skipping undecodable value'));
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /\/skydns\/org\/example\/bad/);
  });

  test('metrics: queries by type and rcode, latency, cache hits, records, store state', async () => {
    await dig({ port: server.port, name: 'www.example.org', type: 'A' });
    await dig({ port: server.port, name: 'www.example.org', type: 'A' });
    const page = (await server.http('/metrics')).body;
    assert.ok(metricSum(page, 'etcdns_dns_queries_total', 'rcode="NOERROR",transport="udp",type="A"') >= 2);
    assert.ok(metricSum(page, 'etcdns_dns_query_duration_seconds_count') >= 2);
    assert.ok(metricSum(page, 'etcdns_dns_cache_hits_total') >= 1);
    assert.ok(metricSum(page, 'etcdns_dns_records') >= 2);
    assert.equal(metricSum(page, 'etcdns_dns_store_state', 'state="synced"'), 1);
    assert.match(page, /etcdns_dns_etcd_watch_lag_revisions \d+/);
  });

  test('etcd stops: answers continue from the last good copy; etcd returns: the server catches up', async () => {
    await etcd.stop();
    await waitFor('readiness to say stale', async () => {
      const r = await server.http('/readyz');
      return r.status === 200 && r.body.includes('stale') ? true : undefined;
    });
    await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);
    assert.equal(metricSum((await server.http('/metrics')).body, 'etcdns_dns_store_state', 'state="stale"'), 1);

    await etcd.start();
    kv = etcd.client();
    await kv.put('/skydns/org/example/www').value('{"host":"10.0.0.9"}');
    await kv.put('/skydns/org/example/after').value('{"host":"10.0.0.10"}');
    await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.9'], 30_000);
    await waitForAnswer({ port: server.port, name: 'after.example.org', type: 'A' }, ['10.0.0.10']);
    assert.match((await server.http('/readyz')).body, /synced/);
  });
});

describe('--workers 2', () => {
  test('both workers answer; a killed worker is restarted; the pool is ready only when all are loaded; serve-stale holds', async () => {
    const etcd = await startEtcd();
    try {
      await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
      const server = await startEtcdnsServer({
        etcdEndpoints: etcd.endpoints,
        zones: ['example.org'],
        args: ['--workers', '2'],
      });
      try {
        const ready = await server.http('/readyz');
        assert.match(ready.body, /worker 0: synced.*worker 1: synced/);
        for (let i = 0; i < 10; i++)
          await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);
        await waitFor('both workers in /metrics', async () => {
          const page = (await server.http('/metrics')).body;
          return page.includes('worker="0"') && page.includes('worker="1"') ? true : undefined;
        });
        // A worker that dies is restarted; the pool is unready until it has loaded again.
        const workers = execFileSync('pgrep', ['-P', String(server.process.pid)], { encoding: 'utf8' });
        const victim = Number(workers.trim().split('\n')[0]);
        process.kill(victim, 'SIGKILL');
        await waitFor('the pool to notice', async () =>
          (await server.http('/readyz')).status === 503 ? true : undefined,
        );
        await waitFor('the restarted worker to load', async () =>
          (await server.http('/readyz')).status === 200 ? true : undefined,
        );
        for (let i = 0; i < 10; i++)
          await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);

        await etcd.stop();
        await waitFor('pool readiness to say stale', async () => {
          const r = await server.http('/readyz');
          return r.status === 200 && /worker 0: stale.*worker 1: stale/.test(r.body) ? true : undefined;
        });
        await waitForAnswer({ port: server.port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);
      } finally {
        await server.stop();
      }
    } finally {
      await etcd.stop();
    }
  });
});

describe('settings from environment and config file; bad config fails naming the field', () => {
  test('ETCDNS_ETCD_URLS and ETCDNS_ZONE: ETCDNS_ and the flag', async () => {
    const etcd = await startEtcd();
    try {
      await etcd.client().put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
      const [port, httpPort] = [await freePort(), await freePort()];
      const proc = startProcess('etcdns-server-env', nodeBin, [etcdnsBin, 'server'], {
        env: {
          ETCDNS_ETCD_URLS: etcd.endpoint,
          ETCDNS_ZONE: 'example.org',
          ETCDNS_LISTEN: `127.0.0.1:${port}`,
          ETCDNS_HTTP_LISTEN: `127.0.0.1:${httpPort}`,
        },
      });
      try {
        await waitReady(proc, 'ready', async () => {
          const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`).catch(() => undefined);
          return res?.status === 200;
        });
        await waitForAnswer({ port: port, name: 'www.example.org', type: 'A' }, ['10.0.0.1']);
      } finally {
        await proc.stop();
      }
    } finally {
      await etcd.stop();
    }
  });

  const failsWith = async (args: string[], pattern: RegExp, env: Record<string, string> = {}) => {
    const proc = startProcess('etcdns-server-bad-config', nodeBin, [etcdnsBin, 'server', ...args], { env });
    const code = await proc.exited;
    assert.equal(code, 2, proc.logs());
    assert.match(proc.logs(), pattern);
  };

  test('an invalid zone name', () =>
    failsWith(
      ['--etcd', 'http://127.0.0.1:1', '--zone', 'exa mple.org'],
      /zones\[0\]\.name \(--zone\): .*"exa mple\.org" has invalid label/,
    ));

  test('no etcd at all', () => failsWith(['--zone', 'example.org'], /etcd: is required/));

  test('a config file with an out-of-range SOA field', async () => {
    const file = join(tempDir('server-config'), 'server.json');
    writeFileSync(
      file,
      JSON.stringify({
        etcd: { endpoints: ['http://127.0.0.1:1'] },
        zones: [{ name: 'example.org', soa: { refresh: -1 } }],
      }),
    );
    await failsWith(
      ['--config', file],
      /zones\[0\]\.soa\.refresh \(file .*server\.json\): must be a number of seconds from 0/,
    );
  });

  test('a listen address that is not host:port', async () => {
    const port = await freePort();
    await failsWith(
      ['--etcd', 'http://127.0.0.1:1', '--zone', 'example.org', '--listen', `localhost-${port}`],
      /listen \(--listen\): must be host:port.*\(got "localhost-\d+"\)/,
    );
  });
});
