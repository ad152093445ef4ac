// The hosts of a Traefik router rule, as external-dns v0.22 reads them (source/traefik_proxy.go):
// every quoted argument of each Host, HostHeader and HostSNI matcher, wherever it stands in the
// rule (`||` and `&&` lists, Traefik v2's several arguments in one matcher), "*" and empty ones
// skipped; HostRegexp and HostSNIRegexp are not hosts. external-dns reads backquoted arguments
// only; Traefik also takes double-quoted ones, and so do we. Pure.

const QUOTED = '`[^`]*`|"(?:[^"\\\\]|\\\\.)*"';
/** A host matcher and its arguments (one or more quoted strings, comma-separated). */
const MATCHER = new RegExp(
  `(?:HostSNI|HostHeader|Host)\\s*\\(\\s*((?:${QUOTED})(?:\\s*,\\s*(?:${QUOTED}))*)\\s*\\)`,
  'g',
);
const ARGUMENT = new RegExp(QUOTED, 'g');

/** The hosts a rule matches, in order, each once. */
export function ruleHosts(rule: string | undefined): string[] {
  const hosts = new Set<string>();
  for (const matcher of (rule ?? '').matchAll(MATCHER)) {
    for (const [quoted] of matcher[1]!.matchAll(ARGUMENT)) {
      const host = quoted.startsWith('"') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
      // external-dns's argument pattern stops at commas: a host with one is no host.
      if (host !== '*' && host !== '' && !host.includes(',')) hosts.add(host.trim());
    }
  }
  return [...hosts];
}
