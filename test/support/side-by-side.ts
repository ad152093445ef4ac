// Side by side with the real external-dns v0.22 on one source's objects: one kube-apiserver with
// the source's CRDs and objects (the suite's `setup`), external-dns (CoreDNS provider, TXT
// registry) writing one etcd, `etcdns controller --once` another, each read by our DNS server;
// then every name is asked every type of both. A suite per source lists the names both publish
// (with their targets), the names both leave out, and why any other answer differs: a
// difference not listed, or a listed one that no longer shows, fails it. Figures (same /
// justified / differing) go to the test log.
import assert from 'node:assert/strict';
import { answerData, dig } from './dig.ts';
import { answerDifferences, comparable } from './dns-compare.ts';
import { startEtcd, type EtcdHandle } from './etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from './etcdns-server.ts';
import { runExternalDns } from './external-dns.ts';
import { startKubeApiserver, type KubeHandle } from './kube-apiserver.ts';
import { keyToName } from '../../src/skydns/skydns-key.ts';
import { runOnce } from '../runtime/controller/controller-harness.ts';

export const SIDE_BY_SIDE_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'MX', 'NS', 'PTR'];

export interface SideBySideSuite {
  /** external-dns's source names, given to both. */
  sources: string[];
  /** Flags for both (external-dns spelling: --flag=value), and for each alone. */
  args?: string[];
  externalDnsArgs?: string[];
  etcdnsArgs?: string[];
  zones: string[];
  /** Creates the CRDs and objects in the API server. */
  setup(kube: KubeHandle): Promise<void>;
  /** Names both publish: name -> targets (A addresses, or one CNAME target ending in "."). */
  names: Record<string, string[]>;
  /** Names neither publishes. */
  absent: string[];
  /** Why answers differ: "name" (every type) or "name TYPE" -> reason (docs/sources.md says the same). */
  differences?: Record<string, string>;
}

export interface SideBySide {
  kube: KubeHandle;
  ours: EtcdnsServerHandle;
  theirs: EtcdnsServerHandle;
  theirsEtcd: EtcdHandle;
  figures: string[];
}

/** Starts everything, creates the objects, runs both once. */
export async function startSideBySide(suite: SideBySideSuite): Promise<SideBySide> {
  const kube = await startKubeApiserver();
  const [etcdOurs, theirsEtcd] = await Promise.all([startEtcd(), startEtcd()]);
  const [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: etcdOurs.endpoints, zones: suite.zones }),
    startEtcdnsServer({ etcdEndpoints: theirsEtcd.endpoints, zones: suite.zones }),
  ]);
  await suite.setup(kube);
  const figures: string[] = [];
  const domains = suite.zones.flatMap((d) => [`--domain-filter=${d}`]);
  let started = performance.now();
  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: theirsEtcd.endpoints,
    args: [
      ...suite.sources.map((s) => `--source=${s}`),
      ...domains,
      ...SIDE_BY_SIDE_TYPES.map((t) => `--managed-record-types=${t}`),
      '--txt-owner-id=theirs',
      '--registry=txt',
      '--policy=sync',
      ...(suite.args ?? []),
      ...(suite.externalDnsArgs ?? []),
    ],
  });
  figures.push(`external-dns --once ${Math.round(performance.now() - started)} ms`);
  started = performance.now();
  const once = await runOnce({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: [etcdOurs.endpoint],
    ownerId: 'ours',
    args: [
      ...suite.sources.flatMap((s) => ['--source', s]),
      ...domains,
      ...(suite.args ?? []),
      ...(suite.etcdnsArgs ?? []),
    ],
  });
  assert.equal(once.code, 0, once.stderr);
  figures.push(`etcdns controller --once ${Math.round(performance.now() - started)} ms`);
  // Both servers follow their etcd through a watch; give them a moment to see the last writes.
  await new Promise((r) => setTimeout(r, 500));
  return { kube, ours, theirs, theirsEtcd, figures };
}

/** Each listed name answers its targets from both; each absent name from neither. */
export async function assertSameNames(run: SideBySide, suite: SideBySideSuite): Promise<void> {
  for (const [name, want] of Object.entries(suite.names)) {
    const type = want[0]!.endsWith('.') ? 'CNAME' : 'A';
    for (const [who, server] of [
      ['etcdns', run.ours],
      ['external-dns', run.theirs],
    ] as const)
      assert.deepEqual(
        answerData(await dig({ port: server.port, name, type }), type),
        [...want].sort(),
        `${who}: ${name}`,
      );
  }
  for (const name of suite.absent)
    for (const [who, server] of [
      ['etcdns', run.ours],
      ['external-dns', run.theirs],
    ] as const) {
      const status = (await dig({ port: server.port, name })).status;
      assert.ok(['NXDOMAIN', 'REFUSED'].includes(status), `${who}: ${name} ${status}`);
    }
}

/**
 * Every name (listed, absent, with a difference, and external-dns's TXT registry names) asked every type of both:
 * the same answers except the suite's differences. Returns the figures: questions, same, justified, differing.
 */
export async function compareAnswers(run: SideBySide, suite: SideBySideSuite): Promise<string> {
  const registry = new Set<string>();
  for (const [key, value] of Object.entries(await run.theirsEtcd.client().getAll().prefix('/skydns/').strings()))
    if (value.includes('heritage=external-dns'))
      registry.add(keyToName(key.slice(0, key.lastIndexOf('/')), '/skydns')!);
  const differences = suite.differences ?? {};
  const why = (name: string, type: string) =>
    registry.has(name)
      ? 'TXT registry (ownership published in the zone)'
      : (differences[`${name} ${type}`] ?? differences[name]);
  const listed = Object.keys(differences).map((k) => k.split(' ')[0]!);
  const names = [...new Set([...Object.keys(suite.names), ...suite.absent, ...listed, ...registry])];
  const unexpected: Record<string, string[]> = {};
  const seen = new Set<string>();
  let same = 0;
  let justified = 0;
  let byRegistry = 0;
  for (const name of names)
    for (const type of SIDE_BY_SIDE_TYPES) {
      const [a, b] = await Promise.all([
        dig({ port: run.ours.port, name, type }),
        dig({ port: run.theirs.port, name, type }),
      ]);
      const d = answerDifferences(comparable(a), comparable(b), ['etcdns', 'external-dns']);
      if (d.length === 0) same += 1;
      else if (why(name, type)) {
        justified += 1;
        if (registry.has(name)) byRegistry += 1;
        seen.add(differences[`${name} ${type}`] ? `${name} ${type}` : name);
      } else unexpected[`${name} ${type}`] = d;
    }
  assert.deepEqual(unexpected, {}, JSON.stringify(unexpected, null, 2));
  const vanished = Object.keys(differences).filter((k) => !seen.has(k));
  assert.deepEqual(vanished, [], 'each listed difference still shows');
  return `${names.length * SIDE_BY_SIDE_TYPES.length} questions, ${same} same, ${justified} justified (${byRegistry} at external-dns's TXT registry names, ${justified - byRegistry} listed differences), 0 differing`;
}
