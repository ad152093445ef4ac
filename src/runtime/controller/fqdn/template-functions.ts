// The functions a template may call: Go's builtins that external-dns's templates use, and
// external-dns v0.22's own function map (source/template/functions.go), with Go's argument checks.
// Go's call, html, js, urlquery and slice are left out: the parser refuses them by name.
import { isIPv4 as netIsIPv4, isIPv6 as netIsIPv6 } from 'node:net';
import {
  formatValue,
  GoFloat,
  GoStruct,
  goType,
  isMap,
  isNumber,
  isStringMap,
  MISSING,
  numberOf,
  TemplateExecError,
  truth,
  type Value,
} from './go-template-values.ts';

/** external-dns v0.22's source names (source/types), which isSource accepts. */
export const EXTERNAL_DNS_SOURCES: readonly string[] = [
  'node',
  'service',
  'ingress',
  'pod',
  'gateway-httproute',
  'gateway-grpcroute',
  'gateway-tlsroute',
  'gateway-tcproute',
  'gateway-udproute',
  'istio-gateway',
  'istio-virtualservice',
  'ambassador-host',
  'contour-httpproxy',
  'gloo-proxy',
  'traefik-proxy',
  'openshift-route',
  'fake',
  'empty',
  'connector',
  'crd',
  'skipper-routegroup',
  'kong-tcpingress',
  'f5-virtualserver',
  'f5-transportserver',
  'unstructured',
];

export interface CallContext {
  /** The source the object comes from, for isSource. */
  source: string;
  /** Typed objects: a missing key of any map indexes as "" (their maps hold strings). */
  typed: boolean;
}

type Fn = (args: Value[], ctx: CallContext) => Value;

/** and / or are evaluated lazily by the executor; listed here so the parser knows them. */
export const LAZY_FUNCTIONS = new Set(['and', 'or']);

/** printf verbs we write as Go does; a literal format with another one is refused at start-up. */
export const PRINTF_VERB = /%(?:%|[vsdqtx])/g;
export const PRINTF_DIRECTIVE = /%[^a-zA-Z%]*[a-zA-Z%]?/g;

const FUNCTIONS: Record<string, Fn> = {
  // Go builtins.
  not: (args) => !truth(arity('not', args, 1)[0]!),
  eq: (args) => {
    const [a, ...rest] = atLeast('eq', args, 2);
    return rest.some((b) => equal(a!, b));
  },
  ne: (args) => !equal(...(arity('ne', args, 2) as [Value, Value])),
  lt: (args) => compare('lt', args) < 0,
  le: (args) => compare('le', args) <= 0,
  gt: (args) => compare('gt', args) > 0,
  ge: (args) => compare('ge', args) >= 0,
  index: (args, ctx) => {
    const [item, ...keys] = atLeast('index', args, 1);
    return keys.reduce<Value>((v, k) => indexOne(v, k, ctx), item!);
  },
  len: (args) => {
    const [v] = arity('len', args, 1);
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (Array.isArray(v)) return v.length;
    if (isMap(v!)) return Object.keys(v).length;
    throw callError('len', `len of type ${goType(v!)}`);
  },
  print: (args) => sprint(args),
  println: (args) => `${args.map(formatValue).join(' ')}\n`,
  printf: (args) => {
    const [format, ...rest] = atLeast('printf', args, 1);
    return sprintf(str('printf', format!), rest);
  },
  // external-dns's function map.
  contains: (args) => {
    const [s, sub] = arity('contains', args, 2);
    return str('contains', s!).includes(str('contains', sub!));
  },
  trimPrefix: (args) => {
    const [s, prefix] = arity('trimPrefix', args, 2).map((v) => str('trimPrefix', v));
    return prefix && s!.startsWith(prefix) ? s!.slice(prefix.length) : s!;
  },
  trimSuffix: (args) => {
    const [s, suffix] = arity('trimSuffix', args, 2).map((v) => str('trimSuffix', v));
    return suffix && s!.endsWith(suffix) ? s!.slice(0, -suffix.length) : s!;
  },
  // strings.TrimSpace: Unicode white space.
  trim: (args) => str('trim', arity('trim', args, 1)[0]!).replace(/^[\s\u0085]+|[\s\u0085]+$/gu, ''),
  toLower: (args) => str('toLower', arity('toLower', args, 1)[0]!).toLowerCase(),
  // Sprig's argument order: replace OLD NEW STRING.
  replace: (args) => {
    const [from, to, s] = arity('replace', args, 3).map((v) => str('replace', v)) as [string, string, string];
    return from === '' ? insertBetweenRunes(s, to) : s.split(from).join(to);
  },
  isIPv4: (args) => netIsIPv4(str('isIPv4', arity('isIPv4', args, 1)[0]!)),
  // endpoint.SuitableType: any address that is not plain IPv4, IPv4-mapped IPv6 included.
  isIPv6: (args) => netIsIPv6(str('isIPv6', arity('isIPv6', args, 1)[0]!)),
  isSource: (args, ctx) => {
    const want = str('isSource', arity('isSource', args, 1)[0]!);
    if (!isKnownSource(want)) throw callError('isSource', unknownSource(want));
    return want.toLowerCase() === ctx.source.toLowerCase();
  },
  hasKey: (args) => {
    const [m, key] = arity('hasKey', args, 2);
    const k = str('hasKey', key!);
    if (m === MISSING || m === null) return false;
    if (!isMap(m!)) throw callError('hasKey', `wrong type for value; expected map[string]string; got ${goType(m!)}`);
    return Object.hasOwn(m, k);
  },
  fromJson: (args) => {
    try {
      return floats(JSON.parse(str('fromJson', arity('fromJson', args, 1)[0]!)) as unknown);
    } catch (e) {
      if (e instanceof TemplateExecError) throw e;
      return null;
    }
  },
};

export const FUNCTION_NAMES: ReadonlySet<string> = new Set([...Object.keys(FUNCTIONS), ...LAZY_FUNCTIONS]);

export function callFunction(name: string, args: Value[], ctx: CallContext): Value {
  return FUNCTIONS[name]!(args, ctx);
}

export function isKnownSource(name: string): boolean {
  return EXTERNAL_DNS_SOURCES.includes(name.toLowerCase());
}
export function unknownSource(name: string): string {
  return `isSource: unknown source "${name}" (valid: ${EXTERNAL_DNS_SOURCES.join(', ')})`;
}

function callError(name: string, message: string): TemplateExecError {
  return new TemplateExecError(`error calling ${name}: ${message}`);
}

function arity(name: string, args: Value[], n: number): Value[] {
  if (args.length !== n) throw new TemplateExecError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  return args;
}
function atLeast(name: string, args: Value[], n: number): Value[] {
  if (args.length < n)
    throw new TemplateExecError(`wrong number of args for ${name}: want at least ${n} got ${args.length}`);
  return args;
}

/** Go's check of a string parameter. */
function str(name: string, v: Value): string {
  if (typeof v === 'string') return v;
  if (v === MISSING) throw new TemplateExecError(`invalid value; expected string (calling ${name})`);
  throw new TemplateExecError(`wrong type for value; expected string; got ${goType(v)} (calling ${name})`);
}

type Basic = 'bool' | 'number' | 'string';
function basicKind(v: Value): Basic | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (isNumber(v)) return 'number';
  return undefined;
}
function plain(v: Value): Value {
  return v instanceof GoFloat ? v.value : v;
}

/**
 * Go's eq for one pair: basic values of one kind by value; no value or nil equals only no value
 * or nil; a basic value against another kind is an error. (Go also refuses int against float;
 * we compare their values.)
 */
function equal(a: Value, b: Value): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  const aNil = a === MISSING || a === null;
  const bNil = b === MISSING || b === null;
  if (ka && kb) {
    if (ka !== kb) throw callError('eq', 'incompatible types for comparison');
    return plain(a) === plain(b);
  }
  if (aNil || bNil) {
    if ((ka && bNil) || (kb && aNil)) return false;
    return aNil && bNil;
  }
  throw callError('eq', `non-comparable types ${goType(a)} and ${goType(b)}`);
}

function compare(name: string, args: Value[]): number {
  const [a, b] = arity(name, args, 2) as [Value, Value];
  const ka = basicKind(a);
  if (!ka || ka === 'bool' || basicKind(b) === undefined) throw callError(name, 'invalid type for comparison');
  if (ka !== basicKind(b)) throw callError(name, 'incompatible types for comparison');
  const x = plain(a) as string | number;
  const y = plain(b) as string | number;
  return x < y ? -1 : x > y ? 1 : 0;
}

function indexOne(item: Value, key: Value, ctx: CallContext): Value {
  if (item === MISSING || item === null) throw callError('index', 'index of untyped nil');
  if (Array.isArray(item) || typeof item === 'string') {
    if (!isNumber(key) || !Number.isInteger(numberOf(key)))
      throw callError('index', `cannot index slice/array with type ${goType(key)}`);
    const i = numberOf(key);
    if (i < 0 || i >= item.length) throw callError('index', `index out of range: ${i}`);
    return typeof item === 'string' ? Buffer.from(item)[i]! : (item as Value[])[i]!;
  }
  if (isMap(item)) {
    if (typeof key !== 'string') throw callError('index', `value has type ${goType(key)}; should be string`);
    if (Object.hasOwn(item, key)) return item[key]!;
    return ctx.typed || isStringMap(item) ? '' : MISSING;
  }
  if (item instanceof GoStruct) throw callError('index', `can't index item of type ${item.typeName}`);
  throw callError('index', `can't index item of type ${goType(item)}`);
}

/** fmt.Sprint: a space between operands when neither is a string. */
function sprint(args: Value[]): string {
  let out = '';
  args.forEach((v, i) => {
    if (i > 0 && typeof v !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(v);
  });
  return out;
}

/** fmt.Sprintf for %v %s %d %q %t %x %% (others are refused at start-up when the format is literal). */
function sprintf(format: string, args: Value[]): string {
  let n = 0;
  const out = format.replace(PRINTF_DIRECTIVE, (directive) => {
    if (directive === '%%') return '%';
    const verb = directive.slice(-1);
    if (directive.length !== 2 || !/[vsdqtx]/.test(verb))
      throw new TemplateExecError(`printf: verb ${directive} is not supported`);
    if (n >= args.length) return `%!${verb}(MISSING)`;
    const v = args[n++]!;
    const ok = formatVerb(verb, v);
    return ok ?? `%!${verb}(${v === MISSING || v === null ? '<nil>' : `${goType(v)}=${formatValue(v)}`})`;
  });
  if (n < args.length)
    return `${out}%!(EXTRA ${args
      .slice(n)
      .map((v) => (v === MISSING || v === null ? '<nil>' : `${goType(v)}=${formatValue(v)}`))
      .join(', ')})`;
  return out;
}

function formatVerb(verb: string, v: Value): string | undefined {
  switch (verb) {
    case 'v':
      return formatValue(v);
    case 's':
      return typeof v === 'string' ? v : undefined;
    case 'q':
      return typeof v === 'string' ? JSON.stringify(v) : undefined;
    case 't':
      return typeof v === 'boolean' ? String(v) : undefined;
    case 'd':
      return typeof v === 'number' && Number.isInteger(v) ? String(v) : undefined;
    case 'x':
      if (typeof v === 'string') return Buffer.from(v).toString('hex');
      return typeof v === 'number' && Number.isInteger(v) ? v.toString(16) : undefined;
    default:
      return undefined;
  }
}

/** strings.ReplaceAll with an empty old string: `to` before every rune and at the end. */
function insertBetweenRunes(s: string, to: string): string {
  return `${to}${[...s].join(to)}${s.length > 0 ? to : ''}`;
}

/** encoding/json into interface{}: every number is a float64. */
function floats(v: unknown): Value {
  if (typeof v === 'number') return new GoFloat(v);
  if (Array.isArray(v)) return v.map(floats);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, floats(x)])) as Value;
  return v as Value;
}
