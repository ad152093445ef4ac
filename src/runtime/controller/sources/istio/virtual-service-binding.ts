// Whether a VirtualService's host is served by a Gateway it names, as external-dns v0.22 decides
// it (Istio's Server.hosts rules): the VirtualService is exported to the Gateway's namespace
// (exportTo empty, "*", the Gateway's namespace, or "." when both share one), and a server host
// whose scope admits the VirtualService's namespace ("*", its namespace, or "." when both share
// one) is "*", the host itself, or "*.suffix" of it. Unlike external-dns, hosts compare
// case-insensitively, as DNS names do. Pure.
import type { IstioGateway, VirtualService } from './istio-api.ts';
import { serverHost } from './server-hosts.ts';

export function exportedTo(vs: VirtualService, gateway: IstioGateway): boolean {
  const exportTo = vs.spec?.exportTo ?? [];
  if (exportTo.length === 0) return true;
  const [own, gw] = [vs.metadata?.namespace ?? 'default', gateway.metadata?.namespace ?? 'default'];
  return exportTo.some((ns) => ns === '*' || ns === gw || (ns === '.' && gw === own));
}

export function bindsToGateway(vs: VirtualService, gateway: IstioGateway, vsHost: string): boolean {
  if (!exportedTo(vs, gateway)) return false;
  const [own, gw] = [vs.metadata?.namespace ?? 'default', gateway.metadata?.namespace ?? 'default'];
  const wanted = vsHost.toLowerCase();
  for (const server of gateway.spec?.servers ?? [])
    for (const raw of server.hosts ?? []) {
      const parsed = serverHost(raw);
      if (!parsed) continue;
      const { scope } = parsed;
      if (!(scope === '*' || scope === own || (scope === '.' && own === gw))) continue;
      const host = parsed.host.toLowerCase();
      if (host === '*' || host === wanted || (host.startsWith('*.') && wanted.endsWith(host.slice(1)))) return true;
    }
  return false;
}
