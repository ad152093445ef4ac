// Where a Contour HTTPProxy is turned into records, as external-dns v0.22's contour-httpproxy
// source does it: spec.virtualhost.fqdn and the hostname annotation point at the target
// annotation, else at the HTTPProxy's status.loadBalancer (which Contour copies from its Envoy
// Service). Like external-dns since v0.14, status.currentStatus is not read: a proxy Contour
// marks invalid still publishes its name (its address is Envoy's either way).
import { objectRef, type ObjectMeta } from './object-ref.ts';
import { RecordBuilder, type SourceResult } from './record-builder.ts';
import { loadBalancerTargets } from './service-source.ts';
import { objectSelected, type SourceOptions } from './source-options.ts';
import type { SourceRuntime } from './source-runtime.ts';

export const HTTPPROXY_API_VERSION = 'projectcontour.io/v1';

/** The parts of projectcontour.io/v1 HTTPProxy the source reads. */
export interface HttpProxy {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { virtualhost?: { fqdn?: string } };
  status?: {
    currentStatus?: string;
    loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] };
  };
}

export function httpProxyRecords(proxy: HttpProxy, options: SourceOptions, out: SourceResult): void {
  const meta = proxy.metadata;
  const ref = objectRef('HTTPProxy', proxy.apiVersion ?? HTTPPROXY_API_VERSION, meta);
  if (!ref || !objectSelected(meta, options)) return;
  const b = new RecordBuilder(ref, meta?.annotations, options, out);
  const fqdn = proxy.spec?.virtualhost?.fqdn;
  const hosts = new Set([...(fqdn ? [fqdn] : []), ...b.annotatedHostnames()]);
  if (hosts.size === 0) return;
  b.hostnames([...hosts], b.targetOverride ?? b.targets(loadBalancerTargets(proxy)));
}

/** HTTPProxies read nothing else: a change re-plans that proxy alone. */
export const httpProxySource: SourceRuntime = {
  records: (object, _kind, _context, options, out) => httpProxyRecords(object as HttpProxy, options, out),
};
