// A target is what a name points at: an IP address (A or AAAA) or another name (CNAME).
import { isIPv4, isIPv6 } from 'node:net';
import { canonicalName, dnsNameProblem } from '../../../dns/dns-name.ts';
import type { RecordType } from '../desired-record.ts';

export type Target = { type: RecordType; target: string };

/** Classifies a target, or says why it is neither an IP address nor a usable name. */
export function classifyTarget(value: string): { ok: true; target: Target } | { ok: false; error: string } {
  const text = value.trim();
  if (isIPv4(text)) return { ok: true, target: { type: 'A', target: text } };
  if (isIPv6(text)) {
    // IPv4-mapped IPv6 counts as A (as SkyDNS reads it); the stored form stays the dotted one.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
    if (mapped) return { ok: true, target: { type: 'A', target: mapped[1]! } };
    return { ok: true, target: { type: 'AAAA', target: text.toLowerCase() } };
  }
  // A name target must look like a host name: a numeric-only last label is a mistyped address.
  const problem =
    dnsNameProblem(text) ?? (/\.\d+\.?$|^\d+\.?$/.test(text) ? 'looks like a malformed IP address' : undefined);
  if (problem || text.startsWith('*')) {
    return {
      ok: false,
      error: `target "${value}" is neither an IP address nor a host name (${problem ?? 'wildcard'})`,
    };
  }
  return { ok: true, target: { type: 'CNAME', target: canonicalName(text) } };
}

/** Each target once, in a stable order (external-dns merges and sorts a name's targets). */
export function uniqueTargets(targets: readonly Target[]): Target[] {
  const seen = new Map<string, Target>();
  for (const t of targets) seen.set(`${t.type} ${t.target}`, t);
  return [...seen.values()].sort((x, y) => (x.target < y.target ? -1 : x.target > y.target ? 1 : 0));
}
