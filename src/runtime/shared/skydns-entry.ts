// One SkyDNS value: the JSON stored at a key. Field names match without regard to case and
// unknown fields are ignored, as CoreDNS reads them; `owner` and `resource` are ours.

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
}

type NumberField = 'port' | 'priority' | 'weight' | 'ttl' | 'targetstrip';
type StringField = 'host' | 'text' | 'group' | 'owner' | 'resource';
const FIELD_KINDS: ReadonlyMap<string, 'number' | 'string' | 'boolean'> = new Map([
  ...(['port', 'priority', 'weight', 'ttl', 'targetstrip'] as const).map((f) => [f, 'number'] as const),
  ...(['host', 'text', 'group', 'owner', 'resource'] as const).map((f) => [f, 'string'] as const),
  ['mail', 'boolean'] as const,
]);

export type DecodeResult = { ok: true; entry: SkyDnsEntry } | { ok: false; error: string };

/**
 * Decodes a stored value. An entry with neither host nor text decodes but is unusable;
 * callers decide (the server ignores it). A value that is not a JSON object, or a field of the
 * wrong type, is an error naming the field. A load decodes every key, so this walks the parsed
 * object once, without copies of its fields.
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
  const entry: SkyDnsEntry = {};
  const fields = parsed as Record<string, unknown>;
  for (const key in fields) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    // Most values are written lower-case already; only others pay for the lower-casing.
    const name = FIELD_KINDS.has(key) ? key : key.toLowerCase();
    const kind = FIELD_KINDS.get(name);
    if (kind === 'string') {
      if (typeof v !== 'string') return { ok: false, error: `field "${name}" must be a string` };
      entry[name as StringField] = v;
    } else if (kind === 'number') {
      if (typeof v !== 'number' || !Number.isInteger(v))
        return { ok: false, error: `field "${name}" must be an integer` };
      entry[name as NumberField] = v;
    } else if (kind === 'boolean') {
      if (typeof v !== 'boolean') return { ok: false, error: 'field "mail" must be a boolean' };
      entry.mail = v;
    }
  }
  return { ok: true, entry };
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
  ] as const) {
    if (entry[name] !== undefined) ordered[name] = entry[name];
  }
  return JSON.stringify(ordered);
}
