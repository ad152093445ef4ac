// Where an object of any kind becomes records (external-dns's `unstructured` source, v0.22
// source/unstructured.go): the hostname annotation's names at the target annotation's targets,
// then --fqdn-target-template's host:target pairs, then --fqdn-template's names at
// --target-template's targets; each template pass runs when the passes before gave nothing, or
// always with --combine-fqdn-annotation. The ttl annotation applies to all.
import type { KubernetesObject } from '@kubernetes/client-node';
import { apiVersionOf, objectSpec } from '../../../../config/source-kinds.ts';
import type { ObjectRef } from '../../desired-record.ts';
import type { FqdnTemplates } from '../../fqdn/fqdn-templates.ts';
import { unstructuredData, type TemplateObject } from '../../fqdn/template-data.ts';
import { readAnnotation, splitList } from '../annotations.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import type { SourceRuntime } from '../source-runtime.ts';

/** external-dns's source name, which isSource matches. */
export const UNSTRUCTURED_SOURCE = 'unstructured';

export function unstructuredRecords(
  object: TemplateObject,
  ref: ObjectRef,
  templates: FqdnTemplates,
  options: SourceOptions,
  out: SourceResult,
): void {
  const meta = object.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const hosts = splitList(readAnnotation(meta.annotations, 'hostname')?.value);
  const targets = splitList(readAnnotation(meta.annotations, 'target')?.value);
  // external-dns counts endpoints before anything validates them: a name from the annotations
  // that we then refuse still keeps the templates out, as it does there.
  let endpoints = hosts.length > 0 && targets.length > 0 ? hosts.length : 0;
  if (endpoints > 0) b.hostnames(hosts, b.targets(targets));
  if (!templates.applies(endpoints)) return;

  const data = unstructuredData(object);
  const pairs = templates.pairs(data, UNSTRUCTURED_SOURCE);
  if (!pairs.ok) b.problem('TemplateFailed', `${pairs.error}; its host:target pairs are skipped`);
  else {
    for (const { host, target } of pairs.value.pairs) b.hostnames([host], b.targets([target]));
    endpoints += pairs.value.pairs.length;
  }
  if (!templates.applies(endpoints)) return;

  const names = templates.names(data, UNSTRUCTURED_SOURCE);
  const values = templates.targets(data, UNSTRUCTURED_SOURCE);
  if (!names.ok || !values.ok) {
    const error = !names.ok ? names.error : !values.ok ? values.error : '';
    b.problem('TemplateFailed', `${error}; the names of --fqdn-template are skipped`);
    return;
  }
  if (names.value.length > 0 && values.value.length > 0) b.hostnames(names.value, b.targets(values.value));
}

export const unstructuredSource: SourceRuntime = {
  records: (object, kind, _context, options, out) => {
    // A list's items of a built-in kind come without kind and apiVersion: the templates see the
    // ones discovery named, as external-dns's do.
    const spec = objectSpec(kind);
    const apiVersion = object.apiVersion ?? apiVersionOf(spec.api);
    const full = { ...object, kind: object.kind ?? spec.kind, apiVersion } as KubernetesObject & TemplateObject;
    const meta = object.metadata ?? {};
    const ref: ObjectRef = {
      kind,
      apiVersion,
      namespace: meta.namespace ?? 'default',
      name: meta.name ?? '',
      ...(meta.uid ? { uid: meta.uid } : {}),
    };
    unstructuredRecords(full, ref, options.templates, options, out);
  },
};
