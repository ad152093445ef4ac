// One endpoint of a DNSEndpoint -> the records it asks for, or why it cannot be published. Each
// type is read as external-dns's CRD source and providers read it, and laid out so the SkyDNS
// layout answers it as a zone file would (where external-dns's CoreDNS provider does not: SRV
// and MX as raw text in "host", one string kept of a TXT with several, a capitalised name kept in
// the key). Types the SkyDNS layout cannot express (NAPTR, DNAME, CAA, ...) are refused. Pure.
import { isIPv4, isIPv6 } from 'node:net';
import { canonicalName, dnsNameProblem } from '../../../../dns/dns-name.ts';
import { RECORD_TYPES, type RecordType } from '../../../../dns/record-types.ts';
import type { DesiredRecord } from '../../desired-record.ts';
import { TTL_MAX } from '../annotations.ts';
import type { Endpoint } from './dns-endpoint.ts';

export type EndpointRecord = Omit<DesiredRecord, 'object' | 'ttl' | 'name'>;

export type EndpointResult =
  { ok: true; name: string; records: EndpointRecord[]; ttl: number | undefined } | { ok: false; error: string };

/** A TXT value larger than this cannot fit one DNS message beside its name (RFC 1035: 65,535 bytes). */
const MAX_TEXT_BYTES = 65_000;

const u16 = (s: string) => (/^\d{1,5}$/.test(s) && Number(s) <= 65535 ? Number(s) : undefined);

/** A target that must be a host name; "." (RFC 2782, RFC 7505: no service) where `root` allows it. */
function hostTarget(value: string, root = false): string | { error: string } {
  const text = value.trim();
  if (root && text === '.') return '.';
  const problem =
    dnsNameProblem(text) ??
    (text.startsWith('*') ? 'is a wildcard' : undefined) ??
    (isIPv4(text) || isIPv6(text) || /\.\d+\.?$|^\d+\.?$/.test(text) ? 'is an address, not a host name' : undefined);
  return problem ? { error: `target "${value}" ${problem}` } : canonicalName(text);
}

function typed(type: RecordType, targets: string[]): EndpointRecord[] | { error: string } {
  const records: EndpointRecord[] = [];
  for (const value of targets) {
    switch (type) {
      case 'A':
      case 'AAAA': {
        const text = value.trim();
        const ok = type === 'A' ? isIPv4(text) : isIPv6(text) && !/^::ffff:\d+\./i.test(text);
        if (!ok) return { error: `target "${value}" is not an ${type === 'A' ? 'IPv4' : 'IPv6'} address` };
        records.push({ type, target: type === 'AAAA' ? text.toLowerCase() : text });
        break;
      }
      case 'CNAME':
      case 'NS':
      case 'PTR': {
        const target = hostTarget(value);
        if (typeof target !== 'string') return target;
        records.push({ type, target });
        break;
      }
      case 'MX': {
        const [preference, exchange, ...rest] = value.trim().split(/\s+/);
        const pref = u16(preference ?? '');
        if (pref === undefined || exchange === undefined || rest.length > 0)
          return { error: `target "${value}" is not "<preference 0-65535> <exchange>"` };
        const target = hostTarget(exchange, true);
        if (typeof target !== 'string') return target;
        records.push({ type, target, priority: pref });
        break;
      }
      case 'SRV': {
        const [priority, weight, port, host, ...rest] = value.trim().split(/\s+/);
        const [p, w, n] = [u16(priority ?? ''), u16(weight ?? ''), u16(port ?? '')];
        if (p === undefined || w === undefined || n === undefined || host === undefined || rest.length > 0)
          return { error: `target "${value}" is not "<priority> <weight> <port> <target>" (numbers 0-65535)` };
        const target = hostTarget(host, true);
        if (typeof target !== 'string') return target;
        records.push({ type, target, priority: p, weight: w, port: n });
        break;
      }
      case 'TXT':
        if (Buffer.byteLength(value) > MAX_TEXT_BYTES)
          return { error: `a TXT target is longer than ${MAX_TEXT_BYTES} bytes` };
        records.push({ type, target: value });
        break;
    }
  }
  return records;
}

/** An endpoint's records; one without targets takes `defaults` (--default-targets) when there are any. */
export function endpointRecords(endpoint: Endpoint, defaults: EndpointRecord[] = []): EndpointResult {
  const dnsName = endpoint.dnsName;
  if (typeof dnsName !== 'string' || dnsName.trim() === '') return { ok: false, error: 'dnsName is missing' };
  const nameProblem = dnsNameProblem(dnsName.trim());
  if (nameProblem) return { ok: false, error: `dnsName "${dnsName}" ${nameProblem}` };
  const rawType = endpoint.recordType;
  if (typeof rawType !== 'string' || rawType === '') return { ok: false, error: 'recordType is missing' };
  const type = rawType.toUpperCase() as RecordType;
  if (!RECORD_TYPES.includes(type))
    return {
      ok: false,
      error: `recordType ${rawType} cannot be expressed in the SkyDNS layout (supported: ${RECORD_TYPES.join(', ')})`,
    };
  const ttl = endpoint.recordTTL;
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0 && ttl <= TTL_MAX))
    return { ok: false, error: `recordTTL ${ttl} is not a whole number of seconds from 0 to ${TTL_MAX}` };
  const targets = endpoint.targets ?? [];
  if (targets.length === 0) {
    if (defaults.length === 0) return { ok: false, error: 'targets is empty' };
    return { ok: true, name: canonicalName(dnsName.trim()), records: defaults, ttl: ttl ? ttl : undefined };
  }
  if (type === 'CNAME' && new Set(targets.map((t) => canonicalName(t.trim()))).size > 1)
    return { ok: false, error: `a CNAME has one target, not ${targets.length}` };
  const records = typed(type, targets);
  if (!Array.isArray(records)) return { ok: false, error: records.error };
  return { ok: true, name: canonicalName(dnsName.trim()), records, ttl: ttl ? ttl : undefined };
}
