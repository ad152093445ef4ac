// Where an Istio Gateway is turned into records, as external-dns v0.22's istio-gateway source
// does it: the hosts of its servers (server-hosts.ts) and its hostname annotation point at the
// Gateway's targets (gateway-targets.ts). A Gateway whose ingress annotation is malformed or names
// a missing Ingress is skipped and reported (external-dns exits, publishing nothing at all).
import { kubernetesKind, type ObjectKind } from '../../../../config/source-kinds.ts';
import { objectRef } from '../object-ref.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import type { SourceRuntime } from '../source-runtime.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import { gatewayTargets, type IstioTargetContext } from './gateway-targets.ts';
import { ISTIO_GROUP, type IstioGateway } from './istio-api.ts';
import { gatewayIndexKeys, ingressChanged, serviceChanged } from './istio-index.ts';
import { istioContext } from './istio-context.ts';
import { gatewayHostnames } from './server-hosts.ts';

export function istioGatewayRecords(
  gateway: IstioGateway,
  context: IstioTargetContext,
  options: SourceOptions,
  out: SourceResult,
): void {
  const meta = gateway.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  const ref = objectRef(kubernetesKind('IstioGateway') as ObjectKind, gateway.apiVersion ?? `${ISTIO_GROUP}/v1`, meta)!;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const targets = gatewayTargets(gateway, context);
  if (!targets.ok) {
    b.problem('InvalidReference', `${targets.error}; the Gateway is skipped`);
    return;
  }
  if (targets.targets.length === 0) return;
  const hosts = [...gatewayHostnames(gateway), ...b.annotatedHostnames()];
  b.hostnames([...new Set(hosts)], b.targets(targets.targets));
}

export const istioGatewaySource: SourceRuntime = {
  records: (object, _kind, context, options, out) =>
    istioGatewayRecords(object as IstioGateway, istioContext(context), options, out),
  indexKeys: gatewayIndexKeys,
  changes: { Service: serviceChanged, Ingress: ingressChanged },
};
