// Where an Istio Gateway's names point, as external-dns v0.22 decides it (its VirtualServices
// point at the same): the Gateway's target annotation; else its ingress annotation, an Ingress
// ("[namespace/]name", the Gateway's namespace by default) whose load-balancer status gives the
// addresses; else the Services whose spec.selector includes every label of the Gateway's
// spec.selector (in --namespace, or all namespaces): their externalIPs, else their load-balancer
// addresses. Unlike external-dns, a Gateway without a selector takes no Service's address (an
// empty selector selects every Service there), and a malformed or missing Ingress is an error for
// this Gateway alone. Pure.
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import { readAnnotation, splitList } from '../annotations.ts';
import type { IstioGateway } from './istio-api.ts';
import { parseObjectReference } from './object-reference.ts';

/** What the Istio sources read besides Gateways and VirtualServices. */
export interface IstioTargetContext {
  ingress(namespace: string, name: string): V1Ingress | undefined;
  /** Every Service read (--namespace's, or all). */
  services(): Iterable<V1Service>;
}

export type GatewayTargets = { ok: true; targets: string[] } | { ok: false; error: string };

export function gatewayTargets(gateway: IstioGateway, context: IstioTargetContext): GatewayTargets {
  const annotations = gateway.metadata?.annotations;
  const target = splitList(readAnnotation(annotations, 'target')?.value);
  if (target.length > 0) return { ok: true, targets: target };
  const ingress = readAnnotation(annotations, 'ingress');
  if (ingress && ingress.value !== '') return ingressTargets(ingress.key, ingress.value, gateway, context);
  return { ok: true, targets: serviceTargets(gateway.spec?.selector ?? {}, context) };
}

function ingressTargets(
  key: string,
  value: string,
  gateway: IstioGateway,
  context: IstioTargetContext,
): GatewayTargets {
  const ref = parseObjectReference(value, gateway.metadata?.namespace ?? 'default');
  if (!ref.ok) return { ok: false, error: `annotation ${key}: ${ref.error}` };
  const ingress = context.ingress(ref.namespace, ref.name);
  if (!ingress) return { ok: false, error: `annotation ${key}: Ingress ${ref.namespace}/${ref.name} does not exist` };
  return { ok: true, targets: sorted((ingress.status?.loadBalancer?.ingress ?? []).map(address)) };
}

function serviceTargets(selector: Record<string, string>, context: IstioTargetContext): string[] {
  const labels = Object.entries(selector);
  if (labels.length === 0) return [];
  const targets: string[] = [];
  for (const service of context.services()) {
    if (!selects(labels, service.spec?.selector)) continue;
    const external = service.spec?.externalIPs ?? [];
    targets.push(...(external.length > 0 ? external : (service.status?.loadBalancer?.ingress ?? []).map(address)));
  }
  return sorted(targets);
}

/** Whether a Service's selector has every label of the Gateway's (so it reaches the gateway pods). */
export function selects(labels: [string, string][], serviceSelector: Record<string, string> | undefined): boolean {
  return labels.length > 0 && labels.every(([k, v]) => serviceSelector?.[k] === v);
}

/** A load-balancer entry's IP, else its hostname (external-dns takes one of the two). */
const address = (lb: { ip?: string; hostname?: string }) => lb.ip || lb.hostname || '';

const sorted = (targets: string[]) => [...new Set(targets.filter((t) => t !== ''))].sort();
