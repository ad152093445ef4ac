// What operators read: the standard Prometheus process metrics on /metrics of both commands (a
// real `etcdns server`, alone and with workers, and a real `etcdns controller`), and error stacks
// in the JSON logs (a real server whose etcd is down, and the logger's own table).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../src/runtime/shared/log.ts';
import { startController } from '../controller/controller-harness.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { etcdnsServerArgs, startEtcdnsServer } from '../../support/etcdns-server.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { nodeBin } from '../../support/tools.ts';

const PROCESS_METRICS = {
  process_cpu_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  process_start_time_seconds: 'gauge',
} as const;

/** Each process metric is described once, typed as Prometheus clients type it, and plausible. */
function assertProcessMetrics(page: string, series: number, startedBefore: number): void {
  for (const [name, type] of Object.entries(PROCESS_METRICS)) {
    assert.equal(page.split('\n').filter((l) => l === `# TYPE ${name} ${type}`).length, 1, `${name} typed once`);
    const samples = page.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    assert.equal(samples.length, series, `${name}: ${samples.join(' | ')}`);
  }
  const cpu = metricSum(page, 'process_cpu_seconds_total');
  const rss = metricSum(page, 'process_resident_memory_bytes');
  const start = metricSum(page, 'process_start_time_seconds') / series;
  assert.ok(cpu > 0 && cpu < 600, `cpu ${cpu} s`);
  assert.ok(rss > 20 * 2 ** 20 * series && rss < 2 ** 31 * series, `rss ${rss} bytes`);
  assert.ok(start >= startedBefore - 5 && start <= Date.now() / 1000, `start ${start}`);
}

/** Collections are a histogram by kind, typed once, under the name Node's Prometheus clients use. */
function assertGcHistogram(page: string): void {
  const typed = page.split('\n').filter((l) => l === '# TYPE nodejs_gc_duration_seconds histogram');
  assert.equal(typed.length, 1, 'nodejs_gc_duration_seconds typed once');
}

let etcd: EtcdHandle;
before(async () => {
  etcd = await startEtcd();
});
after(stopAll);

describe('process metrics on /metrics', () => {
  test('etcdns server exports process_cpu_seconds_total, process_resident_memory_bytes, process_start_time_seconds', async () => {
    const startedBefore = Date.now() / 1000;
    const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
    assertProcessMetrics((await server.http('/metrics')).body, 1, startedBefore);
    await server.stop();
  });

  test('etcdns server exports its garbage collections: the full one after the first load is a major one', async () => {
    const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
    // Observations arrive a moment after the collection (the observer is called asynchronously).
    const page = await waitFor('a major collection on /metrics', async () => {
      const body = (await server.http('/metrics')).body;
      return metricSum(body, 'nodejs_gc_duration_seconds_count', 'kind="major"') >= 1 ? body : undefined;
    });
    assertGcHistogram(page);
    const seconds = metricSum(page, 'nodejs_gc_duration_seconds_sum');
    assert.ok(seconds > 0 && seconds < 10, `gc seconds ${seconds}`);
    await server.stop();
  });

  test('etcdns server --workers 2: the primary and each worker, labelled by worker', async () => {
    const startedBefore = Date.now() / 1000;
    const server = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: ['example.org'],
      args: ['--workers', '2'],
    });
    const page = (await server.http('/metrics')).body;
    assertProcessMetrics(page, 3, startedBefore);
    for (const worker of ['primary', '0', '1']) {
      assert.ok(metricSum(page, 'process_resident_memory_bytes', `worker="${worker}"`) > 0, worker);
    }
    await server.stop();
  });

  test('etcdns controller exports them too (served before its API server is reached)', async () => {
    const startedBefore = Date.now() / 1000;
    // No API server listens there: the controller serves /metrics from its start all the same.
    const kubeconfigFile = join(tempDir('kubeconfig'), 'config');
    writeFileSync(
      kubeconfigFile,
      `apiVersion: v1
kind: Config
clusters: [{ name: none, cluster: { server: "http://127.0.0.1:${await freePort()}" } }]
users: [{ name: none, user: { token: none } }]
contexts: [{ name: none, context: { cluster: none, user: none } }]
current-context: none
`,
    );
    const controller = await startController({
      kubeconfigFile,
      etcdEndpoints: etcd.endpoints,
      ownerId: 'metrics-test',
      waitReady: false,
    });
    const page = await waitFor('the controller /metrics page', async () => {
      const r = await controller.http('/metrics').catch(() => undefined);
      return r?.status === 200 ? r.body : undefined;
    });
    assertProcessMetrics(page, 1, startedBefore);
    assertGcHistogram(page);
    await controller.stop();
  });
});

describe('error stacks in the logs', () => {
  test('etcdns server logs the stack of an etcd error (etcd down)', async () => {
    const [deadEtcd, port, httpPort] = [await freePort(), await freePort(), await freePort()];
    const args = etcdnsServerArgs(
      { etcdEndpoints: [`http://127.0.0.1:${deadEtcd}`], zones: ['example.org'] },
      port,
      httpPort,
    );
    const proc = startProcess('etcdns-server-no-etcd', nodeBin, args);
    const line = await waitFor('an "etcd sync failed" log line', async () =>
      proc
        .logs()
        .split('\n')
        .find((l) => l.includes('"etcd sync failed"')),
    );
    const logged = JSON.parse(line) as { error: { name: string; message: string; stack: string } };
    assert.ok(logged.error.message.length > 0, line);
    assert.match(logged.error.stack, new RegExp(`^\\w*Error: [^\\n]*\\n\\s+at `), line);
    await proc.stop();
  });

  const logged = (fields: Record<string, unknown>) => {
    const lines: string[] = [];
    createLogger('info', {}, (l) => lines.push(l)).error('failed', fields);
    return JSON.parse(lines[0]!) as Record<string, Record<string, unknown>>;
  };

  const cases: Array<{ name: string; fields: Record<string, unknown>; check(line: ReturnType<typeof logged>): void }> =
    [
      {
        name: 'an Error field keeps name, message and stack',
        fields: { error: new TypeError('bad value') },
        check: (l) => {
          assert.equal(l.error!.name, 'TypeError');
          assert.equal(l.error!.message, 'bad value');
          assert.match(String(l.error!.stack), /^TypeError: bad value\n\s+at /);
        },
      },
      {
        name: 'its cause is logged the same way',
        fields: { error: new Error('outer', { cause: new RangeError('inner') }) },
        check: (l) => {
          const cause = l.error!.cause as Record<string, string>;
          assert.equal(cause.message, 'inner');
          assert.match(cause.stack!, /^RangeError: inner\n\s+at /);
        },
      },
      {
        name: 'other fields are logged as they are',
        fields: { error: 'plain text', retryMs: 500 },
        check: (l) => {
          assert.equal(l.error, 'plain text');
          assert.equal(l.retryMs, 500);
        },
      },
    ];
  for (const c of cases) test(`logger: ${c.name}`, () => c.check(logged(c.fields)));
});

test('a server that is not a hub: the name explanation (?name=) answers 404, only for hubs', async () => {
  const server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
  for (const path of ['/status.json?name=www.example.org', '/status?name=www.example.org']) {
    const reply = await server.http(path);
    assert.equal(reply.status, 404, path);
    assert.match(reply.body, /only for hubs/);
  }
  assert.equal((await server.http('/status.json')).status, 200);
  await server.stop();
});
