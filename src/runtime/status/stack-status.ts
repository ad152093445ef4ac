// What `etcdns status` reads of a running stack, through the Kubernetes API only (as the person
// running it, with their kubeconfig): the stack's pods, and through the API server's proxy each
// pod's own account: etcd's /metrics and /health, each DNS server's and controller's
// /status.json; the controller's Lease; with a DNSSEC signer, the DS its zones' parents need, from
// its CDS records at its Service's address (signer-ds.ts); with --explain NAME, only each DNS
// server's /status.json?name=NAME. A part that does not answer is kept as its error.
import type { KubeClient } from '../kube/kube-client.ts';
import type { ControllerSummary } from '../controller/controller-page.ts';
import type { ServerSummary } from '../dns-server/server-page.ts';
import { metricSamples, type MetricSample } from './metric-samples.ts';
import { readDs } from './signer-ds.ts';

export type Fetched<T> = { ok: true; value: T } | { ok: false; error: string };

export interface PodInfo {
  name: string;
  /** app.kubernetes.io/component: etcd, server-<view>, controller. */
  component: string;
  ready: boolean;
  phase: string;
  restarts: number;
}

export interface StackStatus {
  namespace: string;
  name: string;
  at: Date;
  /** The etcd StatefulSet's replicas: how many members there should be. */
  etcdReplicas: Fetched<number>;
  etcd: { pod: PodInfo; metrics: Fetched<MetricSample[]>; health: Fetched<boolean> }[];
  servers: { view: string; pod: PodInfo; summary: Fetched<ServerSummary> }[];
  controllers: { pod: PodInfo; summary: Fetched<ControllerSummary> }[];
  /** The controller's Lease; undefined when there is none (one replica, no leader election). */
  lease: Fetched<{ holder?: string; renewTime?: string; durationSeconds?: number }> | undefined;
  /** The DNSSEC signer, asked at its Service's address; undefined when the stack has none. */
  signer?: Fetched<SignerStatus> | undefined;
}

export interface SignerStatus {
  /** "address:port" of its Service: the load balancer's address, else the ClusterIP. */
  at: string;
  /** Each zone it signs, with the DS lines its CDS records give (none: not signed yet). */
  zones: { zone: string; ds: Fetched<string[]> }[];
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: { ports?: { name?: string; containerPort: number }[] }[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number }[];
  };
}

/** A pod's proxied endpoints answer within this (a stuck pod must not hold the command up). */
const PROXY_TIMEOUT_MS = 5000;

async function fetched<T>(read: () => Promise<T>): Promise<Fetched<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** The stack's pods, those being deleted left out, by name. */
async function stackPods(kube: KubeClient, ns: string, name: string): Promise<Pod[]> {
  const selector = encodeURIComponent(`app.kubernetes.io/name=${name}`);
  return (await kube.request<{ items: Pod[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${selector}`)).items
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** GET on a pod's named port through the API server's proxy. */
async function proxied(kube: KubeClient, ns: string, pod: Pod, portName: string, path: string): Promise<string> {
  const port = pod.spec.containers.flatMap((c) => c.ports ?? []).find((p) => p.name === portName)?.containerPort;
  if (port === undefined) throw new Error(`no port named ${portName}`);
  const url = `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(pod.metadata.name)}:${port}/proxy${path}`;
  const res = await kube.getText(url, PROXY_TIMEOUT_MS);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.trim().split('\n')[0]?.slice(0, 200)}`);
  return res.body;
}

/** A pod's JSON on its HTTP port (its status page's /status.json), or why not. */
const statusJson = <T>(kube: KubeClient, ns: string, pod: Pod, path: string) =>
  fetched(async () => JSON.parse(await proxied(kube, ns, pod, 'http', path)) as T);

const componentOf = (pod: Pod) => pod.metadata.labels?.['app.kubernetes.io/component'] ?? '';
const isServer = (pod: Pod) => componentOf(pod).startsWith('server-');
const viewOf = (pod: Pod) => componentOf(pod).slice('server-'.length);

export async function readStackStatus(kube: KubeClient, namespace: string, name: string): Promise<StackStatus> {
  const ns = encodeURIComponent(namespace);
  const pods = await stackPods(kube, ns, name);
  const of = (component: (c: string) => boolean) => pods.filter((p) => component(componentOf(p)));

  const [etcdReplicas, etcd, servers, controllers, lease, signer] = await Promise.all([
    fetched(async () => {
      const sts = await kube.request<{ spec: { replicas?: number } }>(
        'GET',
        `/apis/apps/v1/namespaces/${ns}/statefulsets/${encodeURIComponent(`${name}-etcd`)}`,
      );
      return sts.spec.replicas ?? 1;
    }),
    Promise.all(
      of((c) => c === 'etcd').map(async (pod) => ({
        pod: podInfo(pod),
        metrics: await fetched(async () => metricSamples(await proxied(kube, ns, pod, 'metrics', '/metrics'))),
        health: await fetched(
          async () =>
            (JSON.parse(await proxied(kube, ns, pod, 'metrics', '/health')) as { health?: string }).health === 'true',
        ),
      })),
    ),
    Promise.all(
      pods.filter(isServer).map(async (pod) => ({
        view: viewOf(pod),
        pod: podInfo(pod),
        summary: await statusJson<ServerSummary>(kube, ns, pod, '/status.json'),
      })),
    ),
    Promise.all(
      of((c) => c === 'controller').map(async (pod) => ({
        pod: podInfo(pod),
        summary: await statusJson<ControllerSummary>(kube, ns, pod, '/status.json'),
      })),
    ),
    readLease(kube, ns, `${name}-controller`),
    readSigner(kube, ns, `${name}-dnssec-signer`),
  ]);
  return { namespace, name, at: new Date(), etcdReplicas, etcd, servers, controllers, lease, signer };
}

/** What `etcdns status --explain NAME` reads: each DNS server replica's account of one name. */
export interface NameStatus {
  namespace: string;
  name: string;
  at: Date;
  /** The name asked about, as given. */
  asked: string;
  client: string | undefined;
  /** Each replica's summary: with `explain` from a hub; without, from a server that is not one. */
  servers: { view: string; pod: PodInfo; summary: Fetched<ServerSummary> }[];
}

/**
 * Each DNS server replica's /status.json?name=NAME (&client=ADDRESS). A server that is not a hub
 * answers that 404: its plain /status.json, which has no `hub`, stands in for it (no `explain`);
 * a hub's refusal (a name outside its zones) stays the error it is.
 */
export async function readNameStatus(
  kube: KubeClient,
  namespace: string,
  name: string,
  asked: string,
  client?: string,
): Promise<NameStatus> {
  const ns = encodeURIComponent(namespace);
  const query = `?name=${encodeURIComponent(asked)}${client ? `&client=${encodeURIComponent(client)}` : ''}`;
  const servers = await Promise.all(
    (await stackPods(kube, ns, name)).filter(isServer).map(async (pod) => {
      let summary = await statusJson<ServerSummary>(kube, ns, pod, `/status.json${query}`);
      if (!summary.ok) {
        const plain = await statusJson<ServerSummary>(kube, ns, pod, '/status.json');
        if (plain.ok && !plain.value.hub) summary = plain;
      }
      return { view: viewOf(pod), pod: podInfo(pod), summary };
    }),
  );
  return { namespace, name, at: new Date(), asked, client, servers };
}

interface Service {
  spec: { clusterIP?: string; ports?: { port: number; protocol?: string }[] };
  status?: { loadBalancer?: { ingress?: { ip?: string }[] } };
}

/** The signer's zones from its ConfigMap (Knot's configuration), its DS from its Service's address. */
async function readSigner(kube: KubeClient, ns: string, signerName: string): Promise<StackStatus['signer']> {
  const config = await fetched(() =>
    kube.getText(`/api/v1/namespaces/${ns}/configmaps/${signerName}`, PROXY_TIMEOUT_MS),
  );
  if (!config.ok) return config;
  if (config.value.status === 404) return undefined;
  return fetched(async () => {
    if (config.value.status !== 200) throw new Error(`configmap ${signerName}: ${config.value.status}`);
    const knotConf = (JSON.parse(config.value.body) as { data?: Record<string, string> }).data?.['knot.conf'] ?? '';
    const zones = [...knotConf.matchAll(/^\s+- domain: (\S+)$/gm)].map((m) => m[1]!);
    // One mixed-protocol Service, or the UDP one of a split pair.
    let service: Service | undefined;
    for (const serviceName of [signerName, `${signerName}-udp`]) {
      const res = await kube.getText(`/api/v1/namespaces/${ns}/services/${serviceName}`, PROXY_TIMEOUT_MS);
      if (res.status === 200) {
        service = JSON.parse(res.body) as Service;
        break;
      }
    }
    if (!service) throw new Error(`no Service ${signerName}`);
    const address = service.status?.loadBalancer?.ingress?.find((i) => i.ip)?.ip ?? service.spec.clusterIP;
    if (!address || address === 'None') throw new Error(`Service ${signerName} has no address`);
    const port = service.spec.ports?.find((p) => (p.protocol ?? 'TCP') === 'UDP')?.port ?? 53;
    return {
      at: `${address}:${port}`,
      zones: await Promise.all(
        zones.map(async (zone) => ({ zone, ds: await fetched(() => readDs(address, port, zone, PROXY_TIMEOUT_MS)) })),
      ),
    };
  });
}

async function readLease(kube: KubeClient, ns: string, leaseName: string): Promise<StackStatus['lease']> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${encodeURIComponent(leaseName)}`;
  const res = await fetched(() => kube.getText(path, PROXY_TIMEOUT_MS));
  if (!res.ok) return res;
  if (res.value.status === 404) return undefined;
  if (res.value.status !== 200) return { ok: false, error: `lease ${leaseName}: ${res.value.status}` };
  const spec = (
    JSON.parse(res.value.body) as {
      spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
    }
  ).spec;
  return {
    ok: true,
    value: {
      ...(spec?.holderIdentity ? { holder: spec.holderIdentity } : {}),
      ...(spec?.renewTime ? { renewTime: spec.renewTime } : {}),
      ...(spec?.leaseDurationSeconds !== undefined ? { durationSeconds: spec.leaseDurationSeconds } : {}),
    },
  };
}

function podInfo(pod: Pod): PodInfo {
  return {
    name: pod.metadata.name,
    component: pod.metadata.labels?.['app.kubernetes.io/component'] ?? '',
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    phase: pod.status?.phase ?? 'Unknown',
    restarts: (pod.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
  };
}
