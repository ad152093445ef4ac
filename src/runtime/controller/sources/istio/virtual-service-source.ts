// Where an Istio VirtualService is turned into records, as external-dns v0.22's
// istio-virtualservice source does it: each of its hosts ("*" skipped, a "namespace/" scope
// stripped) and its hostname annotation points at its target annotation, else at the targets
// (gateway-targets.ts) of every Gateway in spec.gateways ("mesh" ignored, "[namespace/]name" in
// the VirtualService's namespace by default) that serves the host (virtual-service-binding.ts);
// --fqdn-template's names only at those Gateways' targets.
// Better than external-dns: a Gateway whose controller annotation names another controller gives
// no targets (external-dns follows it anyway); a malformed gateway reference skips this
// VirtualService, and a Gateway whose targets cannot be read gives none, both reported
// (external-dns exits on either, publishing nothing at all).
import { readAnnotation, splitList } from '../annotations.ts';
import { objectRef } from '../object-ref.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import type { SourceRuntime } from '../source-runtime.ts';
import { controllerSelected, objectSelected, type SourceOptions } from '../source-options.ts';
import { gatewayTargets, type IstioTargetContext } from './gateway-targets.ts';
import { gatewayChanged, ingressChanged, serviceChanged, virtualServiceIndexKeys } from './istio-index.ts';
import { istioContext } from './istio-context.ts';
import { ISTIO_GROUP, MESH_GATEWAY, type IstioGateway, type VirtualService } from './istio-api.ts';
import { parseObjectReference } from './object-reference.ts';
import { serverHost } from './server-hosts.ts';
import { bindsToGateway } from './virtual-service-binding.ts';

export interface VirtualServiceContext extends IstioTargetContext {
  istioGateway(namespace: string, name: string): IstioGateway | undefined;
}

export function virtualServiceRecords(
  vs: VirtualService,
  context: VirtualServiceContext,
  options: SourceOptions,
  out: SourceResult,
): void {
  const found = builderFor(vs, options, out);
  if (!found) return;
  const { b } = found;
  const hosts = [...new Set([...specHosts(vs), ...b.annotatedHostnames()])];
  if (hosts.length === 0) return;
  // An empty target annotation is read as absent (external-dns does), unlike the other sources'.
  const override = splitList(readAnnotation(vs.metadata?.annotations, 'target')?.value);
  if (override.length > 0) b.hostnames(hosts, b.targets(override));
  else atGatewayTargets(vs, hosts, found.namespace, context, b);
}

/**
 * --fqdn-template's names: at the targets of the Gateways that serve each, never at the target
 * annotation (external-dns v0.22's endpointsFromTemplate reads only the Gateways).
 */
export function virtualServiceTemplateRecords(
  vs: VirtualService,
  names: string[],
  context: VirtualServiceContext,
  options: SourceOptions,
  out: SourceResult,
): void {
  const found = builderFor(vs, options, out);
  if (found) atGatewayTargets(vs, names, found.namespace, context, found.b);
}

/** The builder of a VirtualService the filters select; undefined for one they leave out. */
function builderFor(
  vs: VirtualService,
  options: SourceOptions,
  out: SourceResult,
): { b: RecordBuilder; namespace: string } | undefined {
  const meta = vs.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return undefined;
  const ref = objectRef('VirtualService', vs.apiVersion ?? `${ISTIO_GROUP}/v1`, meta)!;
  return { b: new RecordBuilder(ref, meta.annotations, options, out), namespace: meta.namespace ?? 'default' };
}

/** Each host at the targets of the bound Gateways that serve it; a host no Gateway serves gets none. */
function atGatewayTargets(
  vs: VirtualService,
  hosts: string[],
  namespace: string,
  context: VirtualServiceContext,
  b: RecordBuilder,
): void {
  const gateways = boundGateways(vs, namespace, context, b);
  if (!gateways) return;
  for (const host of hosts) {
    const targets = new Set<string>();
    for (const gateway of gateways) {
      if (!bindsToGateway(vs, gateway.object, host)) continue;
      for (const t of gateway.targets() ?? []) targets.add(t);
    }
    if (targets.size > 0) b.hostnames([host], b.targets([...targets].sort()));
  }
}

/** spec.hosts without "" and "*", each without a "namespace/" scope. */
function specHosts(vs: VirtualService): string[] {
  return (vs.spec?.hosts ?? [])
    .filter((h) => h !== '' && h !== '*')
    .map((h) => (h.split('/').length === 2 ? serverHost(h)!.host : h));
}

interface BoundGateway {
  object: IstioGateway;
  /** The Gateway's targets, read once when a host first binds (undefined: reported, none). */
  targets(): string[] | undefined;
}

/** The Gateways of spec.gateways that exist and are ours; undefined (reported) when a reference is malformed. */
function boundGateways(
  vs: VirtualService,
  namespace: string,
  context: VirtualServiceContext,
  b: RecordBuilder,
): BoundGateway[] | undefined {
  const found: BoundGateway[] = [];
  for (const value of vs.spec?.gateways ?? []) {
    if (value === '' || value === MESH_GATEWAY) continue;
    const ref = parseObjectReference(value, namespace);
    if (!ref.ok) {
      b.problem('InvalidReference', `spec.gateways: ${ref.error}; the VirtualService is skipped`);
      return undefined;
    }
    const object = context.istioGateway(ref.namespace, ref.name);
    if (!object || !controllerSelected(object.metadata)) continue;
    let cached: { targets: string[] | undefined } | undefined;
    found.push({
      object,
      targets: () => {
        if (cached) return cached.targets;
        const read = gatewayTargets(object, context);
        if (!read.ok)
          b.problem('InvalidReference', `Gateway ${ref.namespace}/${ref.name}: ${read.error}; its targets are skipped`);
        cached = { targets: read.ok ? read.targets : undefined };
        return cached.targets;
      },
    });
  }
  return found;
}

export const virtualServiceSource: SourceRuntime = {
  records: (object, _kind, context, options, out) =>
    virtualServiceRecords(object as VirtualService, istioContext(context), options, out),
  templateRecords: (object, names, context, options, out) =>
    virtualServiceTemplateRecords(object as VirtualService, names, istioContext(context), options, out),
  indexKeys: virtualServiceIndexKeys,
  changes: { IstioGateway: gatewayChanged, Service: serviceChanged, Ingress: ingressChanged },
};
