// How Go's text/template sees a Kubernetes object's JSON, and how it prints and tests values: the
// rules the executor (go-template-exec.ts) and the functions (template-functions.ts) share.
// Checked against Go 1.26's text/template where noted.

/** Go's invalid value: a missing map key or a field of one. Prints "<no value>", is false. */
export const MISSING: unique symbol = Symbol('no value');

/** A float64 (from fromJson or a float constant): Go prints 1e+06 where an integer prints 1000000. */
export class GoFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

/** A Go struct with fixed fields (the unstructured source's wrapper): another field is an error. */
export class GoStruct {
  readonly typeName: string;
  readonly fields: Readonly<Record<string, Value>>;
  constructor(typeName: string, fields: Readonly<Record<string, Value>>) {
    this.typeName = typeName;
    this.fields = fields;
  }
}

export type Value =
  | string
  | number
  | boolean
  | null
  | GoFloat
  | GoStruct
  | typeof MISSING
  | readonly Value[]
  | { readonly [key: string]: Value };

export type GoMap = { readonly [key: string]: Value };

export class TemplateExecError extends Error {}

/**
 * Maps whose values are strings (labels, annotations): Go's index gives "" for a missing key
 * there, and nothing ("<no value>") in a map of JSON values.
 */
const STRING_MAPS = new WeakSet<object>();
export function stringMap(m: Record<string, string> | undefined): GoMap {
  const map = m ?? {};
  STRING_MAPS.add(map);
  return map;
}
export function isStringMap(m: object): boolean {
  return STRING_MAPS.has(m);
}

export function isMap(v: Value): v is GoMap {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoFloat) && !(v instanceof GoStruct)
  );
}

export function isNumber(v: Value): v is number | GoFloat {
  return typeof v === 'number' || v instanceof GoFloat;
}
export function numberOf(v: number | GoFloat): number {
  return typeof v === 'number' ? v : v.value;
}

/** Go's name of the value's type, for error messages. */
export function goType(v: Value): string {
  if (v === MISSING) return '<no value>';
  if (v === null) return 'interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (v instanceof GoFloat) return 'float64';
  if (v instanceof GoStruct) return v.typeName;
  if (Array.isArray(v)) return '[]interface {}';
  return isStringMap(v as object) ? 'map[string]string' : 'map[string]interface {}';
}

/** text/template's truth: false for the zero value of any type and for no value. */
export function truth(v: Value): boolean {
  if (v === MISSING || v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'boolean') return v;
  if (v instanceof GoFloat) return v.value !== 0;
  if (v instanceof GoStruct) return true;
  if (Array.isArray(v)) return v.length > 0;
  return Object.keys(v).length > 0;
}

/** What {{ value }} writes: fmt.Print's %v, with "<no value>" for no value (and a JSON null). */
export function printed(v: Value): string {
  return v === MISSING || v === null ? '<no value>' : formatValue(v);
}

/** fmt's %v of one value, as print and printf write it. */
export function formatValue(v: Value): string {
  if (v === MISSING || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatFloat(v);
  if (v instanceof GoFloat) return formatFloat(v.value);
  if (v instanceof GoStruct) return `{${Object.values(v.fields).map(formatValue).join(' ')}}`;
  if (Array.isArray(v)) return `[${v.map(formatValue).join(' ')}]`;
  const m = v as GoMap;
  return `map[${Object.keys(m)
    .sort()
    .map((k) => `${k}:${formatValue(m[k]!)}`)
    .join(' ')}]`;
}

/** strconv.FormatFloat(f, 'g', -1, 64): the shortest digits, in %e form from 1e+06 and below 1e-04. */
export function formatFloat(f: number): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

/** Field `name` of a value: a map's key, a struct's field; `typed` also finds Go's name of a JSON field. */
export function fieldOf(receiver: Value, name: string, typed: boolean): Value {
  if (receiver === MISSING) return MISSING;
  if (receiver === null) throw new TemplateExecError(`nil pointer evaluating interface {}.${name}`);
  if (receiver instanceof GoStruct) {
    if (Object.hasOwn(receiver.fields, name)) return receiver.fields[name]!;
    throw new TemplateExecError(`can't evaluate field ${name} in type ${receiver.typeName}`);
  }
  if (isMap(receiver)) {
    if (Object.hasOwn(receiver, name)) return receiver[name]!;
    // A typed object's Go field names are its JSON names capitalized (.Spec.ClusterIP: clusterIP).
    if (typed && /^\p{Lu}/u.test(name)) {
      const lower = name.toLowerCase();
      const key = Object.keys(receiver).find((k) => k.toLowerCase() === lower);
      if (key !== undefined) return receiver[key]!;
    }
    return MISSING;
  }
  throw new TemplateExecError(`can't evaluate field ${name} in type ${goType(receiver)}`);
}
