// The benchmark's data: N names with addresses, written the way external-dns writes them (one
// child entry per target) for etcd, and the same names as a zone file for Knot, plus the
// dnsperf query list (~90% existing names, ~10% names that do not exist).
import { createHash } from 'node:crypto';
import { canonicalName } from '../../src/dns/dns-name.ts';
import { nameToKey } from '../../src/skydns/skydns-key.ts';
import { encodeEntry } from '../../src/skydns/skydns-entry.ts';

export interface BenchName {
  /** Canonical, e.g. "svc-00042.bench.example.org.". */
  name: string;
  addresses: string[];
}

export interface RecordSet {
  zone: string;
  names: BenchName[];
  /** Names inside the zone that have no data and nothing below them (NXDOMAIN). */
  missing: string[];
}

/**
 * Every tenth name has a second address, as a Service with two load-balancer IPs would; with
 * `addresses`, every name has that many instead (answers whose order there is to change).
 */
export function generateRecordSet(count: number, zone = 'bench.example.org', addresses?: number): RecordSet {
  const apex = canonicalName(zone);
  const names: BenchName[] = [];
  const missing: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = String(i).padStart(5, '0');
    const perName = addresses ?? (i % 10 === 0 ? 2 : 1);
    names.push({
      name: `svc-${id}.${apex}`,
      addresses: Array.from({ length: perName }, (_, k) => ipv4(i + k * count)),
    });
    missing.push(`gone-${id}.${apex}`);
  }
  return { zone: apex, names, missing };
}

/** 10.0.0.0/8 has room for 16M distinct addresses. */
function ipv4(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** The 8-hex child label external-dns would pick; here stable, so runs are repeatable. */
function childLabel(name: string, address: string): string {
  return createHash('sha256').update(`${name} ${address}`).digest('hex').slice(0, 8);
}

/** etcd key/value pairs in the SkyDNS layout external-dns writes. */
export function etcdEntries(set: RecordSet, prefix: string): Array<[string, string]> {
  return set.names.flatMap(({ name, addresses }) =>
    addresses.map((host): [string, string] => [
      `${nameToKey(name, prefix)}/${childLabel(name, host)}`,
      encodeEntry({ host, targetstrip: 1 }),
    ]),
  );
}

/** SOA values are CoreDNS's defaults, so the three servers answer alike. */
export function zoneFile(set: RecordSet, ttl = 300): string {
  const lines = [
    `$ORIGIN ${set.zone}`,
    `$TTL ${ttl}`,
    `@ 30 IN SOA ns.dns.${set.zone} hostmaster.${set.zone} 1 7200 1800 86400 30`,
    `@ IN NS ns.dns.${set.zone}`,
    `ns.dns IN A 127.0.0.1`,
  ];
  for (const { name, addresses } of set.names) {
    for (const a of addresses) lines.push(`${name} IN A ${a}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * dnsperf input, one "name type" per line: `total` lines, every tenth a missing name, the rest
 * existing names, in a shuffled but fixed order (same file every run).
 */
export function queryLines(set: RecordSet, total: number): string[] {
  const lines: string[] = [];
  let existing = 0;
  let missing = 0;
  for (let i = 0; i < total; i++) {
    const name =
      i % 10 === 9 ? set.missing[missing++ % set.missing.length] : set.names[existing++ % set.names.length]!.name;
    lines.push(`${name} A`);
  }
  return shuffle(lines, 42);
}

/** Fisher-Yates with a small deterministic generator (mulberry32). */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
