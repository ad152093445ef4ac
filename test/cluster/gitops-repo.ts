// The user's side of a GitOps cluster check (flux.cluster.ts, argocd.cluster.ts): the repository
// `etcdns init` writes, installed from a packed etcdns release into a fresh directory, with the
// one edit a user of an air-gapped cluster makes (the environment names the images the node has),
// synthesized and pushed to a bare repository of the loopback Git server; and what the checks
// read back from the stack: the records in etcd, the pod templates a release N+1 changes, the
// answers for a published name.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { load } from 'js-yaml';
import { assertLocalRoute, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { answerData, type DigResult } from '../support/dig.ts';
import { tempDir } from '../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../support/tools.ts';
import { component, NAMESPACE, waitPodsReady, ZONE } from './stack-support.ts';

/** The name the checks publish through a LoadBalancer Service and ask throughout. */
export const WEB = { name: `web.${ZONE}`, ip: '10.213.200.80' };

/** What is wrong with an answer for WEB (undefined: right). */
export const webWrong = (r: DigResult): string | undefined => {
  const data = answerData(r, 'A').join();
  if (r.status !== 'NOERROR' || !r.flags.includes('aa') || data !== WEB.ip)
    return `${r.status || 'no answer'} ${r.flags.join(' ')} [${data}]`;
  return undefined;
};

export interface UserRepo {
  dir: string;
  /** Runs a command in the repository (git as the dns team); its stdout. */
  run(cmd: string, args: string[]): string;
  /** Replaces `from` (which must be there) by `to` in a file of the repository. */
  edit(file: string, from: string, to: string): void;
  /** Commits everything and pushes it; returns the commit. */
  commitAndPush(message: string): string;
  /** Pushes HEAD; returns it. */
  push(): string;
}

/**
 * `etcdns init DIR --etcdns file:TARBALL --repo-url URL --gitops ENGINE --env dev`, the images
 * edit, `npm install` and `npm run synth`, then `git init` with the bare repository as origin.
 * Nothing is committed yet. `figures` gets the install + synth time.
 */
export function scaffoldUserRepo(o: {
  name: string;
  tarball: string;
  repoUrl: string;
  bare: string;
  gitops: 'flux' | 'argocd';
  images: ClusterImages;
  figures: string[];
}): UserRepo {
  const dir = join(tempDir(`${o.gitops}-user`), o.name);
  const run = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300_000,
        maxBuffer: 64 << 20,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'dns team',
          GIT_AUTHOR_EMAIL: 'dns@example.org',
          GIT_COMMITTER_NAME: 'dns team',
          GIT_COMMITTER_EMAIL: 'dns@example.org',
        },
      });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`, {
        cause: e,
      });
    }
  };
  const edit = (file: string, from: string, to: string) => {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    assert.ok(text.includes(from), `${file} has ${JSON.stringify(from)}:\n${text}`);
    writeFileSync(path, text.replace(from, to));
  };
  const push = () => {
    run('git', ['push', '--quiet', 'origin', 'main']);
    return run('git', ['rev-parse', 'HEAD']).trim();
  };

  execFileSync(nodeBin, [
    etcdnsBin,
    'init',
    dir,
    '--etcdns',
    `file:${o.tarball}`,
    '--repo-url',
    o.repoUrl,
    '--gitops',
    o.gitops,
    '--env',
    'dev',
  ]);
  // The one edit: the images this cluster's node has (no registry here).
  const image = (i: { repository: string; tag: string }) => `image: { repository: '${i.repository}', tag: '${i.tag}' }`;
  edit(
    'environments/dev.ts',
    "etcd: { replicas: 1, storage: { size: '1Gi' } },",
    `etcd: { replicas: 1, storage: { size: '1Gi' }, ${image(o.images.etcd)} },`,
  );
  edit(
    'environments/dev.ts',
    'server: { replicas: 1 },',
    `server: { replicas: 1, ${image(o.images.etcdns)} },\n  controller: { ${image(o.images.etcdns)} },`,
  );
  const t1 = performance.now();
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
  run('npm', ['run', 'synth']);
  o.figures.push(`npm install + synth of the new repository ${Math.round(performance.now() - t1)} ms`);
  run('git', ['init', '--quiet', '--initial-branch=main']);
  run('git', ['remote', 'add', 'origin', o.bare]);
  return {
    dir,
    run,
    edit,
    push,
    commitAndPush(message) {
      run('git', ['add', '-A']);
      run('git', ['commit', '--quiet', '-m', message]);
      return push();
    },
  };
}

/**
 * Runs the repository's own CI step "dist/ is committed as synthesized" (.github/workflows/ci.yml,
 * as etcdns init wrote it) with bash as GitHub's runner does.
 */
export function ciDistCheck(repo: UserRepo): { status: number | null; output: string } {
  const workflow = load(readFileSync(join(repo.dir, '.github', 'workflows', 'ci.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
  };
  const step = Object.values(workflow.jobs)
    .flatMap((j) => j.steps)
    .find((st) => st.name === 'dist/ is committed as synthesized');
  assert.ok(step?.run, 'the workflow has the dist/ step');
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
    cwd: repo.dir,
    encoding: 'utf8',
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Every record under /skydns/ with its value and the revision that last wrote it. */
export async function etcdRecords(cluster: Cluster): Promise<Map<string, string>> {
  const [pod] = await waitPodsReady(cluster.admin, component('etcd'), 1);
  assertLocalRoute(pod!.ip!);
  const etcd = new Etcd3({ hosts: [`http://${pod!.ip}:2379`] });
  try {
    const r = await etcd.getAll().prefix('/skydns/').exec();
    return new Map(r.kvs.map((kv) => [kv.key.toString(), `${kv.value.toString()} @${kv.mod_revision}`]));
  } finally {
    etcd.close();
  }
}

export async function deployment(cluster: Cluster, name: string): Promise<k8s.V1Deployment> {
  return cluster.admin.makeApiClient(k8s.AppsV1Api).readNamespacedDeployment({ name, namespace: NAMESPACE });
}

/** The NoExecute not-ready toleration of a pod template, if any (release N+1 adds it). */
export const nodeLossToleration = (spec: k8s.V1PodSpec | undefined): number | undefined =>
  spec?.tolerations?.find((t) => t.key === 'node.kubernetes.io/not-ready')?.tolerationSeconds;
