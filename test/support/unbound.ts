// The real Unbound (Debian unbound) as a recursive resolver (resolver.ts): stub zones, the root
// refused (`local-zone: "." refuse`, each stub zone let through), iterator only unless given trust
// anchors (then validating), no control channel; its own configuration and directory.
import { join } from 'node:path';
import { startResolver, type ResolverHandle, type ResolverOptions } from './resolver.ts';
import { tool } from './tools.ts';

/** With trust anchors (DS or DNSKEY lines) it validates: DNSSEC answers get AD, bogus ones SERVFAIL. */
export interface UnboundOptions extends ResolverOptions {
  trustAnchors?: readonly string[];
}

export function unboundConfig(dir: string, rootHints: string, o: UnboundOptions): string {
  const stubs = o.stubZones.map(
    (z) =>
      `stub-zone:\n    name: "${z.name}"\n${z.addresses.map((a) => `    stub-addr: ${a.address}@${a.port ?? 53}\n`).join('')}`,
  );
  return `server:
    username: ""
    chroot: ""
    directory: "${dir}"
    pidfile: "${join(dir, 'unbound.pid')}"
    use-syslog: no
    logfile: ""
    verbosity: 1
    do-daemonize: no
    num-threads: 1
    so-reuseport: no
    interface: ${o.address}@${o.port}
    outgoing-interface: ${o.address}
    do-ip6: no
    access-control: 127.0.0.0/8 allow
    # The servers it is to ask live on loopback; Unbound refuses to ask there by default.
    do-not-query-localhost: no
    module-config: "${o.trustAnchors?.length ? 'validator iterator' : 'iterator'}"
${(o.trustAnchors ?? []).map((a) => `    trust-anchor: "${a}"\n`).join('')}    root-hints: "${rootHints}"
    # The root and everything not stubbed below is refused here, never asked of anyone.
    local-zone: "." refuse
${o.stubZones.map((z) => `    local-zone: "${z.name}" transparent\n`).join('')}remote-control:
    control-enable: no
${stubs.join('')}`;
}

export function startUnbound(o: UnboundOptions): Promise<ResolverHandle> {
  return startResolver(
    {
      name: 'unbound',
      command: tool('unbound'),
      config: (dir, rootHints) => unboundConfig(dir, rootHints, o),
      args: (config) => ['-d', '-c', config],
    },
    o,
  );
}
