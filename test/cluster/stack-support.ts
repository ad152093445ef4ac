// What the cluster tests share: the kustomize overlay a user would write to run dist/<env> on a
// cluster without a registry (images:, and imagePullPolicy Never by patch for the committed
// dist/<env>; a stack a test synthesizes sets it with the props, neverPull), hostPath
// PersistentVolumes for etcd's claims (no provisioner here), readiness waits, and dig against
// cluster addresses with the network-safety route check before every new address.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { assertLocalRoute, type Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { answerData, dig, type DigResult } from '../support/dig.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { GiveUp, waitFor } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { installGatewayApiCrds } from '../support/gateway-api.ts';
import { repoRoot } from '../support/tools.ts';
import { dev } from '../../src/environments/dev.ts';

export const NAMESPACE = 'etcdns';
export const distDir = join(repoRoot, 'dist');
/** dist/dev's zone, which every cluster suite's stack serves. */
export const ZONE = dev.zones[0]!.name;
/** The Service of dist/dev's internal DNS server. */
export const SERVER = 'etcdns-server-internal';
/** The annotation a user sets on a Service, an Ingress or a route. */
export const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';

export interface OverlayPatch {
  kind: string;
  /** @default - every object of the kind */
  name?: string;
  /** JSON 6902 operations. */
  ops: object[];
}

/** For the committed dist/<env>, which pulls IfNotPresent: every container runs the loaded image. */
export const NEVER_PULL: OverlayPatch[] = ['Deployment', 'StatefulSet'].map((kind) => ({
  kind,
  ops: [{ op: 'replace', path: '/spec/template/spec/containers/0/imagePullPolicy', value: 'Never' }],
}));

/** Props whose every container runs only the image the node has, as a user would set them. */
export function neverPull(props: DnsStackProps): DnsStackProps {
  const never = { imagePullPolicy: 'Never' } as const;
  return {
    ...props,
    etcd: { ...props.etcd, ...never },
    server: { ...props.server, ...never },
    controller: { ...props.controller, ...never },
  };
}

/**
 * A kustomization over `base` (a dist/<env> folder) that points the stack at the local images, as
 * a user's overlay for an air-gapped cluster would, plus `patches` (NEVER_PULL, the etcd-member
 * init container of membership.cluster.ts). Returns its folder.
 */
export function writeOverlay(base: string, images: ClusterImages, patches: OverlayPatch[] = []): string {
  const dir = tempDir('overlay');
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      // kustomize refuses an absolute path to a base folder.
      `  - ${relative(dir, base)}`,
      'images:',
      '  - name: ghcr.io/etcdns/etcdns',
      `    newName: ${images.etcdns.repository}`,
      `    newTag: "${images.etcdns.tag}"`,
      '  - name: registry.k8s.io/etcd',
      `    newName: ${images.etcd.repository}`,
      `    newTag: "${images.etcd.tag}"`,
      ...(patches.length > 0 ? ['patches:'] : []),
      ...patches.map((p) =>
        [
          `  - target: { kind: ${p.kind}${p.name ? `, name: ${p.name}` : ''} }`,
          `    patch: '${JSON.stringify(p.ops).replace(/'/g, "''")}'`,
        ].join('\n'),
      ),
      '',
    ].join('\n'),
  );
  return dir;
}

/** Server-side apply of a kustomization, as Argo CD (ServerSideApply=true) applies it. */
export function applyKustomization(cluster: Cluster, dir: string): string {
  const apply = (args: string[], input?: string) =>
    cluster.kubectl(['apply', '--server-side', '--field-manager=etcdns-cluster-test', ...args], input);
  // The CustomResourceDefinitions the folder brings first, established, as Flux applies them (and
  // Argo CD's first sync wave); kubectl alone would refuse their objects in the same call.
  const crds = cluster
    .kubectl(['kustomize', dir])
    .split(/^---$/m)
    .filter((doc) => /^kind: CustomResourceDefinition$/m.test(doc));
  if (crds.length > 0) {
    apply(['-f', '-'], crds.join('\n---\n'));
    cluster.kubectl(['wait', '--for=condition=Established', '--timeout=60s', '-f', '-'], crds.join('\n---\n'));
  }
  return apply(['-k', dir]);
}

/**
 * What the stack needs from the cluster before its first apply: etcd's volume, and the Gateway API
 * CRDs, as a cluster running a Gateway API implementation has them (dist/dev reads HTTP and gRPC
 * routes; without the CRDs its controller publishes the rest and names what to install).
 */
export async function prepareStack(cluster: Cluster): Promise<void> {
  await createEtcdVolumes(cluster, { statefulSet: 'etcdns-etcd', ordinals: [0], size: '1Gi' });
  await installGatewayApiCrds(cluster.admin);
}

/**
 * A stack folder (the committed dist/dev unless told) applied the way a user's air-gapped overlay
 * applies it. Returns the internal DNS Service.
 */
export async function applyStack(
  cluster: Cluster,
  images: ClusterImages,
  o: { dir?: string; patches?: OverlayPatch[] } = {},
): Promise<DnsService> {
  applyKustomization(cluster, writeOverlay(o.dir ?? join(distDir, 'dev'), images, o.patches ?? NEVER_PULL));
  return dnsService(cluster.admin, SERVER);
}

/**
 * hostPath PersistentVolumes bound to etcd's claims data-<statefulset>-<i> (no dynamic
 * provisioner runs here). The directories are writable by etcd's non-root user.
 */
export async function createEtcdVolumes(
  cluster: Cluster,
  o: { statefulSet: string; ordinals: number[]; size: string; namespace?: string },
): Promise<string[]> {
  const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
  // In the cluster's own directory: removed with it, also after a run that died.
  const root = cluster.workDir('pv');
  const names: string[] = [];
  for (const i of o.ordinals) {
    const claim = `data-${o.statefulSet}-${i}`;
    const path = join(root, claim);
    mkdirSync(path);
    chmodSync(path, 0o777);
    const name = `${claim}-${Date.now().toString(36)}`;
    await core.createPersistentVolume({
      body: {
        metadata: { name },
        spec: {
          capacity: { storage: o.size },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path, type: 'Directory' },
          claimRef: { namespace: o.namespace ?? NAMESPACE, name: claim },
        },
      },
    });
    names.push(name);
  }
  return names;
}

export interface PodState {
  name: string;
  uid: string;
  ready: boolean;
  phase: string;
  ip?: string;
  restarts: number;
}

export async function pods(kc: k8s.KubeConfig, selector?: string, namespace = NAMESPACE): Promise<PodState[]> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const list = await core.listNamespacedPod({ namespace, labelSelector: selector });
  return list.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => ({
      name: p.metadata!.name!,
      uid: p.metadata!.uid!,
      phase: p.status?.phase ?? '',
      ip: p.status?.podIP,
      ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      restarts: (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
    }));
}

/** Waits until exactly `count` pods match and all are Ready. */
export async function waitPodsReady(
  kc: k8s.KubeConfig,
  selector: string,
  count: number,
  timeoutMs = 180_000,
  namespace = NAMESPACE,
): Promise<PodState[]> {
  return waitFor(
    `${count} Ready pod(s) ${selector}`,
    async () => {
      const ps = await pods(kc, selector, namespace);
      return ps.length === count && ps.every((p) => p.ready) ? ps : undefined;
    },
    timeoutMs,
    250,
  );
}

export const component = (name: string) => `app.kubernetes.io/name=etcdns,app.kubernetes.io/component=${name}`;

const checked = new Set<string>();
/** dig against a cluster address, after `ip route get` showed it stays on this host. */
export async function digAt(
  server: string,
  port: number,
  name: string,
  type = 'A',
  opts: { tcp?: boolean; timeoutSeconds?: number } = {},
): Promise<DigResult> {
  if (!checked.has(server)) {
    assertLocalRoute(server);
    checked.add(server);
  }
  return dig({ server, port, name, type, tcp: opts.tcp, timeoutSeconds: opts.timeoutSeconds ?? 1 });
}

export interface DnsService {
  clusterIp: string;
  udpNodePort: number;
  tcpNodePort: number;
}

export async function dnsService(kc: k8s.KubeConfig, name: string, namespace = NAMESPACE): Promise<DnsService> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const svc = await core.readNamespacedService({ name, namespace });
  const port = (protocol: string) =>
    svc.spec?.ports?.find((p) => p.port === 53 && p.protocol === protocol)?.nodePort ?? 0;
  return { clusterIp: svc.spec!.clusterIP!, udpNodePort: port('UDP'), tcpNodePort: port('TCP') };
}

/** An authoritative SOA answer for ZONE from `server`: the stack is up behind that address. */
export async function soaAnswered(server: string, port: number, tcp = false): Promise<boolean> {
  const r = await digAt(server, port, ZONE, 'SOA', { tcp });
  return r.status === 'NOERROR' && r.flags.includes('aa') && r.answer.some((a) => a.type === 'SOA');
}

/**
 * A LoadBalancer Service `name` whose hostname annotation asks for `name`.ZONE at the load-balancer
 * address `ip`, as a user creates it; resolves to the milliseconds until `dns` answers it.
 */
export async function publishService(
  cluster: Cluster,
  dns: DnsService,
  name: string,
  ip: string,
  timeoutMs = 30_000,
): Promise<number> {
  const t0 = performance.now();
  await createLoadBalancerService(cluster.admin, {
    name,
    annotations: { [HOSTNAME]: `${name}.${ZONE}` },
    addresses: [{ ip }],
  });
  await timeUntil(
    `${name} answered`,
    async () => answerData(await digAt(dns.clusterIp, 53, `${name}.${ZONE}`), 'A').join() === ip,
    timeoutMs,
  );
  return Math.round(performance.now() - t0);
}

/** Polls `check` every `intervalMs` and returns the milliseconds until it first held. */
export async function timeUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 20) {
  const t0 = performance.now();
  await waitFor(what, async () => ((await check()) ? true : undefined), timeoutMs, intervalMs);
  return Math.round(performance.now() - t0);
}

/** Pods, PVCs, recent events and the last logs of every pod that is not Ready: for failures. */
export function diagnose(cluster: Cluster, namespace = NAMESPACE): string {
  const out: string[] = [];
  const safe = (args: string[]) => {
    try {
      return cluster.kubectl(args);
    } catch (e) {
      return String((e as Error).message);
    }
  };
  out.push(safe(['get', 'pods,pvc', '-n', namespace, '-o', 'wide']));
  out.push(safe(['get', 'events', '-n', namespace, '--sort-by=.lastTimestamp']).split('\n').slice(-25).join('\n'));
  const notReady = safe([
    'get',
    'pods',
    '-n',
    namespace,
    '-o',
    'jsonpath={range .items[*]}{.metadata.name} {.status.containerStatuses[*].ready}{"\\n"}{end}',
  ]);
  for (const line of notReady.split('\n').filter((l) => l.includes('false'))) {
    const pod = line.split(' ')[0]!;
    out.push(
      `--- logs ${pod} (previous) ---\n${safe(['logs', '-n', namespace, pod, '--all-containers', '--previous', '--tail=40'])}`,
    );
    out.push(`--- logs ${pod} ---\n${safe(['logs', '-n', namespace, pod, '--all-containers', '--tail=40'])}`);
  }
  return out.join('\n');
}

/** Throws with diagnostics when a pod of the namespace restarted `limit` times (a crash loop). */
export async function failOnCrashLoop(cluster: Cluster, limit = 2, namespace = NAMESPACE): Promise<void> {
  const looping = (await pods(cluster.admin, undefined, namespace)).filter((p) => p.restarts >= limit);
  if (looping.length)
    throw new GiveUp(`crash loop: ${looping.map((p) => p.name).join(', ')}\n${diagnose(cluster, namespace)}`);
}
