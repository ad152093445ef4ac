// etcd in the cluster tests: the prod shape (TLS, several members) synthesized and applied, the
// TLS Secrets the constructs expect (made with openssl), a member list over TLS from the host to
// a member's pod address, a name answered throughout a disruption, and a bounded dig load.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdDnsNames } from '../../src/constructs/etcd/etcd-certificates.ts';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import { assertLocalRoute, CLUSTER_DOMAIN, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { makeClusterPki, type CertFiles, type ClusterPki } from '../support/cluster-pki.ts';
import { answerData } from '../support/dig.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  applyKustomization,
  createEtcdVolumes,
  digAt,
  NAMESPACE,
  neverPull,
  publishService,
  writeOverlay,
  ZONE,
  type DnsService,
} from './stack-support.ts';

export const STS = 'etcdns-etcd';
export const ETCD_TLS_PROPS = {
  serverSecret: 'etcdns-etcd-server-tls',
  peerSecret: 'etcdns-etcd-peer-tls',
  clientSecret: 'etcdns-etcd-client-tls',
};

export interface EtcdTls {
  secrets: k8s.V1Secret[];
  caCert: string;
  client: CertFiles;
  /** The CA, for more client certificates (a spoke's). */
  pki: ClusterPki;
}

/**
 * The Secrets an operator (or cert-manager, etcd-certificates.ts) provides; `serverIps`: more
 * addresses the server certificate names (where spokes dial a hub's etcd).
 */
export function etcdTls(serverIps: string[] = []): EtcdTls {
  const pki = makeClusterPki(tempDir('etcd-pki'));
  // Exactly the names the constructs give cert-manager's Certificates (and document for own Secrets).
  const names = etcdDnsNames({
    clientService: STS,
    peerService: `${STS}-peer`,
    namespace: NAMESPACE,
    clusterDomain: CLUSTER_DOMAIN,
  });
  const server = pki.issue('server', { cn: STS }, { dns: names.server, ips: ['127.0.0.1', ...serverIps] });
  const peer = pki.issue('peer', { cn: names.peer[0]! }, { dns: names.peer });
  const client = pki.issue('client', { cn: 'etcdns' });
  const secret = (name: string, files: CertFiles): k8s.V1Secret => ({
    metadata: { name, namespace: NAMESPACE },
    type: 'kubernetes.io/tls',
    data: {
      'ca.crt': readFileSync(pki.caCert).toString('base64'),
      'tls.crt': readFileSync(files.cert).toString('base64'),
      'tls.key': readFileSync(files.key).toString('base64'),
    },
  });
  return {
    secrets: [
      secret(ETCD_TLS_PROPS.serverSecret, server),
      secret(ETCD_TLS_PROPS.peerSecret, peer),
      secret(ETCD_TLS_PROPS.clientSecret, client),
    ],
    caCert: pki.caCert,
    client,
    pki,
  };
}

/**
 * The namespace with the etcd TLS Secrets and hostPath volumes for the members `ordinals`, as an
 * operator prepares them before the first apply.
 */
export async function prepareTlsEtcd(cluster: Cluster, ordinals: number[], serverIps: string[] = []): Promise<EtcdTls> {
  const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const tls = etcdTls(serverIps);
  for (const body of tls.secrets) await core.createNamespacedSecret({ namespace: NAMESPACE, body });
  await createEtcdVolumes(cluster, { statefulSet: STS, ordinals, size: '1Gi' });
  return tls;
}

/** dist/dev with a `replicas`-member etcd in the prod shape, synthesized and applied: a change in code. */
export function applyTlsEtcd(cluster: Cluster, images: ClusterImages, replicas: number): void {
  const dir = tempDir(`dist-etcd-${replicas}`);
  writeManifests(
    join(dir, 'env'),
    synthStack(
      neverPull({
        ...dev,
        etcd: { replicas, storage: { size: '1Gi' }, antiAffinity: 'preferred', tls: ETCD_TLS_PROPS },
      }),
    ),
  );
  applyKustomization(cluster, writeOverlay(join(dir, 'env'), images));
}

/** The name a disruption's dig load asks: a Service published and answered before it starts. */
export const STEADY = { name: `steady.${ZONE}`, ip: '10.213.200.70' };

export async function publishSteady(cluster: Cluster, dns: DnsService): Promise<void> {
  await publishService(cluster, dns, 'steady', STEADY.ip);
}

/** An etcd client over TLS to one member's pod address (the certificate names the client Service). */
function memberClient(tls: EtcdTls, ip: string): Etcd3 {
  assertLocalRoute(ip);
  return new Etcd3({
    hosts: [`https://${ip}:2379`],
    credentials: {
      rootCertificate: readFileSync(tls.caCert),
      privateKey: readFileSync(tls.client.key),
      certChain: readFileSync(tls.client.cert),
    },
    grpcOptions: { 'grpc.ssl_target_name_override': STS, 'grpc.default_authority': STS },
    dialTimeout: 3000,
  });
}

export async function members(tls: EtcdTls, ip: string): Promise<{ name: string; id: string }[]> {
  const etcd = memberClient(tls, ip);
  try {
    const list = await etcd.cluster.memberList({});
    return list.members.map((m) => ({ name: m.name, id: m.ID })).sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    etcd.close();
  }
}

/**
 * Runs `probe` again and again until `stop()` (or `maxCount` runs, or `maxMs`), pausing `pauseMs`
 * between runs; `probe` resolves to undefined, or to what went wrong. `stop()` resolves to how
 * many ran and, for each that failed, when and why.
 */
function repeatUntilStopped(probe: () => Promise<string | undefined>, maxCount: number, maxMs: number, pauseMs = 0) {
  let stopped = false;
  let runs = 0;
  const failures: string[] = [];
  const done = (async () => {
    const deadline = Date.now() + maxMs;
    while (!stopped && Date.now() < deadline && runs < maxCount) {
      runs++;
      const failure = await probe();
      if (failure !== undefined) failures.push(`${new Date().toISOString()} ${failure}`);
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return { runs, failures };
    },
  };
}

/** Sequential dig queries for STEADY through the ClusterIP until `stop()` resolves; bounded in count and time. */
export function digLoad(dns: DnsService) {
  const load = repeatUntilStopped(
    async () => {
      const r = await digAt(dns.clusterIp, 53, STEADY.name, 'A').catch((e: Error) => e);
      if (r instanceof Error) return r.message;
      const got = answerData(r, 'A').join();
      return r.status === 'NOERROR' && got === STEADY.ip ? undefined : `${r.status || 'no answer'} ${got}`;
    },
    30_000,
    300_000,
  );
  return {
    stop: async () => {
      const { runs, failures } = await load.stop();
      return { queries: runs, failures };
    },
  };
}

/**
 * Without a quorum etcd answers /health with 503 by itself: at once when it has no leader, else
 * when its linearizable read times out (1 s in 3.4, the test image: measured 1.01 s with 2 of 3
 * members stopped; the request timeout, 7 s by default, in 3.5). Waiting longer than that lets
 * etcd, not our clock, say whether there was a quorum: a slow answer (a busy node, a lost SYN
 * resent after 1 s) that says "true" had one. No answer at all within this still fails.
 */
const HEALTH_ANSWER_MS = 10_000;

/**
 * Linearizable health checks of one member (its metrics port, plain HTTP) every 250 ms until
 * `stop()`: any failure means the cluster had no quorum at that moment. Bounded in count and time.
 */
export function quorumWatch(ip: string) {
  let slowestMs = 0;
  const watch = repeatUntilStopped(
    async () => {
      const start = performance.now();
      const failure = await fetch(`http://${ip}:2381/health?serializable=false`, {
        signal: AbortSignal.timeout(HEALTH_ANSWER_MS),
      })
        .then(async (r) =>
          r.ok && ((await r.json()) as { health?: string }).health === 'true' ? undefined : `HTTP ${r.status}`,
        )
        .catch((e: Error) => e.message);
      slowestMs = Math.max(slowestMs, performance.now() - start);
      return failure;
    },
    2400,
    600_000,
    250,
  );
  return {
    stop: async () => {
      const { runs, failures } = await watch.stop();
      return { checks: runs, failures, slowestMs: Math.round(slowestMs) };
    },
  };
}
