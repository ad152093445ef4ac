// Side by side with the real external-dns, step by step, for tests that keep their own setup
// and objects (side-by-side.ts is the one-source harness): one --once of each, then every name
// of each group asked of our DNS server over etcdns's etcd and over external-dns's, for every
// type; each answer is the same or has a listed reason. The figures say how many of each.
import assert from 'node:assert/strict';
import { keyToName } from '../../src/skydns/skydns-key.ts';
import { runOnce } from '../runtime/controller/controller-harness.ts';
import { answerData, dig } from './dig.ts';
import { answerDifferences, comparable } from './dns-compare.ts';
import type { EtcdHandle } from './etcd.ts';
import { runExternalDns } from './external-dns.ts';

/**
 * One reconciliation of each on the same sources and domains: external-dns --once (TXT registry,
 * owner "theirs") into its etcd, etcdns controller --once (owner "ours") into the other; then a
 * moment for the DNS servers' watches. Returns how long each took.
 */
export async function syncBoth(o: {
  kubeconfigFile: string;
  oursEtcd: EtcdHandle;
  theirsEtcd: EtcdHandle;
  sources: string[];
  domains: string[];
  /** external-dns's --managed-record-types. */
  types: string[];
  /** Flags both take, as "--flag=value". */
  shared?: string[];
  /** etcdns's kubeconfig (e.g. the ServiceAccount of its ClusterRole); default external-dns's. */
  oursKubeconfigFile?: string;
}): Promise<string[]> {
  const figures: string[] = [];
  let started = performance.now();
  await runExternalDns({
    kubeconfigFile: o.kubeconfigFile,
    etcdEndpoints: o.theirsEtcd.endpoints,
    args: [
      ...o.sources.map((s) => `--source=${s}`),
      ...o.domains.map((d) => `--domain-filter=${d}`),
      ...o.types.map((t) => `--managed-record-types=${t}`),
      ...(o.shared ?? []),
      '--txt-owner-id=theirs',
      '--registry=txt',
      '--policy=sync',
    ],
  });
  figures.push(`external-dns --once ${Math.round(performance.now() - started)} ms`);
  started = performance.now();
  const once = await runOnce({
    kubeconfigFile: o.oursKubeconfigFile ?? o.kubeconfigFile,
    etcdEndpoints: [o.oursEtcd.endpoint],
    ownerId: 'ours',
    args: [
      ...o.sources.flatMap((s) => ['--source', s]),
      ...o.domains.flatMap((d) => ['--domain-filter', d]),
      ...(o.shared ?? []),
    ],
  });
  assert.equal(once.code, 0, once.stderr);
  figures.push(`etcdns controller --once ${Math.round(performance.now() - started)} ms`);
  // Both servers follow their etcd through a watch; give them a moment to see the last writes.
  await new Promise((r) => setTimeout(r, 500));
  return figures;
}

/** Both servers answer `name` `type` with exactly `want` (sorted), each named in the message. */
export async function assertBothAnswer(
  servers: { ours: { port: number }; theirs: { port: number } },
  name: string,
  type: string,
  want: string[],
): Promise<void> {
  for (const [who, server] of [
    ['etcdns', servers.ours],
    ['external-dns', servers.theirs],
  ] as const)
    assert.deepEqual(
      answerData(await dig({ port: server.port, name, type }), type),
      [...want].sort(),
      `${who}: ${name} ${type}`,
    );
}

export const REGISTRY = 'TXT registry (ownership published in the zone)';

/** The names of the TXT registry entries external-dns wrote into its etcd (their text names it). */
export async function externalDnsRegistryNames(etcd: EtcdHandle): Promise<Set<string>> {
  const registry = new Set<string>();
  for (const [key, value] of Object.entries(await etcd.client().getAll().prefix('/skydns/').strings()))
    if (value.includes('heritage=external-dns'))
      registry.add(keyToName(key.slice(0, key.lastIndexOf('/')), '/skydns')!);
  return registry;
}

export interface Comparison {
  /** "<group>: N questions, S same, J justified (reason: n; ...)". */
  figures: string[];
  /** "name TYPE" -> the differences, for those without a reason. */
  unexpected: Record<string, string[]>;
  /** The keys of `expected` ("name" or "name TYPE") that explained a difference. */
  seen: Set<string>;
}

/**
 * Asks every name of every group, every type, of both servers. A difference is explained by
 * `expected` ("name TYPE" before "name") or, for external-dns's registry names, by REGISTRY.
 */
export async function compareAnswers(o: {
  ours: { port: number };
  theirs: { port: number };
  groups: [group: string, names: string[]][];
  types: string[];
  expected: Record<string, string>;
  registry: ReadonlySet<string>;
}): Promise<Comparison> {
  const result: Comparison = { figures: [], unexpected: {}, seen: new Set() };
  for (const [group, names] of o.groups) {
    let same = 0;
    let unexplained = 0;
    const justified = new Map<string, number>();
    for (const name of names)
      for (const type of o.types) {
        const [a, b] = await Promise.all([
          dig({ port: o.ours.port, name, type }),
          dig({ port: o.theirs.port, name, type }),
        ]);
        const d = answerDifferences(comparable(a), comparable(b), ['etcdns', 'external-dns']);
        if (d.length === 0) {
          same += 1;
          continue;
        }
        const key = o.expected[`${name} ${type}`] ? `${name} ${type}` : name;
        const reason = o.registry.has(name) ? REGISTRY : o.expected[key];
        if (!reason) {
          result.unexpected[`${name} ${type}`] = d;
          unexplained += 1;
          continue;
        }
        justified.set(reason, (justified.get(reason) ?? 0) + 1);
        if (reason !== REGISTRY) result.seen.add(key);
      }
    const total = names.length * o.types.length;
    const reasons = [...justified].map(([r, n]) => `${r}: ${n}`).join('; ');
    result.figures.push(
      `${group}: ${total} questions, ${same} same, ${total - same - unexplained} justified${reasons ? ` (${reasons})` : ''}, ${unexplained} differing`,
    );
  }
  return result;
}
