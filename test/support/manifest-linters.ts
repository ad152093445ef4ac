// The linters a platform team's CI runs on a GitOps repository, as findings at their error level:
// kube-score (CRITICAL) and trivy's Kubernetes configuration checks (HIGH, CRITICAL), both built
// by scripts/setup-test-env.sh (trivy's as trivy-kubernetes: its Kubernetes scanner and embedded
// checks, scripts/trivy-kubernetes.go).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { tool } from './tools.ts';

export type Linter = 'kube-score' | 'trivy';

export interface Finding {
  tool: Linter;
  /** The linter's own check id: "container-resources", "KSV-0017". */
  check: string;
  /** Kind/namespace/name of the object. */
  object: string;
  /** The container the finding is about ('' when it is about the object). */
  container: string;
  /** What the linter says: kube-score's summary, trivy's message. */
  finding: string;
}

/** The Kubernetes version kube-score judges against (the one the tests' kube-apiserver runs). */
const KUBERNETES_MINOR = 'v1.37';
/** kube-score's grades: 1 is CRITICAL. */
const KUBE_SCORE_CRITICAL = 1;
const TRIVY_ERROR_LEVEL = new Set(['HIGH', 'CRITICAL']);

const run = promisify(execFile);
const RUN_OPTIONS = { maxBuffer: 64 << 20, timeout: 300_000 };

interface KubeScoreObject {
  type_meta: { kind: string };
  object_meta: { name: string; namespace?: string };
  checks: {
    check: { id: string };
    grade: number;
    skipped: boolean;
    comments: { path: string; summary: string }[] | null;
  }[];
}

const objectName = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/** kube-score's JSON report (-o json, v2) as findings at CRITICAL, one per comment. */
export function kubeScoreFindings(report: KubeScoreObject[]): Finding[] {
  return report.flatMap((o) =>
    o.checks
      .filter((c) => c.grade === KUBE_SCORE_CRITICAL && !c.skipped)
      .flatMap((c) =>
        (c.comments ?? [{ path: '', summary: '' }]).map((comment) => ({
          tool: 'kube-score' as const,
          check: c.check.id,
          object: objectName(o.type_meta.kind, o.object_meta.namespace, o.object_meta.name),
          container: comment.path,
          finding: comment.summary,
        })),
      ),
  );
}

export interface TrivyResult {
  file: string;
  id: string;
  severity: string;
  message: string;
}

/** trivy names the container only in its message: "Container 'server' of Deployment ...",
 *  "Container server in deployment ...". */
export const trivyContainer = (message: string) => /^Container '?([a-z0-9.-]+)'? (?:of|in) /.exec(message)?.[1] ?? '';

/** trivy-kubernetes's lines at HIGH and CRITICAL as findings; object names come from the files. */
export function trivyFindings(results: TrivyResult[], objectOf: (file: string) => string): Finding[] {
  return results
    .filter((r) => TRIVY_ERROR_LEVEL.has(r.severity))
    .map((r) => ({
      tool: 'trivy' as const,
      check: r.id,
      object: objectOf(r.file),
      container: trivyContainer(r.message),
      finding: `${r.severity}: ${r.message}`,
    }));
}

const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(dir, f));

/** Both linters over one environment's folder (one object per file, as synth writes it). */
export async function lintManifests(dir: string): Promise<Finding[]> {
  // kube-score exits 1 when it has a CRITICAL finding; its report is on stdout either way.
  const kubeScore = await run(
    tool('kube-score'),
    ['score', '-o', 'json', '--kubernetes-version', KUBERNETES_MINOR, ...yamlFiles(dir)],
    RUN_OPTIONS,
  ).catch((e: { code?: number | string; stdout?: string; message: string }) => {
    if (e.code === 1 && e.stdout) return { stdout: e.stdout };
    throw new Error(`kube-score did not run: ${e.message}`);
  });
  const trivy = await run(tool('trivy-kubernetes'), [dir], RUN_OPTIONS);
  const objectOf = (file: string) => {
    const o = load(readFileSync(join(dir, file), 'utf8')) as {
      kind: string;
      metadata: { name: string; namespace?: string };
    };
    return objectName(o.kind, o.metadata.namespace, o.metadata.name);
  };
  const results = trivy.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TrivyResult);
  return [...kubeScoreFindings(JSON.parse(kubeScore.stdout) as KubeScoreObject[]), ...trivyFindings(results, objectOf)];
}

/** A finding kept on purpose (test/lint/allowlist.yaml): the same tool and check, and when
 *  `finding` is given, only that finding of the check. */
export interface Allowed {
  tool: Linter;
  check: string;
  finding?: string;
  why: string;
}

export const isAllowed = (f: Finding, allowlist: readonly Allowed[]) =>
  allowlist.some(
    (a) => a.tool === f.tool && a.check === f.check && (a.finding === undefined || a.finding === f.finding),
  );

export const describeFinding = (f: Finding) =>
  `${f.tool} ${f.check} ${f.object}${f.container ? ` (${f.container})` : ''}: ${f.finding}`;
