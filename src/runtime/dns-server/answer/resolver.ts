// The resolver: a pure function from a question and the in-memory records to a response; where
// NXDOMAIN, NODATA, REFUSED and referrals are decided. Two readings of the same entries:
// - 'zone' (the default mode, and every zone transfer): the answers of the zone etcdns transfers,
//   as RFC 1034 4.3.2 gives them: each entry gives the types entry-types.ts decides, an alias
//   gives its CNAME whatever the type asked, followed by the chase's records or the target's
//   negative result (RFC 6604), and each RRset has each record once and one TTL (RFC 2181 5);
// - 'coredns' (`lookup: subtree`): record by record as CoreDNS's etcd plugin
//   (plugin/backend_lookup.go).
// Both keep the deviations of docs/skydns-layout.md that hold in their mode.
import { canonicalName, isInZone, labelsOf } from '../../../dns/dns-name.ts';
import type { SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { CLASS, RCODE, TYPE, typeName } from '../wire/dns-constants.ts';
import { recordKey, type Answer, type Question, type ResourceRecord } from '../wire/dns-message.ts';
import { findZoneCut, type ZoneCut } from './delegation.ts';
import { givesSrv, nameHostType } from '../../../skydns/entry-types.ts';
import { classifyHost } from '../../../skydns/host-address.ts';
import { splitText } from '../../../skydns/txt-strings.ts';
import { dependsOnOwnName } from './answer-scope.ts';
import { lookupName, subtreeOf, type LookupMode, type LookupPurpose, type NameData } from './name-lookup.ts';
import type { Asker } from './cluster-merge.ts';
import { clusterKeyName, mergedLookup, type HubData } from './merged-lookup.ts';
import type { RecordIndex, StoredEntry } from '../store/record-index.ts';
import { wireSerial } from '../wire/soa-serial.ts';
import type { Zone, ZoneTable } from './zones.ts';

export interface ResolverData {
  index: RecordIndex;
  zones: ZoneTable;
  lookup: LookupMode;
  /** A hub: the member clusters' records, merged into each name's (merged-lookup.ts). */
  hub?: HubData | undefined;
}

/** How entries are read into answers (see the top of this file). */
export type Reading = 'zone' | 'coredns';

/** The reading a server answers with: CoreDNS's with `lookup: subtree`, else the zone's. */
export function readingOf(lookup: LookupMode): Reading {
  return lookup === 'subtree' ? 'coredns' : 'zone';
}

/** CoreDNS follows at most this many CNAME links (maxCnameChainLength). */
const MAX_CNAME_CHAIN = 10;
const MAX_TTL = 0x7fffffff;
const DEFAULT_PRIORITY = 10;

type AddressType = typeof TYPE.A | typeof TYPE.AAAA;
type CnameRecord = Extract<ResourceRecord, { type: typeof TYPE.CNAME }>;

interface Ctx {
  data: ResolverData;
  zone: Zone;
  /** A hub: who asks (the client's site for `prefer`, the answer's draw for `weighted`); none for a zone transfer. */
  asker?: Asker | undefined;
  /** A name of the answer was merged by a draw (weighted): the answer is this query's alone. */
  drawn?: boolean;
}

function ttlOf(entry: SkyDnsEntry, zone: Zone): number {
  return entry.ttl !== undefined && entry.ttl > 0 ? Math.min(entry.ttl, MAX_TTL) : zone.defaultTtl;
}

function priorityOf(entry: SkyDnsEntry): number {
  return entry.priority ? entry.priority & 0xffff : DEFAULT_PRIORITY;
}

/** `targetstrip: n` removes n leftmost labels, unless that would remove all of them. */
export function stripTarget(name: string, strip: number | undefined): string {
  const labels = labelsOf(name);
  if (!strip || strip <= 0 || strip >= labels.length) return name;
  return `${labels.slice(strip).join('.')}.`;
}

/** Entries that take part in a non-TXT answer: CoreDNS ignores those without a host. */
function withHost(entries: StoredEntry[]): StoredEntry[] {
  return entries.filter((s) => s.entry.host);
}

function lookup(ctx: Ctx, name: string, purpose: LookupPurpose): NameData {
  const own = lookupName(ctx.data.index, ctx.zone, name, ctx.data.lookup, purpose);
  const hub = ctx.data.hub;
  if (!hub) return own;
  const merged = mergedLookup(hub, own, {
    zone: ctx.zone,
    name,
    mode: ctx.data.lookup,
    purpose,
    asker: ctx.asker,
    view: ctx.data.index,
  });
  if (merged.drawn) ctx.drawn = true;
  return merged;
}

/** The name a stored key is at: a hub's entries come from the clusters' prefixes too. */
function nameOfKey(ctx: Ctx, key: string): string {
  return (ctx.data.hub ? clusterKeyName(key) : undefined) ?? ctx.data.index.nameOf(key);
}

/** The zone a CNAME target is chased in: one of ours, or undefined (the client follows it). */
function zoneOfTarget(ctx: Ctx, target: string): Zone | undefined {
  return ctx.data.zones.match(target);
}

function isDuplicateCname(record: ResourceRecord, chain: ResourceRecord[]): boolean {
  return chain.some(
    (r) => r.type === TYPE.CNAME && record.type === TYPE.CNAME && r.name === record.name && r.target === record.target,
  );
}

/**
 * The CNAME link for a name host, followed by what `follow` finds at the target: the link is kept
 * only when the chase finds something (a dangling in-zone CNAME yields NODATA, as in CoreDNS),
 * or when the target lies outside our zones (the client follows it).
 */
function chase(
  ctx: Ctx,
  name: string,
  entry: SkyDnsEntry,
  chain: ResourceRecord[],
  follow: (ctx: Ctx, target: string, chain: ResourceRecord[]) => ResourceRecord[],
): ResourceRecord[] {
  const target = canonicalName(entry.host!);
  // "x CNAME x", or a target below the name: a loop in SkyDNS terms.
  if (isInZone(target, name)) return [];
  const link: ResourceRecord = { name, ttl: ttlOf(entry, ctx.zone), type: TYPE.CNAME, target };
  if (chain.length > MAX_CNAME_CHAIN || isDuplicateCname(link, chain)) return [];
  const targetZone = zoneOfTarget(ctx, target);
  if (!targetZone) return [link];
  const next = follow({ ...ctx, zone: targetZone }, target, [...chain, link]);
  // In another of our zones the link stays even when the target has nothing of the type: CoreDNS
  // looks such targets up through itself and answers the CNAME with whatever that finds.
  return next.length > 0 || targetZone !== ctx.zone ? [link, ...next] : [];
}

function addresses(ctx: Ctx, name: string, type: AddressType, chain: ResourceRecord[]): ResourceRecord[] {
  const records: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const { entry } of withHost(lookup(ctx, name, 'address').entries)) {
    const host = classifyHost(entry.host!);
    if (host.kind === 'name') {
      // Deviation 2: a name host with a text is still a CNAME for non-TXT questions.
      records.push(...chase(ctx, name, entry, chain, (c, t, ch) => addresses(c, t, type, ch)));
    } else if ((host.kind === 'A') === (type === TYPE.A) && !seen.has(host.address)) {
      seen.add(host.address);
      records.push({ name, ttl: ttlOf(entry, ctx.zone), type, address: host.address });
    }
  }
  return records;
}

function texts(ctx: Ctx, name: string, chain: ResourceRecord[]): ResourceRecord[] {
  const records: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const { entry } of lookup(ctx, name, 'other').entries) {
    const host = entry.host ? classifyHost(entry.host) : { kind: 'name' as const };
    if (host.kind !== 'name') continue;
    if (entry.text) {
      if (seen.has(entry.text)) continue;
      seen.add(entry.text);
      records.push({ name, ttl: ttlOf(entry, ctx.zone), type: TYPE.TXT, text: splitText(entry.text) });
    } else if (entry.host) {
      records.push(...chase(ctx, name, entry, chain, texts));
    }
  }
  return records;
}

function cname(ctx: Ctx, name: string): ResourceRecord[] {
  // Deviation 1 (own mode): the CNAME may sit in a child entry, as external-dns writes it.
  const first = withHost(lookup(ctx, name, 'exact').entries).find((s) => classifyHost(s.entry.host!).kind === 'name');
  if (!first) return [];
  return [{ name, ttl: ttlOf(first.entry, ctx.zone), type: TYPE.CNAME, target: canonicalName(first.entry.host!) }];
}

/** PTR records of the entries given whose host is a name, each target once. */
function pointers(ctx: Ctx, name: string, entries: StoredEntry[]): ResourceRecord[] {
  const records: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const { entry } of withHost(entries)) {
    if (classifyHost(entry.host!).kind !== 'name') continue;
    const target = canonicalName(entry.host!);
    if (seen.has(target)) continue;
    seen.add(target);
    records.push({ name, ttl: ttlOf(entry, ctx.zone), type: TYPE.PTR, target });
  }
  return records;
}

/** An address record for an IP host, owned by a name synthesized from its key (SRV/MX/NS glue). */
function glue(ctx: Ctx, owner: string, entry: SkyDnsEntry): ResourceRecord | undefined {
  const host = classifyHost(entry.host!);
  if (host.kind === 'name') return undefined;
  const type = host.kind === 'A' ? TYPE.A : TYPE.AAAA;
  return { name: owner, ttl: ttlOf(entry, ctx.zone), type, address: host.address };
}

/**
 * Addresses of an SRV/MX target for the additional section: A only inside the zone (as CoreDNS);
 * A and AAAA in another of our zones (CoreDNS looks those up through itself).
 */
function targetAddresses(ctx: Ctx, target: string): ResourceRecord[] {
  const zone = zoneOfTarget(ctx, target);
  if (!zone) return [];
  const at = { ...ctx, zone };
  const a = addresses(at, target, TYPE.A, []);
  return zone === ctx.zone ? a : [...a, ...addresses(at, target, TYPE.AAAA, []).filter((r) => r.type !== TYPE.CNAME)];
}

/** MX records (and their targets' addresses) of the entries given, each with a host and `mail`. */
function mailExchangers(ctx: Ctx, name: string, entries: StoredEntry[]) {
  const answer: ResourceRecord[] = [];
  const additional: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const { key, entry } of entries) {
    const preference = priorityOf(entry);
    const isName = classifyHost(entry.host!).kind === 'name';
    const exchange = stripTarget(isName ? canonicalName(entry.host!) : nameOfKey(ctx, key), entry.targetstrip);
    // CoreDNS de-duplicates MX records only for synthesized (IP host) exchanges.
    if (isName || !seen.has(`${exchange} ${preference}`)) {
      answer.push({ name, ttl: ttlOf(entry, ctx.zone), type: TYPE.MX, preference, exchange });
    }
    if (isName) {
      if (!seen.has(exchange)) additional.push(...targetAddresses(ctx, exchange));
    } else if (!seen.has(`${exchange} ${entry.host}`)) {
      additional.push(glue(ctx, exchange, entry)!);
      seen.add(`${exchange} ${entry.host}`);
    }
    seen.add(`${exchange} ${preference}`);
    seen.add(exchange);
  }
  return { answer, additional };
}

/**
 * SRV records (and their targets' addresses) of the entries that `gives`, of the name's entries
 * with a host. Weights are shared out per priority over all of those, as CoreDNS sums them:
 * floor(100 / sum * weight), at least 1; absent counts 100.
 */
function services(ctx: Ctx, name: string, entries: StoredEntry[], gives: (s: StoredEntry) => boolean) {
  const sums = new Map<number, number>();
  for (const { entry } of entries) {
    const p = priorityOf(entry);
    sums.set(p, (sums.get(p) ?? 0) + (entry.weight || 100));
  }
  const answer: ResourceRecord[] = [];
  const additional: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const stored of entries) {
    if (!gives(stored)) continue;
    const { key, entry } = stored;
    const priority = priorityOf(entry);
    const share = (100 / sums.get(priority)!) * (entry.weight ? entry.weight : 100);
    const weight = Math.max(1, Math.floor(share)) & 0xffff;
    const port = (entry.port ?? 0) & 0xffff;
    const isName = classifyHost(entry.host!).kind === 'name';
    const target = stripTarget(isName ? canonicalName(entry.host!) : nameOfKey(ctx, key), entry.targetstrip);
    const record: ResourceRecord = {
      name,
      ttl: ttlOf(entry, ctx.zone),
      type: TYPE.SRV,
      priority,
      weight,
      port,
      target,
    };
    if (isName) {
      answer.push(record);
      if (!seen.has(target)) additional.push(...targetAddresses(ctx, target));
      seen.add(target);
      continue;
    }
    if (!seen.has(`${target} ${port}`)) answer.push(record);
    if (!seen.has(`${target} @${entry.host}`)) additional.push(glue(ctx, target, entry)!);
    seen.add(`${target} ${port}`);
    seen.add(`${target} @${entry.host}`);
  }
  return { answer, additional };
}

/**
 * NS records and glue from entries under dns/ns: an IP host is its own glue (target named after
 * the key); a name host's glue is what `glueOf` finds for it (referrals only).
 */
function nameServers(ctx: Ctx, owner: string, entries: StoredEntry[], glueOf?: (target: string) => ResourceRecord[]) {
  const answer: ResourceRecord[] = [];
  const additional: ResourceRecord[] = [];
  const targets = new Set<string>();
  const glued = new Set<string>();
  for (const { key, entry } of withHost(entries)) {
    const isName = classifyHost(entry.host!).kind === 'name';
    const target = isName ? canonicalName(entry.host!) : stripTarget(nameOfKey(ctx, key), entry.targetstrip);
    if (!targets.has(target)) {
      targets.add(target);
      answer.push({ name: owner, ttl: ttlOf(entry, ctx.zone), type: TYPE.NS, target });
    }
    const glueKey = isName ? target : `${target} ${entry.host}`;
    if (glued.has(glueKey)) continue;
    glued.add(glueKey);
    if (!isName) additional.push(glue(ctx, target, entry)!);
    else if (glueOf) additional.push(...glueOf(target));
  }
  return { answer, additional };
}

/** The A or AAAA records of a name's address entries, each address once (aliases are not followed). */
function addressRecords(ctx: Ctx, name: string, type: AddressType, entries: StoredEntry[]): ResourceRecord[] {
  const records: ResourceRecord[] = [];
  const seen = new Set<string>();
  for (const { entry } of withHost(entries)) {
    const host = classifyHost(entry.host!);
    if (host.kind === 'name' || (host.kind === 'A') !== (type === TYPE.A) || seen.has(host.address)) continue;
    seen.add(host.address);
    records.push({ name, ttl: ttlOf(entry, ctx.zone), type, address: host.address });
  }
  return records;
}

/**
 * RFC 9471: the addresses of a name server at or below the cut (in-domain) are glue, required in
 * the referral, since a resolver cannot learn them otherwise. They are the address entries the
 * zone holds at the server's name (below the cut, where nothing else is answered); a wildcard
 * gives no glue. Name servers elsewhere are resolved on their own.
 */
function inDomainGlue(ctx: Ctx, cut: ZoneCut, target: string): ResourceRecord[] {
  if (!isInZone(target, cut.name)) return [];
  const found = lookup(ctx, target, 'address');
  if (found.wildcard) return [];
  return [
    ...addressRecords(ctx, target, TYPE.A, found.entries),
    ...addressRecords(ctx, target, TYPE.AAAA, found.entries),
  ];
}

/** The zone's configured NS set, with glue for the addresses given (the config is trusted as is). */
function configuredNameServers(zone: Zone) {
  const answer: ResourceRecord[] = [];
  const additional: ResourceRecord[] = [];
  for (const ns of zone.nameServers) {
    answer.push({ name: zone.name, ttl: zone.defaultTtl, type: TYPE.NS, target: ns.name });
    for (const address of ns.addresses) {
      const host = classifyHost(address);
      if (host.kind === 'name') continue;
      const type = host.kind === 'A' ? TYPE.A : TYPE.AAAA;
      additional.push({ name: ns.name, ttl: zone.defaultTtl, type, address: host.address });
    }
  }
  return { answer, additional };
}

/** "<label>.<zone>" for any zone, the root included. */
export function below(label: string, zone: string): string {
  return zone === '.' ? `${label}.` : `${label}.${zone}`;
}

export function soaRecord(zone: Zone, serial: number): ResourceRecord {
  return {
    name: zone.name,
    // CoreDNS: the SOA's own TTL is its minimum, capped at 300.
    ttl: Math.min(zone.minimum, 300),
    type: TYPE.SOA,
    mname: zone.mname,
    rname: zone.rname,
    serial: wireSerial(serial),
    refresh: zone.refresh,
    retry: zone.retry,
    expire: zone.expire,
    minimum: zone.minimum,
  };
}

function referral(ctx: Ctx, cut: ZoneCut): Answer {
  const ns = nameServers(ctx, cut.name, cut.nameServers, (target) => inDomainGlue(ctx, cut, target));
  return {
    rcode: RCODE.NOERROR,
    authoritative: false,
    answer: [],
    authority: ns.answer,
    additional: ns.additional,
    referral: true,
  };
}

/**
 * A question at or below a zone cut: a referral, but for DS at the cut itself, which is the
 * parent's data (RFC 4035 3.1.4.1): the parent's answer, NODATA with its SOA, authoritative.
 */
function atCut(ctx: Ctx, cut: ZoneCut, name: string, type: number): Answer {
  return type === TYPE.DS && name === cut.name ? negative(ctx, true) : referral(ctx, cut);
}

/**
 * RFC 8482 section 4.2: an ANY question gets one synthesized HINFO ("RFC8482", empty OS) instead
 * of every RRset, so ANY cannot be used to amplify; an alias answers its CNAME instead (below).
 */
function rfc8482Hinfo(zone: Zone, name: string): ResourceRecord {
  return { name, ttl: zone.defaultTtl, type: TYPE.HINFO, cpu: 'RFC8482', os: '' };
}

function refused(outOfZone: boolean): Answer {
  return { rcode: RCODE.REFUSED, authoritative: false, answer: [], authority: [], additional: [], outOfZone };
}

/** The zone's SOA as the authority of a negative answer: NXDOMAIN unless the name exists. */
function negative(ctx: Ctx, exists: boolean, answer: ResourceRecord[] = []): Answer {
  return {
    rcode: exists ? RCODE.NOERROR : RCODE.NXDOMAIN,
    authoritative: true,
    answer,
    authority: [soaRecord(ctx.zone, ctx.data.index.serial(ctx.zone.name))],
    additional: [],
  };
}

function positive(answer: ResourceRecord[], additional: ResourceRecord[] = []): Answer {
  return { rcode: RCODE.NOERROR, authoritative: true, answer, authority: [], additional };
}

/** CoreDNS's reading (`lookup: subtree`): record by record as its etcd plugin answers. */
function coreDnsAnswer(ctx: Ctx, name: string, type: number): Answer {
  const { data, zone } = ctx;
  let answer: ResourceRecord[] = [];
  let additional: ResourceRecord[] = [];
  switch (type) {
    case TYPE.A:
    case TYPE.AAAA:
      answer = addresses(ctx, name, type, []);
      break;
    case TYPE.TXT:
      answer = texts(ctx, name, []);
      break;
    case TYPE.CNAME:
      answer = cname(ctx, name);
      break;
    case TYPE.PTR:
      answer = pointers(ctx, name, lookup(ctx, name, 'exact').entries);
      break;
    case TYPE.MX:
      ({ answer, additional } = mailExchangers(
        ctx,
        name,
        withHost(lookup(ctx, name, 'other').entries).filter((s) => s.entry.mail),
      ));
      break;
    case TYPE.SRV:
      ({ answer, additional } = services(
        ctx,
        name,
        withHost(lookup(ctx, name, 'other').entries),
        (s) => s.entry.port !== -1,
      ));
      break;
    case TYPE.SOA:
      // As CoreDNS: the zone's SOA for any name in the zone (a resolver looking for the zone of a
      // name learns it from the answer's owner).
      answer = [soaRecord(zone, data.index.serial(zone.name))];
      break;
    case TYPE.ANY:
      // RFC 8482: an alias's one RRset is its CNAME (it has no other data); others get the HINFO.
      answer = cname(ctx, name);
      break;
    case TYPE.NS:
      if (name === zone.name) ({ answer, additional } = apexNameServers(ctx));
      break;
  }
  if (answer.length > 0) return positive(answer, additional);
  const exists = lookup(ctx, name, 'other').exists;
  if (exists && type === TYPE.ANY) return positive([rfc8482Hinfo(zone, name)]);
  return negative(ctx, exists);
}

function apexNameServers(ctx: Ctx) {
  const { data, zone } = ctx;
  return zone.nameServers.length > 0
    ? configuredNameServers(zone)
    : nameServers(ctx, zone.name, subtreeOf(data.index, below('ns.dns', zone.name)));
}

/**
 * The entries with a host that give `type` at `owner` (entry-types.ts): for a name synthesized
 * from a wildcard, the wildcard's owner, whose records the zone holds.
 */
function giving(ctx: Ctx, owner: string, entries: StoredEntry[], type: number): StoredEntry[] {
  const wanted = typeName(type);
  return withHost(entries).filter(({ entry }) => {
    const host = classifyHost(entry.host!);
    if (host.kind === 'name') return nameHostType(owner, entry, ctx.zone.name) === wanted;
    if (type === TYPE.MX) return entry.mail === true;
    return type === TYPE.SRV && givesSrv(owner, entry);
  });
}

/** The name's alias, if one of its entries gives a CNAME at `owner` (the first in key order). */
function aliasOf(ctx: Ctx, name: string, owner: string, entries: StoredEntry[]): CnameRecord | undefined {
  const first = giving(ctx, owner, entries, TYPE.CNAME)[0];
  if (!first) return undefined;
  return { name, ttl: ttlOf(first.entry, ctx.zone), type: TYPE.CNAME, target: canonicalName(first.entry.host!) };
}

/**
 * The zone's reading at a name that is not an alias (or asked for its CNAME): its own records of
 * `type`, the entry types decided at `owner` (the wildcard's owner for a synthesized name).
 */
function recordsAt(ctx: Ctx, name: string, owner: string, type: number, entries: StoredEntry[]) {
  const none = { answer: [] as ResourceRecord[], additional: [] as ResourceRecord[] };
  switch (type) {
    case TYPE.A:
    case TYPE.AAAA:
      return { answer: addressRecords(ctx, name, type, lookup(ctx, name, 'address').entries), additional: [] };
    case TYPE.TXT: {
      const answer: ResourceRecord[] = [];
      const seen = new Set<string>();
      for (const { entry } of entries) {
        if (entry.host || !entry.text || seen.has(entry.text)) continue;
        seen.add(entry.text);
        answer.push({ name, ttl: ttlOf(entry, ctx.zone), type: TYPE.TXT, text: splitText(entry.text) });
      }
      return { answer, additional: [] };
    }
    case TYPE.PTR:
      return { answer: pointers(ctx, name, giving(ctx, owner, entries, TYPE.PTR)), additional: [] };
    case TYPE.MX:
      return mailExchangers(ctx, name, giving(ctx, owner, entries, TYPE.MX));
    case TYPE.SRV: {
      const srv = new Set(giving(ctx, owner, entries, TYPE.SRV));
      return services(ctx, name, withHost(entries), (s) => srv.has(s));
    }
    case TYPE.SOA:
      // Only the apex holds the SOA; elsewhere it is NODATA, as in any zone.
      return name === ctx.zone.name
        ? { answer: [soaRecord(ctx.zone, ctx.data.index.serial(name))], additional: [] }
        : none;
    case TYPE.NS:
      return name === ctx.zone.name ? apexNameServers(ctx) : none;
    default:
      return none;
  }
}

/**
 * RFC 2181 5: an RRset is a set, each record once (two entries may give the same record, e.g. the
 * same SRV target and port), and 5.2: its records share one TTL, the lowest, as a cache would
 * converge to. A zone holds it so, and so do its secondaries.
 */
function asRrsets(records: ResourceRecord[]): ResourceRecord[] {
  if (records.length < 2) return records;
  const lowest = new Map<string, number>();
  for (const r of records) {
    const key = `${r.name} ${r.type}`;
    lowest.set(key, Math.min(lowest.get(key) ?? r.ttl, r.ttl));
  }
  const seen = new Set<string>();
  const out: ResourceRecord[] = [];
  for (const r of records) {
    const ttl = lowest.get(`${r.name} ${r.type}`)!;
    const record = ttl === r.ttl ? r : { ...r, ttl };
    const key = recordKey(record);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(record);
  }
  return out;
}

function withRrsets(a: Answer): Answer {
  return {
    ...a,
    answer: asRrsets(a.answer),
    authority: asRrsets(a.authority),
    additional: asRrsets(a.additional),
  };
}

/**
 * BIND's limit: the question's lookup and 11 restarts. A chain that has not ended by then, or that
 * comes back to a name it passed (a loop, which never ends), is SERVFAIL with the links found, as
 * BIND answers it (RFC 1034 3.6.2: loops are signalled as an error).
 */
const MAX_LOOKUPS = 12;

/** The zone's reading: RFC 1034 4.3.2 over the records entry-types.ts gives each name. */
function zoneAnswer(ctx: Ctx, question: string, type: number, seen: { atQuestion?: NameData }): Answer {
  const chain: ResourceRecord[] = [];
  let name = question;
  for (let lookups = 0; lookups < MAX_LOOKUPS; lookups++) {
    const cut = findZoneCut(ctx.data.index, ctx.zone, name);
    if (cut) {
      const there = atCut(ctx, cut, name, type);
      // Reached through an alias: the CNAMEs are our authoritative data, the referral (or DS NODATA) follows.
      return chain.length === 0 ? there : { ...there, authoritative: true, answer: [...chain, ...there.answer] };
    }
    const found = lookup(ctx, name, 'other');
    seen.atQuestion ??= found;
    const { exists, entries, wildcard } = found;
    const owner = wildcard ?? name;
    const alias = aliasOf(ctx, name, owner, entries);
    if (alias && type !== TYPE.CNAME) {
      // RFC 8482: an alias's one RRset, unchased.
      if (type === TYPE.ANY) return positive([alias]);
      if (chain.some((r) => r.name === name)) break;
      chain.push(alias);
      // A target in another zone is for the client to follow, as BIND and Knot leave it (RFC 1034 4.3.2 3a).
      if (ctx.data.zones.match(alias.target) !== ctx.zone) return positive(chain);
      name = alias.target;
      continue;
    }
    if (type === TYPE.CNAME) return alias ? positive([alias]) : negative(ctx, exists, chain);
    const { answer, additional } = recordsAt(ctx, name, owner, type, entries);
    if (answer.length > 0) return positive([...chain, ...answer], additional);
    if (exists && type === TYPE.ANY) return positive([rfc8482Hinfo(ctx.zone, name)]);
    // RFC 6604: the rcode is the last name's, after the CNAMEs that led to it.
    return negative(ctx, exists, chain);
  }
  return { rcode: RCODE.SERVFAIL, authoritative: true, answer: chain, authority: [], additional: [] };
}

/**
 * The zone a question is answered from: the most specific one holding the name, but DS at a
 * zone's apex is the parent's data (RFC 4035 3.1.4.1), answered from the parent zone when that is
 * ours too, as BIND and Knot do.
 */
function answeringZone(zones: ZoneTable, name: string, type: number): Zone | undefined {
  const zone = zones.match(name);
  if (type !== TYPE.DS || zone?.name !== name || name === '.') return zone;
  return zones.match(name.slice(name.indexOf('.') + 1) || '.') ?? zone;
}

/**
 * Answers one question from the records; never throws for any question. `reading` is the
 * server's (from its lookup mode) unless given: zone transfers always read as the zone. `asker`:
 * on a hub, who asks (zone transfers have none).
 */
export function resolve(
  question: Question,
  data: ResolverData,
  reading: Reading = readingOf(data.lookup),
  asker?: Asker,
): Answer {
  const zone = answeringZone(data.zones, question.name, question.type);
  if (!zone) return refused(true);
  if (question.class !== CLASS.IN && question.class !== CLASS.ANY) return { ...refused(false), zone: zone.name };
  if (question.type === TYPE.AXFR || question.type === TYPE.IXFR) return { ...refused(false), zone: zone.name };
  const ctx: Ctx = { data, zone, asker };
  if (reading === 'coredns') {
    const cut = findZoneCut(data.index, zone, question.name);
    return {
      ...(cut ? atCut(ctx, cut, question.name, question.type) : coreDnsAnswer(ctx, question.name, question.type)),
      zone: zone.name,
    };
  }
  const seen: { atQuestion?: NameData } = {};
  const answer = withRrsets(zoneAnswer(ctx, question.name, question.type, seen));
  answer.zone = zone.name;
  // A weighted name's answer is drawn afresh for each query.
  if (ctx.drawn) answer.perQuery = true;
  // Only the default mode reads a name from its own entries (answer-scope.ts); a hub's answers
  // also depend on the clusters that count, so they are dropped on every change.
  const found = seen.atQuestion;
  answer.ownName =
    data.lookup === 'own' &&
    !data.hub &&
    found !== undefined &&
    dependsOnOwnName(question.name, question.type, answer, {
      node: () => data.index.find(labelsOf(question.name)) !== undefined,
      entries: found.entries,
    });
  return answer;
}
