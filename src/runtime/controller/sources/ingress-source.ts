// Where an Ingress is turned into records: every host of its rules, its TLS section and the
// hostname annotation points at every address in its status.loadBalancer.
import type { V1Ingress } from '@kubernetes/client-node';
import type { ObjectRef } from '../desired-record.ts';
import { readAnnotation, splitList } from './annotations.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { loadBalancerTargets } from './service-source.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';

export const LEGACY_INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function ingressClassOf(ing: V1Ingress): string | undefined {
  return ing.spec?.ingressClassName ?? ing.metadata?.annotations?.[LEGACY_INGRESS_CLASS_ANNOTATION];
}

export function ingressRecords(ing: V1Ingress, options: SourceOptions, out: SourceResult): void {
  const meta = ing.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  if (options.ingressClasses.length > 0 && !options.ingressClasses.includes(ingressClassOf(ing) ?? '')) return;
  const ref: ObjectRef = {
    kind: 'Ingress',
    apiVersion: 'networking.k8s.io/v1',
    namespace: meta.namespace ?? 'default',
    name: meta.name,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const hosts = new Set<string>();
  for (const rule of ing.spec?.rules ?? []) if (rule.host) hosts.add(rule.host);
  for (const tls of ing.spec?.tls ?? []) for (const host of tls.hosts ?? []) hosts.add(host);
  for (const host of splitList(readAnnotation(meta.annotations, 'hostname')?.value)) hosts.add(host);
  if (hosts.size === 0) return;
  b.hostnames([...hosts], b.targetOverride ?? b.targets(loadBalancerTargets(ing)));
}
