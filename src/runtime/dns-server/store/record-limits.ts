// What the in-memory copy refuses to keep, so that anyone able to write to the prefix cannot make
// the server hold or serve more than DNS can carry. Pure checks; the index applies them on every
// put (full loads, watch events, snapshot loads alike) and skips the key with a reason.
//
// The bounds come from DNS itself: a name is at most 255 octets on the wire and a label at most
// 63 (RFC 1035 2.3.4), so a longer key can never be asked for; a DNS message is at most 65,535
// octets, so a larger value cannot be answered, and neither can more entries for one name than
// the smallest records (A, 16 octets with a compressed owner) fit into one message: about 4,090,
// so the default of 4,000 leaves room for the header, the question and EDNS.

export interface RecordLimits {
  /** Largest stored value, in bytes (JSON as etcd holds it). */
  maxValueBytes: number;
  /**
   * Most values stored directly below one name (its child entries, external-dns's layout; one
   * label below a zone apex these are the zone's names instead, and the limit does not apply).
   */
  maxEntriesPerName: number;
}

export const DEFAULT_RECORD_LIMITS: RecordLimits = { maxValueBytes: 65_535, maxEntriesPerName: 4000 };

/** Why a key was skipped: the label value of etcdns_dns_skipped_values_total{reason}. */
export const SKIP_REASONS = [
  'undecodable',
  'value_too_large',
  'name_too_long',
  'label_too_long',
  'too_many_entries',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface Skip {
  reason: SkipReason;
  /** For the log line: what exactly is over which limit. */
  error: string;
}

const MAX_NAME_OCTETS = 255;
const MAX_LABEL_OCTETS = 63;
/**
 * Key text past the prefix beyond which the name is too long whatever it holds (each label costs
 * at least as many octets on the wire as characters in the key); spares splitting a hostile key.
 */
export const MAX_KEY_TAIL_CHARS = 4 * MAX_NAME_OCTETS;

/** The name a key path (labels below the prefix, as stored) stands for, checked against RFC 1035. */
export function namePathSkip(path: readonly string[]): Skip | undefined {
  // A UTF-16 unit is at most 3 octets in UTF-8: most names are short enough not to count exactly.
  let bound = 1;
  let longest = 0;
  for (const label of path) {
    bound += 3 * label.length + 1;
    longest = Math.max(longest, label.length);
  }
  if (bound <= MAX_NAME_OCTETS && 3 * longest <= MAX_LABEL_OCTETS) return undefined;
  let octets = 1; // the root label
  for (const label of path) {
    const length = Buffer.byteLength(label);
    if (length > MAX_LABEL_OCTETS) {
      return { reason: 'label_too_long', error: `label of ${length} octets (at most ${MAX_LABEL_OCTETS})` };
    }
    octets += length + 1;
  }
  if (octets > MAX_NAME_OCTETS) {
    return { reason: 'name_too_long', error: `name of ${octets} octets (at most ${MAX_NAME_OCTETS})` };
  }
  return undefined;
}

/** A key whose text alone is too long to be a name (checked before splitting it). */
export function keyTailSkip(tailChars: number): Skip | undefined {
  if (tailChars <= MAX_KEY_TAIL_CHARS) return undefined;
  return { reason: 'name_too_long', error: `key of ${tailChars} characters below the prefix` };
}

export function valueSizeSkip(bytes: number, limits: RecordLimits): Skip | undefined {
  if (bytes <= limits.maxValueBytes) return undefined;
  return { reason: 'value_too_large', error: `value of ${bytes} bytes (at most ${limits.maxValueBytes})` };
}

/** A new value below a name that already holds `stored` values directly below it. */
export function entriesSkip(stored: number, limits: RecordLimits): Skip | undefined {
  if (stored < limits.maxEntriesPerName) return undefined;
  return {
    reason: 'too_many_entries',
    error: `name already holds ${stored} entries (at most ${limits.maxEntriesPerName})`,
  };
}

/** The configured limits (config field `recordLimits`), defaults where a field is absent. */
export function recordLimits(configured: Partial<RecordLimits> | undefined): RecordLimits {
  return {
    maxValueBytes: configured?.maxValueBytes ?? DEFAULT_RECORD_LIMITS.maxValueBytes,
    maxEntriesPerName: configured?.maxEntriesPerName ?? DEFAULT_RECORD_LIMITS.maxEntriesPerName,
  };
}
