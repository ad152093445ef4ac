// Where a Service is turned into records, following external-dns's service source:
// LoadBalancer -> its load-balancer addresses; NodePort -> node addresses + SRV; ClusterIP ->
// only with internal-hostname (or --publish-cluster-ip); headless -> ready endpoint addresses and
// per-pod names; ExternalName -> a CNAME.
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import { canonicalName } from '../../../dns/dns-name.ts';
import type { DesiredRecord } from '../desired-record.ts';
import { readAnnotation, splitList } from './annotations.ts';
import { objectRef } from './object-ref.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import { serviceSrvRecords, srvWanted, type SrvTarget } from './service-srv.ts';
import type { Target } from './targets.ts';
import type { ObjectKey, SourceRuntime } from './source-runtime.ts';

export interface ServiceContext {
  nodes: readonly V1Node[];
  /** EndpointSlices of a Service (by their kubernetes.io/service-name label). */
  endpointSlices(namespace: string, service: string): readonly V1EndpointSlice[];
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** The Service an EndpointSlice belongs to (its kubernetes.io/service-name label). */
export function sliceService(slice: V1EndpointSlice): ObjectKey | undefined {
  const name = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return name ? { kind: 'Service', namespace: slice.metadata?.namespace ?? 'default', name } : undefined;
}

/** Services: an EndpointSlice re-plans its Service; a Node every Service (NodePort addresses). */
export const serviceSource: SourceRuntime = {
  records: (object, _kind, context, options, out) => serviceRecords(object as V1Service, context, options, out),
  changes: {
    EndpointSlice: (slice) => {
      const service = sliceService(slice as V1EndpointSlice);
      return { objects: service ? [service] : [] };
    },
    Node: () => 'all',
  },
};

export function serviceRecords(svc: V1Service, ctx: ServiceContext, options: SourceOptions, out: SourceResult): void {
  const meta = svc.metadata;
  // A Service's names all come from its annotations: with --ignore-hostname-annotation, none (as external-dns).
  if (!meta?.name || !objectSelected(meta, options) || options.ignoreHostnameAnnotation) return;
  const ref = objectRef('Service', 'v1', meta)!;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const hostnames = splitList(readAnnotation(meta.annotations, 'hostname')?.value);
  const internal = splitList(readAnnotation(meta.annotations, 'internal-hostname')?.value);
  const type = svc.spec?.type ?? 'ClusterIP';
  const headless = type === 'ClusterIP' && svc.spec?.clusterIP === 'None';
  // A headless Service's records are its ready endpoints already; an ExternalName has none.
  if (b.checksEndpoints && !headless && type !== 'ExternalName') {
    const slices = ctx.endpointSlices(ref.namespace, ref.name);
    if (!slices.some((s) => (s.endpoints ?? []).some(isReady))) b.markUnready();
  }

  if (internal.length > 0) {
    if (headless) headlessRecords(svc, ctx, b, internal);
    else b.hostnames(internal, b.targetOverride ?? b.targets(clusterIps(svc)));
  }
  const before = out.records.length;
  if (hostnames.length > 0) publish(svc, ctx, options, b, type, headless, hostnames);
  if (srvWanted(svc, options, headless)) {
    const names = new Set([...hostnames, ...internal].map((h) => canonicalName(h.trim())));
    const slices = ctx.endpointSlices(ref.namespace, ref.name);
    serviceSrvRecords(svc, b, srvTargets(out.records.slice(before), names, headless), slices, options);
  }
}

/** The names the Service published addresses at, with a headless Service's pod names as targets. */
function srvTargets(records: readonly DesiredRecord[], names: ReadonlySet<string>, headless: boolean): SrvTarget[] {
  const published = [...new Set(records.filter((r) => r.type !== 'SRV').map((r) => r.name))];
  return published
    .filter((n) => names.has(n))
    .map((name) => {
      const pods = headless ? published.filter((p) => p.endsWith(`.${name}`)) : [];
      return { name, targets: pods.length > 0 ? pods : [name] };
    });
}

function publish(
  svc: V1Service,
  ctx: ServiceContext,
  options: SourceOptions,
  b: RecordBuilder,
  type: string,
  headless: boolean,
  hostnames: string[],
): void {
  switch (type) {
    case 'LoadBalancer':
      b.hostnames(hostnames, b.targetOverride ?? b.targets(loadBalancerTargets(svc)));
      break;
    case 'NodePort':
      nodePortRecords(svc, ctx, b, hostnames);
      break;
    case 'ExternalName':
      b.hostnames(hostnames, b.targetOverride ?? b.targets(svc.spec?.externalName ? [svc.spec.externalName] : []));
      break;
    case 'ClusterIP':
      if (headless) headlessRecords(svc, ctx, b, hostnames);
      else if (options.publishClusterIp) b.hostnames(hostnames, b.targetOverride ?? b.targets(clusterIps(svc)));
      break;
  }
}

function clusterIps(svc: V1Service): string[] {
  const ips = svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : []);
  return ips.filter((ip) => ip !== 'None' && ip !== '');
}

export function loadBalancerTargets(obj: {
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}): string[] {
  const targets: string[] = [];
  for (const lb of obj.status?.loadBalancer?.ingress ?? []) {
    if (lb.ip) targets.push(lb.ip);
    if (lb.hostname) targets.push(lb.hostname);
  }
  return targets;
}

function nodePortRecords(svc: V1Service, ctx: ServiceContext, b: RecordBuilder, hostnames: string[]): void {
  const access = readAnnotation(svc.metadata?.annotations, 'access');
  if (access && access.value !== 'public' && access.value !== 'private') {
    b.problem(
      'InvalidAnnotation',
      `annotation ${access.key}: "${access.value}" is not "public" or "private"; using the default`,
    );
  }
  const targets = b.targetOverride ?? nodeTargets(svc, ctx, access?.value);
  for (const raw of hostnames) {
    const name = b.acceptName(raw);
    if (!name) continue;
    b.addresses(name, targets);
    for (const port of svc.spec?.ports ?? []) {
      if (!port.nodePort) continue;
      const srvName = b.acceptName(`_${svc.metadata!.name}._${(port.protocol ?? 'TCP').toLowerCase()}.${name}`);
      if (srvName) b.srv(srvName, name, port.nodePort);
    }
  }
}

/** Addresses of schedulable nodes (with externalTrafficPolicy Local: nodes with a ready endpoint). */
function nodeTargets(svc: V1Service, ctx: ServiceContext, access: string | undefined): Target[] {
  let nodes = ctx.nodes.filter((n) => !n.spec?.unschedulable);
  if (svc.spec?.externalTrafficPolicy === 'Local') {
    const withEndpoints = new Set<string>();
    for (const slice of ctx.endpointSlices(svc.metadata!.namespace ?? 'default', svc.metadata!.name!)) {
      for (const ep of slice.endpoints ?? []) if (ep.nodeName && isReady(ep)) withEndpoints.add(ep.nodeName);
    }
    nodes = nodes.filter((n) => withEndpoints.has(n.metadata?.name ?? ''));
  }
  const of = (kind: string) =>
    nodes.flatMap((n) => (n.status?.addresses ?? []).filter((a) => a.type === kind).map((a) => a.address));
  const external = of('ExternalIP');
  const internal = of('InternalIP');
  const chosen =
    access === 'public' ? external : access === 'private' ? internal : external.length > 0 ? external : internal;
  return ipTargets(chosen);
}

function headlessRecords(svc: V1Service, ctx: ServiceContext, b: RecordBuilder, hostnames: string[]): void {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const endpointsType = readAnnotation(svc.metadata?.annotations, 'endpoints-type');
  if (endpointsType && endpointsType.value !== 'NodeExternalIP' && endpointsType.value !== 'HostIP') {
    b.problem(
      'InvalidAnnotation',
      `annotation ${endpointsType.key}: "${endpointsType.value}" is not "NodeExternalIP" or "HostIP"; using pod addresses`,
    );
  }
  const nodeAddress = (nodeName: string | undefined, kind: string) =>
    (ctx.nodes.find((n) => n.metadata?.name === nodeName)?.status?.addresses ?? [])
      .filter((a) => a.type === kind)
      .map((a) => a.address);
  const all: string[] = [];
  const perPod = new Map<string, string[]>();
  for (const slice of ctx.endpointSlices(svc.metadata!.namespace ?? 'default', svc.metadata!.name!)) {
    if (slice.addressType === 'FQDN') continue;
    for (const ep of slice.endpoints ?? []) {
      if (!publishNotReady && !isReady(ep)) continue;
      // HostIP is the node's address the pod runs on; we read it from the Node, not the Pod.
      const addresses =
        endpointsType?.value === 'NodeExternalIP'
          ? nodeAddress(ep.nodeName, 'ExternalIP')
          : endpointsType?.value === 'HostIP'
            ? nodeAddress(ep.nodeName, 'InternalIP')
            : ep.addresses;
      all.push(...addresses);
      if (ep.hostname) perPod.set(ep.hostname, [...(perPod.get(ep.hostname) ?? []), ...addresses]);
    }
  }
  for (const raw of hostnames) {
    const name = b.acceptName(raw);
    if (!name) continue;
    if (b.targetOverride) {
      b.addresses(name, b.targetOverride);
      continue;
    }
    b.addresses(name, ipTargets(all));
    for (const [pod, addresses] of [...perPod].sort(([a], [c]) => a.localeCompare(c))) {
      const podName = b.acceptName(`${pod}.${name}`);
      if (podName) b.addresses(podName, ipTargets(addresses));
    }
  }
}

/** Ready unless the condition says otherwise (absent means ready, as in the EndpointSlice API). */
function isReady(ep: { conditions?: { ready?: boolean } }): boolean {
  return ep.conditions?.ready !== false;
}

/** Sorted, de-duplicated address targets (cluster-provided addresses are IPs; others are dropped). */
function ipTargets(addresses: string[]): Target[] {
  const seen = new Map<string, Target>();
  for (const a of addresses) {
    const type = a.includes(':') ? 'AAAA' : 'A';
    seen.set(a, { type, target: type === 'AAAA' ? a.toLowerCase() : a });
  }
  return [...seen.values()].sort((x, y) => x.target.localeCompare(y.target));
}
