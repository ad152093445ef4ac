// The one place the template flags meet the sources: every source object's records pass through
// here (the registry's pipeline calls it), and the templates add names as external-dns v0.22
// adds them for that source (its source/*.go):
// - `no-records` (service, ingress, istio-*, contour-httpproxy, openshift-route, pod): when the
//   object gave no records, or always with --combine-fqdn-annotation (CombineWithEndpoints);
// - `no-route-hostnames` (the gateway-* sources): when the route has no spec.hostnames, or always
//   when combining (source/gateway.go hosts());
// - `replaces` (node): the templates' names instead of the object's own, both when combining;
// - `template-targets` (traefik-proxy, unstructured: ApplyTemplates): as `no-records`, but the
//   names get --target-template's targets.
// Service, node, pod, traefik-proxy and unstructured first take --fqdn-target-template's
// host:target pairs; then --fqdn-template's names get the object's own targets (but see
// template-targets): the source publishes them as it publishes its hostname annotation's names
// (recordsFor), e.g. a Service's load balancer addresses.
import type { DesiredRecord, ObjectRef } from '../desired-record.ts';
import { annotationPrefixesInUse } from '../sources/annotations.ts';
import { RecordBuilder, type SourceResult } from '../sources/record-builder.ts';
import { objectSelected, type SourceOptions } from '../sources/source-options.ts';
import { typedData, unstructuredData, type TemplateObject } from './template-data.ts';

export type TemplateRule = 'no-records' | 'no-route-hostnames' | 'replaces' | 'template-targets';

/** The sources external-dns v0.22 applies --fqdn-template to, and when (source/*.go). */
export const FQDN_TEMPLATE_RULES: Readonly<Record<string, TemplateRule>> = {
  service: 'no-records',
  ingress: 'no-records',
  'gateway-httproute': 'no-route-hostnames',
  'gateway-grpcroute': 'no-route-hostnames',
  'gateway-tlsroute': 'no-route-hostnames',
  'gateway-tcproute': 'no-route-hostnames',
  'gateway-udproute': 'no-route-hostnames',
  'istio-gateway': 'no-records',
  'istio-virtualservice': 'no-records',
  'contour-httpproxy': 'no-records',
  'openshift-route': 'no-records',
  pod: 'no-records',
  node: 'replaces',
  // ApplyTemplates: the names get --target-template's targets, not the object's.
  'traefik-proxy': 'template-targets',
  unstructured: 'template-targets',
};

/** The sources that also take --fqdn-target-template's pairs (ApplyFQDNTargetTemplate). */
const PAIR_SOURCES: ReadonlySet<string> = new Set(['service', 'node', 'pod', 'traefik-proxy', 'unstructured']);

export interface TemplatePass {
  /** external-dns's source name (isSource, and which rule applies). */
  source: string;
  ref: ObjectRef;
  /** The Kubernetes kind, as templates see it (.Kind). */
  kind: string;
  object: TemplateObject;
  /** The templates, the filters and the domains. */
  options: SourceOptions;
  /** What the source gave for the object. */
  own: SourceResult;
  /** The records the source gives these names, with the object's own targets (see asHostnameAnnotation). */
  recordsFor: (names: string[]) => SourceResult;
}

/** The object's records after the template flags; `own` itself when none applies to it. */
export function applyFqdnTemplate(pass: TemplatePass): SourceResult {
  const { source, own } = pass;
  const templates = pass.options.templates;
  const rule = FQDN_TEMPLATE_RULES[source];
  // Objects the filters leave out (namespace, labels, annotations, controller) take no template.
  if (!rule || !templates.configured || !objectSelected(pass.object.metadata, pass.options)) return own;
  const replaced = rule === 'replaces' && templates.hasNameTemplate && !templates.combine;
  const out: SourceResult = { records: replaced ? [] : [...own.records], problems: [...own.problems] };
  // external-dns counts endpoints before validating them: a refused name of the object's own
  // still keeps the templates out.
  let count = replaced ? 0 : own.records.length + own.problems.filter((p) => p.name !== undefined).length;
  const data =
    source === 'unstructured'
      ? unstructuredData({ ...pass.object, kind: pass.object.kind ?? pass.kind, apiVersion: pass.ref.apiVersion })
      : typedData(pass.object, pass.kind, pass.ref.apiVersion);
  const b = new RecordBuilder(pass.ref, pass.object.metadata?.annotations, pass.options, out);

  if (PAIR_SOURCES.has(source) && templates.applies(count)) {
    const pairs = templates.pairs(data, source);
    if (!pairs.ok) b.problem('TemplateFailed', `${pairs.error}; its host:target pairs are skipped`);
    else {
      for (const { host, target } of pairs.value.pairs) b.hostnames([host], b.targets([target]));
      count += pairs.value.pairs.length;
    }
  }
  const applies =
    rule === 'no-route-hostnames'
      ? templates.combine || routeHostnames(pass.object).length === 0
      : templates.applies(count);
  if (!templates.hasFqdnTemplate || !applies) return out;
  const names = templates.names(data, source);
  const targets = rule === 'template-targets' ? templates.targets(data, source) : undefined;
  if (!names.ok || targets?.ok === false) {
    const error = !names.ok ? names.error : targets?.ok === false ? targets.error : '';
    b.problem('TemplateFailed', `${error}; the names of --fqdn-template are skipped`);
    return out;
  }
  if (names.value.length === 0) return out;
  if (targets?.ok) {
    if (targets.value.length > 0) b.hostnames(names.value, b.targets(targets.value));
    return out;
  }
  const added = pass.recordsFor(names.value);
  const seen = new Set(out.records.map(recordKey));
  out.records.push(...added.records.filter((r) => !seen.has(recordKey(r))));
  const reported = new Set(out.problems.map((p) => p.message));
  out.problems.push(...added.problems.filter((p) => !reported.has(p.message)));
  return out;
}

/**
 * The object as its source should read it to publish `names` alone, with its own targets: the
 * names as its hostname annotation (the only hostnames read: the hostname-source annotations say
 * annotation-only). Service, Ingress and route sources publish them as external-dns publishes a
 * template's names; a source that reads no hostname annotation (node, pod) gives its own recordsFor.
 */
export function asHostnameAnnotation<T extends TemplateObject>(object: T, names: string[]): T {
  const prefixes = annotationPrefixesInUse();
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(object.metadata?.annotations ?? {})) {
    if (!prefixes.some((p) => key.startsWith(p) && REPLACED.includes(key.slice(p.length)))) annotations[key] = value;
  }
  const [prefix] = prefixes;
  annotations[`${prefix}hostname`] = names.join(',');
  annotations[`${prefix}ingress-hostname-source`] = 'annotation-only';
  annotations[`${prefix}gateway-hostname-source`] = 'annotation-only';
  return { ...object, metadata: { ...object.metadata, annotations } };
}
const REPLACED = ['hostname', 'ingress-hostname-source', 'gateway-hostname-source'];

function routeHostnames(object: TemplateObject): unknown[] {
  const spec = object.spec as { hostnames?: unknown[] } | undefined;
  return spec?.hostnames ?? [];
}

function recordKey(r: DesiredRecord): string {
  return `${r.name} ${r.type} ${r.target} ${r.port ?? ''} ${r.priority ?? ''} ${r.weight ?? ''}`;
}
