// external-dns's annotations and the one place that decides under which prefixes they are read.
// external-dns v0.22 reads only --annotation-prefix (default the GA prefix); v0.23's
// --enable-legacy-annotation-prefix also reads the pre-v0.22 alpha prefix, the configured one
// winning. etcdns with neither flag reads both, the GA prefix winning, so existing manifests keep
// working; given --annotation-prefix it reads exactly what external-dns would.

export const GA_ANNOTATION_PREFIX = 'external-dns.kubernetes.io/';
export const LEGACY_ANNOTATION_PREFIX = 'external-dns.alpha.kubernetes.io/';

export interface AnnotationPrefixSettings {
  /** --annotation-prefix; default the GA prefix. */
  annotationPrefix?: string | undefined;
  /** --enable-legacy-annotation-prefix; default on unless --annotation-prefix is given. */
  enableLegacyAnnotationPrefix?: boolean | undefined;
}

/** The prefixes annotations are read under, the winner first. */
export function annotationPrefixes(settings: AnnotationPrefixSettings): string[] {
  const configured = settings.annotationPrefix ?? GA_ANNOTATION_PREFIX;
  const legacy = settings.enableLegacyAnnotationPrefix ?? settings.annotationPrefix === undefined;
  return legacy && configured !== LEGACY_ANNOTATION_PREFIX ? [configured, LEGACY_ANNOTATION_PREFIX] : [configured];
}

// Set once at start-up (as external-dns's SetAnnotationPrefix) so every reader agrees.
let inUse: readonly string[] = annotationPrefixes({});

/** Every reader from now on reads under `prefixes` (the controller calls this once, at start). */
export function useAnnotationPrefixes(prefixes: readonly string[]): void {
  inUse = [...prefixes];
}

/** The prefixes in use, the winner first. */
export function annotationPrefixesInUse(): readonly string[] {
  return inUse;
}

export type AnnotationName =
  | 'hostname'
  | 'ttl'
  | 'target'
  | 'internal-hostname'
  | 'access'
  | 'endpoints-type'
  | 'controller'
  | 'ingress-hostname-source'
  | 'gateway-hostname-source'
  /** An Istio Gateway's Ingress ("[namespace/]name"), whose load-balancer addresses it points at. */
  | 'ingress';

export type Annotations = Record<string, string> | undefined;

/** The value of `name` under the first prefix that has it, with the full key for messages. */
export function readAnnotation(
  annotations: Annotations,
  name: AnnotationName,
  prefixes: readonly string[] = inUse,
): { key: string; value: string } | undefined {
  if (!annotations) return undefined;
  for (const prefix of prefixes) {
    const key = `${prefix}${name}`;
    const value = annotations[key];
    if (value !== undefined) return { key, value };
  }
  return undefined;
}

/** "a.example.org, b.example.org" -> ["a.example.org", "b.example.org"] (empty items dropped). */
export function splitList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** external-dns's bounds: at least 1 second, at most 2^31-1 (RFC 2181). */
export const TTL_MIN = 1;
export const TTL_MAX = 2147483647;

const DURATION_UNITS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, µs: 1e-6, ns: 1e-9 };
const DURATION = /^(?:(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|ns|m|s))+$/;
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|ns|m|s)/g;

/** A ttl annotation as external-dns reads it: whole seconds ("300") or a Go duration ("5m", "1h30m"). */
export function parseTtl(value: string): { ok: true; ttl: number } | { ok: false; error: string } {
  const text = value.trim();
  let seconds: number;
  if (/^[+-]?\d+$/.test(text)) {
    seconds = Number(text);
  } else if (DURATION.test(text)) {
    seconds = 0;
    for (const m of text.matchAll(DURATION_PART)) seconds += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    seconds = Math.floor(seconds);
  } else {
    return { ok: false, error: `"${value}" is neither whole seconds nor a duration such as "5m"` };
  }
  if (seconds < TTL_MIN || seconds > TTL_MAX) {
    return { ok: false, error: `${seconds} seconds is outside ${TTL_MIN}..${TTL_MAX}` };
  }
  return { ok: true, ttl: seconds };
}
