// Claims (issue 34): the names a member cluster may publish, those at or below one of its
// suffixes, and optionally which of its namespaces may publish below a suffix. A cluster's etcd
// role reaches its whole prefix, whatever names it writes there, so the hub checks the suffixes
// on every entry it reads; the spoke's controller checks them, with the namespaces, before it
// writes, so the object says why. One rule for both sides. Pure.
import { canonicalName, isInZone } from '../dns/dns-name.ts';

export interface Claim {
  /** A domain name: the claim holds it and every name below it. */
  suffix: string;
  /** Only objects in these namespaces may publish below `suffix`; every namespace when absent. */
  namespaces?: readonly string[] | undefined;
}

/**
 * Why cluster `cluster` may not publish `name`, or undefined when it may: some claim holds the
 * name and, when the publishing object's `namespace` is known and that claim lists namespaces,
 * lists it. Any claim that admits the name admits it (claims add up).
 */
export function claimRefusal(
  cluster: string,
  claims: readonly Claim[],
  name: string,
  namespace?: string,
): string | undefined {
  const canonical = canonicalName(name);
  const holding = claims.filter((c) => isInZone(canonical, canonicalName(c.suffix)));
  if (holding.length === 0)
    return `"${canonical}" is outside cluster ${cluster}'s claims (${claims.map((c) => canonicalName(c.suffix)).join(', ') || 'none'})`;
  if (namespace === undefined || holding.some((c) => !c.namespaces || c.namespaces.includes(namespace)))
    return undefined;
  return `"${canonical}" is claimed by cluster ${cluster} for namespaces ${[...new Set(holding.flatMap((c) => c.namespaces ?? []))].join(', ')}, not "${namespace}"`;
}
