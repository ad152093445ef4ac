// Which cached answers a change can make wrong. Most answers depend on their own name only: the
// entries at its key and below it (SkyDNS keeps a name's records there), and nothing else. A
// change to a key then affects the names on its path, from the key's own name up to the root, so
// only those are dropped and the rest of the cache survives churn. Everything else (CNAME chases,
// glue and targets of SRV/MX/NS, wildcards, referrals, SOA and ANY questions, the subtree lookup
// and its query wildcards) is "shared" and dropped on every change, as the whole cache used to be.
// The SOA serial in negative answers is not a dependency: it is patched on the way out
// (soa-serial.ts), because it moves with every change of the zone.
import { labelsOf } from '../../../dns/dns-name.ts';
import { classifyHost } from '../../../skydns/host-address.ts';
import type { StoredEntry } from '../store/record-index.ts';
import { RCODE, TYPE } from '../wire/dns-constants.ts';
import type { Answer } from '../wire/dns-message.ts';

/** The lower-case wire form of a name (the answer cache's name key), from its labels, leftmost first. */
export function wireNameOf(labels: readonly string[]): string {
  let out = '';
  for (const label of labels) out += String.fromCharCode(label.length) + label.toLowerCase();
  return `${out}\0`;
}

/** Question types whose positive answer holds only records of the question name, no chase. */
const OWN_NAME_TYPES: ReadonlySet<number> = new Set([TYPE.A, TYPE.AAAA, TYPE.TXT]);

/** What the resolver found at the question name, in the default mode (`lookup: own`). */
export interface FoundAtName {
  /** Whether a node of the copy is at the name (none: synthesized from a wildcard, or an empty apex). */
  node: () => boolean;
  /** The name's entries (at an apex also its key's own, which include those its addresses come from). */
  entries: readonly StoredEntry[];
}

/**
 * True when the answer to `name`/`type` depends on nothing but the entries at and below the
 * question name: then only a change on that name's key path can change it. Decided from what the
 * resolver found there while answering; anything not shown to be local is shared.
 */
export function dependsOnOwnName(name: string, type: number, answer: Answer, found: FoundAtName): boolean {
  if (answer.referral || answer.outOfZone || answer.additional.length > 0) return false;
  const positive = answer.answer.length > 0;
  if (positive && !OWN_NAME_TYPES.has(type)) return false;
  if (!positive && (type === TYPE.SOA || type === TYPE.ANY || type === TYPE.NS)) return false;
  if (answer.answer.some((r) => r.name !== name || r.type === TYPE.CNAME)) return false;
  // A name with an alias (even one that led nowhere: NODATA then depends on the target): shared.
  if (found.entries.some((s) => s.entry.host !== undefined && classifyHost(s.entry.host).kind === 'name')) return false;
  if (labelsOf(name).includes('*')) return false;
  // Synthesized from a wildcard: shared.
  return found.node() || answer.rcode === RCODE.NXDOMAIN;
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
