// Renders a committed dist/<env> through an overlay that only sets `namespace:`, with the real
// `kubectl kustomize` (kustomize v5): what a user's overlay, Flux's targetNamespace and Argo CD's
// kustomize.namespace all come down to.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadAll } from 'js-yaml';
import { tempDir } from '../support/temp-dir.ts';

export const distDir = join(import.meta.dirname, '../../dist');

// The rendered objects, loosely typed for inspection.
export type Rendered = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function renderWithNamespace(env: string, namespace: string): Rendered[] {
  const dir = tempDir('overlay');
  // kustomize refuses an absolute path to a base folder, as it would in the user's repository.
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `namespace: ${namespace}`,
      'resources:',
      `  - ${relative(dir, join(distDir, env))}`,
      '',
    ].join('\n'),
  );
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { code, stderr } = error as { code?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error('kubectl (v1.32+, with kustomize v5) must be on PATH', { cause: error });
    throw new Error(`kubectl kustomize of dist/${env} failed: ${stderr}`, { cause: error });
  }
  return loadAll(output) as Rendered[];
}
