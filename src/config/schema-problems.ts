// Runs a schema and turns its issues into problems that name the field as a path into the input
// ("zones[1].soa.refresh") and, when known, where the value came from.
import * as v from 'valibot';
import { ConfigError } from './config-error.ts';

/** Where a field's value came from ("--zone", "ETCDNS_ZONE", "file config.json"), by path. */
export type SourceOf = (path: string) => string | undefined;

type AnySchema = v.GenericSchema;

/** A field's path as problems name it: ["zones", 1, "soa"] under "" is "zones[1].soa". */
export function keyPath(keys: readonly unknown[], base = ''): string {
  let path = base;
  for (const key of keys)
    path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${String(key)}` : String(key);
  return path || 'config';
}

const pathOf = (issue: v.BaseIssue<unknown>, base: string) =>
  keyPath(
    (issue.path ?? []).map((i) => i.key),
    base,
  );

/** The most specific source known: "forward.upstreams[0]" -> "forward.upstreams" -> "forward". */
function sourceFor(path: string, sourceOf: SourceOf): string | undefined {
  const parts = path.replace(/\[\d+\]/g, '').split('.');
  for (let n = parts.length; n > 0; n--) {
    const source = sourceOf(parts.slice(0, n).join('.'));
    if (source !== undefined) return source;
  }
  return undefined;
}

/** Every problem of `value`, each "path (source): message"; empty when it is valid. */
export function problemsOf(schema: AnySchema, value: unknown, path = '', sourceOf?: SourceOf): string[] {
  const result = v.safeParse(schema, value, { abortPipeEarly: true });
  if (result.success) return [];
  return result.issues.map((issue) => {
    const at = pathOf(issue, path);
    const source = sourceOf && sourceFor(path ? at.slice(path.length + 1) : at, sourceOf);
    const missing = issue.type === 'object' && issue.received === 'undefined';
    return `${at}${source ? ` (${source})` : ''}: ${missing ? 'is required' : issue.message}`;
  });
}

/** The schema's output for `value`, or a ConfigError listing every problem. */
export function parseConfig<S extends AnySchema>(schema: S, value: unknown, sourceOf?: SourceOf): v.InferOutput<S> {
  const problems = problemsOf(schema, value, '', sourceOf);
  if (problems.length > 0) throw new ConfigError(problems);
  return v.parse(schema, value);
}
