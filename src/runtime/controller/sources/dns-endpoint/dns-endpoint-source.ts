// Where a DNSEndpoint is turned into records: each endpoint on its own (endpoint-records.ts), so an
// invalid one is refused with its reason and the others still publish. recordTTL is the TTL (the
// ttl annotation is not read, as external-dns does not); labels are external-dns's bookkeeping
// and carry no DNS data; providerSpecific and setIdentifier mean nothing here and are reported.
import type { ObjectRef } from '../../desired-record.ts';
import { RecordBuilder, type SourceResult } from '../record-builder.ts';
import { objectSelected, type SourceOptions } from '../source-options.ts';
import type { SourceRuntime } from '../source-runtime.ts';
import { DNS_ENDPOINT_API_VERSION, type DnsEndpoint } from './dns-endpoint.ts';
import { endpointRecords } from './endpoint-records.ts';

export function dnsEndpointRef(object: DnsEndpoint): ObjectRef | undefined {
  const meta = object.metadata;
  if (!meta?.name) return undefined;
  return {
    kind: 'DNSEndpoint',
    apiVersion: object.apiVersion ?? DNS_ENDPOINT_API_VERSION,
    namespace: meta.namespace ?? 'default',
    name: meta.name,
    ...(meta.uid ? { uid: meta.uid } : {}),
  };
}

export function dnsEndpointRecords(object: DnsEndpoint, options: SourceOptions, out: SourceResult): void {
  const ref = dnsEndpointRef(object);
  if (!ref || !objectSelected(object.metadata, options)) return;
  // No annotations: the ttl and target annotations are not DNSEndpoint settings. A spoke's policy
  // at the hub is, in a label (a label's value wins over an annotation's).
  const meta = object.metadata;
  const b = new RecordBuilder(ref, undefined, options, out, { ...meta?.annotations, ...meta?.labels });
  for (const [index, endpoint] of (object.spec?.endpoints ?? []).entries()) {
    if (!endpoint) continue;
    const where = `endpoints[${index}] (${endpoint.recordType ?? '?'} ${endpoint.dnsName ?? '?'})`;
    const result = endpointRecords(endpoint, options.defaultTargets.records);
    if (!result.ok) {
      b.problem('InvalidEndpoint', `${where}: ${result.error}; this endpoint is not published`, endpoint.dnsName);
      continue;
    }
    const ignored = [
      ...(endpoint.providerSpecific?.length ? ['providerSpecific'] : []),
      ...(endpoint.setIdentifier ? ['setIdentifier'] : []),
    ];
    if (ignored.length > 0)
      b.problem('IgnoredField', `${where}: ${ignored.join(' and ')} ignored (no meaning for etcdns)`, result.name);
    const name = b.acceptName(result.name);
    if (!name) continue;
    for (const record of result.records) b.push({ name, ...record }, result.ttl);
  }
}

export const dnsEndpointSource: SourceRuntime = {
  records: (object, _kind, _context, options, out) => dnsEndpointRecords(object as DnsEndpoint, options, out),
};
