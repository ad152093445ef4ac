// external-dns's annotations, read under both of its prefixes so existing manifests keep working.
// When both spellings are present the newer prefix wins.

export const ANNOTATION_PREFIXES = ['external-dns.kubernetes.io/', 'external-dns.alpha.kubernetes.io/'] as const;

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
): { key: string; value: string } | undefined {
  if (!annotations) return undefined;
  for (const prefix of ANNOTATION_PREFIXES) {
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
