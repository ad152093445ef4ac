// Where a Node is turned into records, as external-dns v0.22's node source does it: the node's
// name points at its ExternalIP addresses, else at its InternalIP addresses (IPv4 and IPv6), or at
// the target annotation. Unschedulable nodes are left out unless --exclude-unschedulable=false.
// A Node without any such address is skipped and reported (external-dns exits, publishing nothing).
import { isIPv6 } from 'node:net';
import type { V1Node } from '@kubernetes/client-node';
import { objectRef } from './object-ref.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import type { SourceRuntime } from './source-runtime.ts';
import { uniqueTargets } from './targets.ts';

/** The node's records at `names` (default its own name; --fqdn-template's names otherwise). */
export function nodeRecords(node: V1Node, options: SourceOptions, out: SourceResult, names?: string[]): void {
  // Nodes have no namespace; external-dns names the resource "node/<name>".
  const ref = objectRef('Node', 'v1', node.metadata);
  if (!ref || !objectSelected(node.metadata, options)) return;
  if (node.spec?.unschedulable && options.node.excludeUnschedulable) return;
  const b = new RecordBuilder(ref, node.metadata?.annotations, options, out);
  let targets = b.targetOverride;
  if (!targets) {
    const addresses = nodeAddresses(node, options.node.exposeInternalIpv6);
    if (addresses.length === 0) {
      const types = [...new Set((node.status?.addresses ?? []).map((a) => a.type))].join(', ') || 'none';
      b.problem('NoAddress', `node has no ExternalIP or InternalIP address (address types: ${types}); it is skipped`);
      return;
    }
    targets = b.targets(addresses);
  }
  b.hostnames(names ?? [ref.name], uniqueTargets(targets));
}

/**
 * The node's ExternalIPs (with --expose-internal-ipv6 also its IPv6 InternalIPs), else its
 * InternalIPs: what kubelet's preferred address order gives, as external-dns reads it.
 */
export function nodeAddresses(node: V1Node, exposeInternalIpv6: boolean): string[] {
  const of = (type: string) => (node.status?.addresses ?? []).filter((a) => a.type === type).map((a) => a.address);
  const external = of('ExternalIP');
  const internal = of('InternalIP');
  if (external.length > 0) return exposeInternalIpv6 ? [...external, ...internal.filter((a) => isIPv6(a))] : external;
  return internal;
}

/** Nodes read nothing else: a Node's change re-plans that Node alone. Template names get its addresses. */
export const nodeSource: SourceRuntime = {
  records: (object, _kind, _context, options, out) => nodeRecords(object as V1Node, options, out),
  templateRecords: (object, names, _context, options, out) => nodeRecords(object as V1Node, options, out, names),
};
