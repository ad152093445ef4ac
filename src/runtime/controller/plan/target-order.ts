// external-dns's order of two record sets' targets (endpoint.Targets.IsLess), which decides
// which source's record set a name gets when no resource owns it yet: fewer targets first; else,
// both sorted as text, the first differing pair decides: two IPs by address, an IP before a name,
// two names as text.
import { parseAddress } from '../../../dns/cidr.ts';

export function compareTargetSets(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  const x = [...a].sort();
  const y = [...b].sort();
  for (const [i, s] of x.entries()) {
    const t = y[i]!;
    if (s === t) continue;
    const [p, q] = [parseAddress(s), parseAddress(t)];
    if (p && q) return p.family !== q.family ? p.family - q.family : p.value < q.value ? -1 : 1;
    if (p) return -1;
    if (q) return 1;
    return s < t ? -1 : 1;
  }
  return 0;
}
