// What a template sees as "." for a Kubernetes object, as external-dns v0.22 hands it over.
// - A typed source (service, ingress, routes, node, pod, ...) gives Go's typed object: fields by
//   their Go names (.Name, .Namespace, .Labels, .Annotations, .ObjectMeta, .Kind, .APIVersion,
//   .Spec.ClusterIP, .Status.LoadBalancer.Ingress), which are the JSON names capitalized.
// - The unstructured source gives its wrapper (source/unstructured.go): .Name, .Namespace, .Kind,
//   .APIVersion, .Labels, .Annotations, and the raw JSON as .Metadata, .Spec, .Status and .Object,
//   read by their JSON names (.Spec.addresses, .Object.data); any other field is an error.
import { GoStruct, stringMap, type GoMap, type Value } from './go-template-values.ts';

/** The parts of a Kubernetes object the templates read. */
export interface TemplateObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

export interface TemplateData {
  data: Value;
  /** Typed objects find Go's field names case-insensitively and index their maps' missing keys as "". */
  typed: boolean;
}

/** A typed object, with its kind and apiVersion filled in (informers leave them out; external-dns sets them). */
export function typedData(object: TemplateObject, kind: string, apiVersion: string): TemplateData {
  const meta = object.metadata ?? {};
  const metadata = {
    ...meta,
    labels: stringMap(meta.labels),
    annotations: stringMap(meta.annotations),
  } as GoMap;
  const typeMeta = { Kind: kind, APIVersion: apiVersion };
  // ObjectMeta's and TypeMeta's fields are promoted, as Go embeds them.
  const data = { ...metadata, ...(object as GoMap), ...typeMeta, ObjectMeta: metadata, TypeMeta: typeMeta } as GoMap;
  return { data, typed: true };
}

/** The unstructured source's wrapper around any object. */
export function unstructuredData(object: TemplateObject): TemplateData {
  const raw = object as GoMap;
  const meta = object.metadata ?? {};
  const section = (name: string): Value => {
    const v = raw[name];
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
  };
  const data = new GoStruct('*source.unstructuredWrapper', {
    Name: meta.name ?? '',
    Namespace: meta.namespace ?? '',
    Kind: object.kind ?? '',
    APIVersion: object.apiVersion ?? '',
    Labels: stringMap(meta.labels),
    Annotations: stringMap(meta.annotations),
    Metadata: section('metadata'),
    Spec: section('spec'),
    Status: section('status'),
    Object: raw,
    Unstructured: new GoStruct('*unstructured.Unstructured', { Object: raw }),
  });
  return { data, typed: false };
}
