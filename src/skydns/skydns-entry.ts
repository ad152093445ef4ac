// One SkyDNS value: the JSON stored at a key. Field names match without regard to case and
// unknown fields are ignored, as CoreDNS reads them; `owner`, `resource` and the `hub` fields are ours.

export interface SkyDnsEntry {
  host?: string;
  port?: number;
  priority?: number;
  weight?: number;
  text?: string;
  mail?: boolean;
  ttl?: number;
  targetstrip?: number;
  group?: string;
  /** Owner id of the controller that wrote the entry; absent on entries nobody owns. */
  owner?: string;
  /** The Kubernetes object the entry was made for, e.g. "service/default/nginx". */
  resource?: string;
  /** A spoke's policy for the entry's name at the hub (name-policy.ts); absent: the zone's. */
  hubpolicy?: string;
  /** Its failover order: cluster names, comma-separated. */
  huborder?: string;
  /** Its cluster's weight for the name, by weighted. */
  hubweight?: number;
  /** false: the object's Service has no ready endpoint (etcdns.io/hub-health): the name fails over. */
  hubready?: boolean;
}

const NUMBER_FIELDS = ['port', 'priority', 'weight', 'ttl', 'targetstrip', 'hubweight'] as const;
const STRING_FIELDS = ['host', 'text', 'group', 'owner', 'resource', 'hubpolicy', 'huborder'] as const;
/** Each field's JavaScript type (`typeof`), in the order errors are looked for. */
const FIELD_TYPES: ReadonlyMap<string, 'string' | 'number' | 'boolean'> = new Map([
  ...STRING_FIELDS.map((f) => [f, 'string'] as const),
  ...NUMBER_FIELDS.map((f) => [f, 'number'] as const),
  ['mail', 'boolean'],
  ['hubready', 'boolean'],
]);

export type DecodeResult = { ok: true; entry: SkyDnsEntry } | { ok: false; error: string };

/**
 * The parsed object with its field names lower-cased, the later of two spellings winning (null
 * included). Values are nearly always written lower-case: then the object itself, no copy.
 */
function lowerCaseFields(parsed: Record<string, unknown>): Record<string, unknown> {
  for (const key in parsed) {
    if (key === key.toLowerCase()) continue;
    const lower = Object.create(null) as Record<string, unknown>;
    for (const k in parsed) lower[k.toLowerCase()] = parsed[k];
    return lower;
  }
  return parsed;
}

/** Why a known field's value is unusable, or undefined (unknown fields and null are ignored). */
function fieldError(name: string, v: unknown): string | undefined {
  const type = FIELD_TYPES.get(name);
  if (type === undefined || v === undefined || v === null) return undefined;
  if (type === 'number') return Number.isInteger(v) ? undefined : `field "${name}" must be an integer`;
  return typeof v === type ? undefined : `field "${name}" must be ${type === 'string' ? 'a string' : 'a boolean'}`;
}

/**
 * Decodes a stored value. An entry with neither host nor text decodes but is unusable;
 * callers decide (the server ignores it). A value that is not a JSON object, or a field of the
 * wrong type, is an error naming the field. A load decodes every key: this walks the fields the
 * value has once and only looks for the error to report when there is one.
 */
export function decodeEntry(raw: string): DecodeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: 'not a JSON object' };
  }
  const fields = lowerCaseFields(parsed as Record<string, unknown>);
  const entry: Record<string, unknown> = {};
  for (const name in fields) {
    const v = fields[name];
    if (v === undefined || v === null || !FIELD_TYPES.has(name)) continue;
    if (fieldError(name, v) !== undefined) {
      // The error reported is the first in field order, whatever order the value has.
      for (const known of FIELD_TYPES.keys()) {
        const error = fieldError(known, fields[known]);
        if (error) return { ok: false, error };
      }
    }
    entry[name] = v;
  }
  return { ok: true, entry: entry as SkyDnsEntry };
}

/** Encodes with a fixed field order, so equal entries are equal strings (no churn in etcd). */
export function encodeEntry(entry: SkyDnsEntry): string {
  const ordered: Record<string, unknown> = {};
  for (const name of [
    'host',
    'port',
    'priority',
    'weight',
    'text',
    'mail',
    'ttl',
    'targetstrip',
    'group',
    'owner',
    'resource',
    'hubpolicy',
    'huborder',
    'hubweight',
    'hubready',
  ] as const) {
    if (entry[name] !== undefined) ordered[name] = entry[name];
  }
  return JSON.stringify(ordered);
}
