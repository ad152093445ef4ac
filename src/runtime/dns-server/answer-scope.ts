// Which cached answers a change can make wrong. Most answers depend on their own name only: the
// entries at its key and below it (SkyDNS keeps a name's records there), and nothing else. A
// change to a key then affects the names on its path, from the key's own name up to the root, so
// only those are dropped and the rest of the cache survives churn. Everything else (CNAME chases,
// glue and targets of SRV/MX/NS, wildcards, referrals, SOA and ANY questions, the subtree lookup
// and its query wildcards) is "shared" and dropped on every change, as the whole cache used to be.
// The SOA serial in negative answers is not a dependency: it is patched on the way out
// (soa-serial.ts), because it moves with every change of the zone.
import { labelsOf } from '../../dns/dns-name.ts';
import { RCODE, TYPE } from './dns-constants.ts';
import type { Answer, Question } from './dns-message.ts';
import { classifyHost } from '../../skydns/host-address.ts';
import { lookupName, type LookupMode } from './name-lookup.ts';
import type { RecordIndex } from './record-index.ts';
import type { Zone } from './zones.ts';

/** The lower-case wire form of a name (the answer cache's name key), from its labels, leftmost first. */
export function wireNameOf(labels: readonly string[]): string {
  let out = '';
  for (const label of labels) out += String.fromCharCode(label.length) + label.toLowerCase();
  return `${out}\0`;
}

/** Question types whose positive answer holds only records of the question name, no chase. */
const OWN_NAME_TYPES: ReadonlySet<number> = new Set([TYPE.A, TYPE.AAAA, TYPE.TXT]);

/**
 * True when the answer depends on nothing but the entries at and below the question name: then
 * only a change on that name's key path can change it. Checked against the copy the answer was
 * made from; anything not shown to be local is shared.
 */
export function dependsOnOwnName(
  question: Question,
  answer: Answer,
  index: RecordIndex,
  zone: Zone | undefined,
  mode: LookupMode,
): boolean {
  if (!zone || mode !== 'own' || answer.referral || answer.outOfZone) return false;
  if (answer.additional.length > 0) return false;
  const positive = answer.answer.length > 0;
  if (positive && !OWN_NAME_TYPES.has(question.type)) return false;
  if (!positive && (question.type === TYPE.SOA || question.type === TYPE.ANY || question.type === TYPE.NS)) {
    return false;
  }
  if (answer.answer.some((r) => r.name !== question.name || r.type === TYPE.CNAME)) return false;
  const labels = labelsOf(question.name);
  if (labels.includes('*')) return false;
  // Synthesized from a wildcard, or a name with an alias (even one that led nowhere: NODATA then
  // depends on the target): shared.
  if (!index.find(labels) && answer.rcode !== RCODE.NXDOMAIN) return false;
  for (const purpose of ['address', 'other'] as const) {
    const entries = lookupName(index, zone, question.name, mode, purpose).entries;
    if (entries.some((s) => s.entry.host !== undefined && classifyHost(s.entry.host).kind === 'name')) return false;
  }
  return true;
}

/**
 * The names whose own-name answers a batch of changed keys (path labels below the prefix, as
 * stored: rightmost DNS label first) can change: each key's name and the names above it. A
 * wildcard or a delegation/NS entry changes answers of names below it, which no path here
 * reaches: then 'all'.
 */
export function changedNames(paths: readonly (readonly string[])[]): Set<string> | 'all' {
  const names = new Set<string>();
  for (const path of paths) {
    if (path.includes('*')) return 'all';
    for (let i = 0; i + 1 < path.length; i++) if (path[i] === 'dns' && path[i + 1] === 'ns') return 'all';
    for (let depth = path.length; depth >= 0; depth--) names.add(wireNameOf(path.slice(0, depth).toReversed()));
  }
  return names;
}
