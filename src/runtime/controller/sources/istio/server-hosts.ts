// The hosts of an Istio Gateway's servers ("[namespace/]host"), as external-dns v0.22 reads them:
// the Gateway source publishes each host without its namespace scope ("*" alone is skipped, a
// "*.example.org" wildcard is published as such); the VirtualService source binds a
// VirtualService's host to a server host whose scope admits the VirtualService's namespace.
import type { IstioGateway } from './istio-api.ts';

export interface ServerHost {
  /** "*" (any namespace, the default), "." (the Gateway's own) or a namespace name. */
  scope: string;
  host: string;
}

/** A server host's scope and host; undefined when it has more than one "/". */
export function serverHost(raw: string): ServerHost | undefined {
  const parts = raw.split('/');
  if (parts.length === 1) return { scope: '*', host: raw };
  if (parts.length === 2) return { scope: parts[0]!, host: parts[1]! };
  return undefined;
}

/**
 * The names a Gateway's servers publish: every host without its scope, except "" and "*". A host
 * with more than one "/" is passed on whole (external-dns does; the name check then reports it).
 */
export function gatewayHostnames(gateway: IstioGateway): string[] {
  const names: string[] = [];
  for (const server of gateway.spec?.servers ?? [])
    for (const raw of server.hosts ?? []) {
      if (raw === '') continue;
      const host = serverHost(raw)?.host ?? raw;
      if (host !== '*') names.push(host);
    }
  return names;
}
