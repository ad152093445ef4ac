// Domain names as the rest of the code sees them: lower-case, absolute (trailing dot), validated.

const LABEL = /^(?:\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/** Lower-cases and makes absolute: "WWW.Example.org" -> "www.example.org.". */
export function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}

/** Why `name` is not a usable DNS name, or undefined when it is. Accepts a leading "*" label. */
export function dnsNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  const canonical = canonicalName(name);
  if (canonical === '.') return undefined;
  if (canonical.length > 254) return 'is longer than 253 characters';
  const labels = canonical.slice(0, -1).split('.');
  for (const [i, label] of labels.entries()) {
    if (label.length === 0) return 'has an empty label';
    if (label.length > 63) return `has label "${label}" longer than 63 characters`;
    if (!LABEL.test(label)) return `has invalid label "${label}" (letters, digits, "-" and "_" only)`;
    if (label === '*' && i !== 0) return 'has "*" in a position other than the first label';
  }
  return undefined;
}

/** Labels of a canonical name, leftmost first, without the root: "a.b." -> ["a", "b"]. */
export function labelsOf(name: string): string[] {
  const canonical = canonicalName(name);
  return canonical === '.' ? [] : canonical.slice(0, -1).split('.');
}

/** True when `name` equals `zone` or lies below it (both canonical). */
export function isInZone(name: string, zone: string): boolean {
  return zone === '.' || name === zone || name.endsWith(`.${zone}`);
}
