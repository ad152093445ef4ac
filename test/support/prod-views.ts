// The views of the prod example as dist/prod's controller ConfigMap holds them, written as a
// controller config file: the tests run the real controller with exactly what users commit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { repoRoot } from './tools.ts';

/** Writes `{ views }` of dist/prod's controller config into `dir`; returns the file. */
export function prodViewsConfig(dir: string): string {
  const configMap = load(readFileSync(join(repoRoot, 'dist', 'prod', 'configmap-etcdns-controller.yaml'), 'utf8')) as {
    data: Record<string, string>;
  };
  const { views } = JSON.parse(configMap.data['config.json']!) as { views: unknown[] };
  const file = join(dir, 'views.json');
  writeFileSync(file, JSON.stringify({ views }));
  return file;
}
