// Where a Pod is turned into records, as external-dns v0.22's pod source does it:
// - internal-hostname annotation: the names point at the pod's IP;
// - hostname annotation: at the addresses of the node it runs on (ExternalIPs and IPv6 InternalIPs);
// - --pod-source-domain: "<pod name>.<domain>" points at the pod's IP;
// the target annotation replaces those targets. With --ignore-non-host-network-pods only pods on
// the host network publish. A pod without an IP yet publishes nothing (external-dns writes an
// empty CNAME). A pod's records depend on its Node: a Node change re-plans the pods on it.
import { isIPv6 } from 'node:net';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { objectRef } from './object-ref.ts';
import { readAnnotation, splitList } from './annotations.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import type { SourceRuntime } from './source-runtime.ts';
import { uniqueTargets, type Target } from './targets.ts';

export interface PodContext {
  node(name: string): V1Node | undefined;
}

export function podRecords(pod: V1Pod, context: PodContext, options: SourceOptions, out: SourceResult): void {
  const ref = objectRef('Pod', 'v1', pod.metadata);
  if (!ref || !objectSelected(pod.metadata, options)) return;
  if (options.pod.ignoreNonHostNetwork && !pod.spec?.hostNetwork) return;
  const annotations = pod.metadata?.annotations;
  const b = new RecordBuilder(ref, annotations, options, out);
  const byName = new Map<string, Target[]>();
  const add = (raws: string[], own: () => Target[]) => {
    if (raws.length === 0) return;
    const targets = b.targetOverride ?? own();
    for (const raw of raws) {
      const name = b.acceptName(raw);
      if (name) byName.set(name, [...(byName.get(name) ?? []), ...targets]);
    }
  };
  const podIp = () => (pod.status?.podIP ? b.targets([pod.status.podIP]) : []);
  add(splitList(readAnnotation(annotations, 'internal-hostname')?.value), podIp);
  add(splitList(readAnnotation(annotations, 'hostname')?.value), () =>
    b.targets(nodeAddresses(context.node(pod.spec?.nodeName ?? ''))),
  );
  if (options.pod.sourceDomain) add([`${ref.name}.${options.pod.sourceDomain}`], podIp);
  for (const [name, targets] of byName) b.addresses(name, uniqueTargets(targets));
}

/** A node's addresses reachable from outside: its ExternalIPs and (global by nature) IPv6 InternalIPs. */
function nodeAddresses(node: V1Node | undefined): string[] {
  return (node?.status?.addresses ?? [])
    .filter((a) => a.type === 'ExternalIP' || (a.type === 'InternalIP' && isIPv6(a.address)))
    .map((a) => a.address);
}

/**
 * --fqdn-template's names at every IP of the pod (status.podIPs), as external-dns publishes them:
 * the target annotation is not read there. No IP yet: nothing.
 */
export function podTemplateRecords(pod: V1Pod, names: string[], options: SourceOptions, out: SourceResult): void {
  const ref = objectRef('Pod', 'v1', pod.metadata);
  if (!ref || !objectSelected(pod.metadata, options)) return;
  const b = new RecordBuilder(ref, pod.metadata?.annotations, options, out);
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip);
  b.hostnames(names, uniqueTargets(b.targets(ips)));
}

const nodeKey = (name: string) => `Node/${name}`;

/** Pods: a pod's index key names its Node (its hostname names point at the Node's addresses). */
export const podSource: SourceRuntime = {
  records: (object, _kind, context, options, out) =>
    podRecords(
      object as V1Pod,
      { node: (name) => context.object('Node', undefined, name) as V1Node | undefined },
      options,
      out,
    ),
  templateRecords: (object, names, _context, options, out) => podTemplateRecords(object as V1Pod, names, options, out),
  indexKeys: (object) => {
    const node = (object as V1Pod).spec?.nodeName;
    return node ? [nodeKey(node)] : [];
  },
  changes: { Node: (node) => (node.metadata?.name ? { keys: [nodeKey(node.metadata.name)] } : 'all') },
};
