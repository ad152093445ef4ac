// Domain names as the construct library checks them. The rule is the DNS server's (letters,
// digits, "-" and "_" per label, 1-63 characters, a leading "*" label, 253 characters in all);
// the library imports no runtime code, so test/constructs/domain-name.test.ts keeps the two equal.

const LABEL = /^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/** One spelling per name, for comparisons: lower case, no trailing dot ("Example.ORG." -> "example.org"). */
export function zoneKey(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Why `name` is not a usable domain name, or undefined when it is. */
export function domainNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  const key = zoneKey(name);
  if (key === '') return undefined;
  if (key.length > 253) return 'is longer than 253 characters';
  const labels = key.split('.');
  if (labels.some((l) => l === '')) return 'has an empty label';
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined)
    return bad.length > 63
      ? `has label "${bad}" longer than 63 characters`
      : `has invalid label "${bad}" (letters, digits, "-" and "_" only)`;
  if (labels.indexOf('*', 1) > 0) return 'has "*" in a position other than the first label';
  return undefined;
}
