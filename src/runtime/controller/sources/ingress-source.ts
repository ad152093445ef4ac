// Where an Ingress is turned into records: every host of its rules, its TLS section and the
// hostname annotation points at every address in its status.loadBalancer. The
// ingress-hostname-source annotation narrows that to the rule and TLS hosts (defined-hosts-only)
// or to the hostname annotation (annotation-only), as external-dns reads it.
import type { V1Ingress } from '@kubernetes/client-node';
import { readAnnotation, type Annotations } from './annotations.ts';
import { objectRef } from './object-ref.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { loadBalancerTargets } from './service-source.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import type { SourceRuntime } from './source-runtime.ts';

export const LEGACY_INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function ingressClassOf(ing: V1Ingress): string | undefined {
  return ing.spec?.ingressClassName ?? ing.metadata?.annotations?.[LEGACY_INGRESS_CLASS_ANNOTATION];
}

export function ingressRecords(ing: V1Ingress, options: SourceOptions, out: SourceResult): void {
  const meta = ing.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  if (options.ingressClasses.length > 0 && !options.ingressClasses.includes(ingressClassOf(ing) ?? '')) return;
  const ref = objectRef('Ingress', 'networking.k8s.io/v1', meta)!;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const from = hostnameSources(meta.annotations, b);
  const hosts = new Set<string>();
  if (from.definedHosts) {
    for (const rule of ing.spec?.rules ?? []) if (rule.host) hosts.add(rule.host);
    for (const tls of ing.spec?.tls ?? []) for (const host of tls.hosts ?? []) hosts.add(host);
  }
  if (from.annotation) for (const host of b.annotatedHostnames()) hosts.add(host);
  if (hosts.size === 0) return;
  b.hostnames([...hosts], b.targetOverride ?? b.targets(loadBalancerTargets(ing)));
}

/**
 * Which hostnames the Ingress publishes. external-dns compares the value case-insensitively and
 * publishes nothing for any other value; we do the same (the DNS answers stay the same when
 * switching between the two) and report the value.
 */
function hostnameSources(annotations: Annotations, b: RecordBuilder): { definedHosts: boolean; annotation: boolean } {
  const source = readAnnotation(annotations, 'ingress-hostname-source');
  if (!source) return { definedHosts: true, annotation: true };
  const value = source.value.toLowerCase();
  if (value === 'defined-hosts-only') return { definedHosts: true, annotation: false };
  if (value === 'annotation-only') return { definedHosts: false, annotation: true };
  b.problem(
    'InvalidAnnotation',
    `annotation ${source.key}: "${source.value}" is neither "defined-hosts-only" nor "annotation-only"; no hostname of the Ingress is published`,
  );
  return { definedHosts: false, annotation: false };
}

export const ingressSource: SourceRuntime = {
  records: (object, _kind, _context, options, out) => ingressRecords(object as V1Ingress, options, out),
  ingressClass: (object) => ingressClassOf(object as V1Ingress),
};
