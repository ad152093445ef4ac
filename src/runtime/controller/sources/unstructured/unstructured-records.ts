// Where an object of any kind becomes records (external-dns's `unstructured` source, v0.22
// source/unstructured.go): its own are the hostname annotation's names at the target
// annotation's targets; the template step of the pipeline (fqdn/template-pass.ts) then adds
// --fqdn-target-template's pairs and --fqdn-template's names at --target-template's targets.
// The ttl annotation applies to all.
import type { KubernetesObject } from '@kubernetes/client-node';
import { apiVersionOf, objectSpec } from '../../../../config/source-kinds.ts';
import type { ObjectRef } from '../../desired-record.ts';
import { objectRef } from '../object-ref.ts';
import type { TemplateObject } from '../../fqdn/template-data.ts';
import { readAnnotation, splitList } from '../annotations.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import type { SourceRuntime } from '../source-runtime.ts';

export function unstructuredRecords(
  object: TemplateObject,
  ref: ObjectRef,
  options: SourceOptions,
  out: SourceResult,
): void {
  const meta = object.metadata;
  if (!meta?.name || !objectSelected(meta, options)) return;
  const b = new RecordBuilder(ref, meta.annotations, options, out);
  const hosts = splitList(readAnnotation(meta.annotations, 'hostname')?.value);
  const targets = splitList(readAnnotation(meta.annotations, 'target')?.value);
  if (hosts.length > 0 && targets.length > 0) b.hostnames(hosts, b.targets(targets));
}

export const unstructuredSource: SourceRuntime = {
  records: (object, kind, _context, options, out) => {
    // A list's items of a built-in kind come without kind and apiVersion: the templates see the
    // ones discovery named, as external-dns's do.
    const spec = objectSpec(kind);
    const apiVersion = object.apiVersion ?? apiVersionOf(spec.api);
    const full = { ...object, kind: object.kind ?? spec.kind, apiVersion } as KubernetesObject & TemplateObject;
    const ref = objectRef(kind, apiVersion, object.metadata);
    if (!ref) return;
    unstructuredRecords(full, ref, options, out);
  },
};
