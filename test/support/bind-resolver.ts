// The real BIND 9 (Debian named) as a recursive resolver (resolver.ts): static-stub zones, the
// root only from its fake hints, no DNSSEC validation, no control channel; its own configuration
// and directory. It asks every server on port 53, the stubs' as those a referral gives
// (static-stub takes no port). named listens only on interface addresses: 127.0.0.1 here.
import { namedFiles } from './bind-secondary.ts';
import { startResolver, type ResolverHandle, type ResolverOptions } from './resolver.ts';
import { tool } from './tools.ts';

export function bindResolverConfig(dir: string, rootHints: string, o: ResolverOptions): string {
  const zones = o.stubZones.map((z) => {
    if (z.addresses.some((a) => (a.port ?? 53) !== 53)) throw new Error(`${z.name}: BIND's static-stub asks port 53`);
    return `zone "${z.name}" {
    type static-stub;
    server-addresses { ${z.addresses.map((a) => `${a.address};`).join(' ')} };
};
`;
  });
  return `options {
${namedFiles(dir)}
    listen-on port ${o.port} { ${o.address}; };
    listen-on-v6 { none; };
    recursion yes;
    allow-query { 127.0.0.0/8; };
    allow-recursion { 127.0.0.0/8; };
    dnssec-validation no;
    notify no;
    query-source address ${o.address};
    automatic-interface-scan no;
};
controls { };
zone "." { type hint; file "${rootHints}"; };
${zones.join('')}`;
}

export function startBindResolver(o: ResolverOptions): Promise<ResolverHandle> {
  return startResolver(
    {
      name: 'bind-resolver',
      command: tool('named'),
      config: (dir, rootHints) => bindResolverConfig(dir, rootHints, o),
      // -g: foreground, logging to stderr; -4: IPv4 only; -n 1: one worker (the machine is shared).
      args: (config) => ['-g', '-4', '-n', '1', '-c', config],
    },
    o,
  );
}
