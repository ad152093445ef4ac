// The real Prometheus (Debian's prometheus package) on loopback: its own config, rule files and
// storage in a temporary directory, queried through its HTTP API.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface PrometheusOptions {
  /** prometheus.yml without rule_files (written as YAML). */
  config: Record<string, unknown>;
  /** Rule files' content (`{ groups: [...] }`), loaded with the config. */
  rules?: Record<string, unknown>[];
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusHandle {
  url: string;
  process: ManagedProcess;
  /** An instant query; rejects on an error answer (a bad expression). */
  query(expr: string): Promise<PromSample[]>;
  /** GET on the API, e.g. "/api/v1/rules"; the `data` of its answer. */
  api<T>(path: string): Promise<T>;
  stop(): Promise<void>;
}

export async function startPrometheus(o: PrometheusOptions): Promise<PrometheusHandle> {
  const dir = tempDir('prometheus');
  const ruleFiles = (o.rules ?? []).map((rules, i) => {
    const file = join(dir, `rules-${i}.yaml`);
    writeFileSync(file, dump(rules));
    return file;
  });
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, dump({ ...o.config, rule_files: ruleFiles }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startProcess('prometheus', tool('prometheus'), [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  await waitReady(
    proc,
    'ready',
    async () =>
      (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined))?.ok ?? false,
  );
  return {
    url,
    process: proc,
    api,
    query: async (expr) =>
      (await api<{ result: PromSample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    stop: () => proc.stop(),
  };
}
