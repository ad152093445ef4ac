// The records side of zone transfer: a zone's records as the resolver's zone reading answers
// them, name by name and type by type (so a secondary serves exactly what this server answers),
// and the records of the names changed since a serial, then and now (etcd's history gives the
// zone as it was; a hub's merged zone, the versions it transferred: zone-versions.ts). Zone transfer (transfer/) gets these through its ZoneSource and does the rest:
// access, TSIG, message splitting.
import { isInZone, labelsOf } from '../../../dns/dns-name.ts';
import { changedOwners } from '../store/changed-owners.ts';
import { childrenOf, type IndexNode } from '../store/record-index.ts';
import { COMPACTED, type ZoneHistory } from '../store/zone-history.ts';
import { TYPE } from '../wire/dns-constants.ts';
import { recordKey, type ResourceRecord, type ZoneChanges } from '../wire/dns-message.ts';
import { below, resolve, soaRecord, type ResolverData } from './resolver.ts';
import { ZoneVersions } from './zone-versions.ts';
import type { Zone } from './zones.ts';

/** The types a name is asked for: every type the resolver answers from records (not SOA, ANY). */
const DATA_TYPES = [TYPE.NS, TYPE.A, TYPE.AAAA, TYPE.CNAME, TYPE.PTR, TYPE.MX, TYPE.TXT, TYPE.SRV];
/** A label no record is stored under: asking for it below a "*" node makes the wildcard answer. */
const WILDCARD_PROBE = 'etcdns--wildcard--probe';

/**
 * The records of one name as the zone reading of the resolver answers them (owner = the name;
 * CNAME chases left out). That reading gives each entry the one type entry-types.ts decides, so
 * nothing stands beside a CNAME, and each RRset one TTL: a zone secondaries accept as it is.
 */
function recordsOf(data: ResolverData, name: string, owner: string): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (const type of DATA_TYPES) {
    const result = resolve({ name, type, class: 1 }, data, 'zone');
    if (result.referral) {
      // A delegation: its NS set belongs in the zone (RFC 5936 3.2), and below it the glue of its
      // name servers (this name's, when it is one of them), nothing else.
      const owned =
        type === TYPE.NS ? result.authority : type === TYPE.A || type === TYPE.AAAA ? result.additional : [];
      for (const r of owned) if (r.type === type && r.name === name) out.push({ ...r, name: owner });
      continue;
    }
    for (const r of result.answer) if (r.type === type && r.name === name) out.push({ ...r, name: owner });
  }
  return out;
}

/** The records a name of the zone transfers: none when a more specific zone of ours holds it. */
export function ownerRecords(data: ResolverData, zone: Zone, name: string): ResourceRecord[] {
  if (data.zones.match(name) !== zone) return [];
  // Asking a label no record is stored under, below a "*" node, makes the wildcard answer.
  const asked = name.startsWith('*.') ? `${WILDCARD_PROBE}.${name.slice(2)}` : name;
  return recordsOf(data, asked, name);
}

/**
 * Each name's records, in index order (depth first), stopping below a delegation. A hub's names
 * are in its view's copy and in each member cluster's: each copy is walked, each name read once.
 */
function* zoneWalk(data: ResolverData, zone: Zone): Generator<ResourceRecord[]> {
  const apex = zone.name;
  yield recordsOf(data, apex, apex);
  const copies = [data.index, ...(data.hub?.readers ?? [])];
  /** Names read so far, and whether each is a zone cut (a hub only). */
  const read = data.hub ? new Map<string, boolean>() : undefined;
  for (const copy of copies) {
    const root = copy.find(labelsOf(apex));
    if (!root) continue;
    const stack: { node: IndexNode; name: string }[] = [];
    const pushChildren = (node: IndexNode, name: string) => {
      const children = [...childrenOf(node)].filter((c) => c.size > 0);
      for (let k = children.length - 1; k >= 0; k--)
        stack.push({ node: children[k]!, name: below(children[k]!.label, name) });
    };
    pushChildren(root, apex);
    for (let top = stack.pop(); top; top = stack.pop()) {
      // A more specific zone of ours is transferred on its own.
      if (data.zones.match(top.name) !== zone) continue;
      const cut = read?.get(top.name);
      if (cut === undefined) {
        const records = ownerRecords(data, zone, top.name);
        yield records;
        const delegation = records.some((r) => r.type === TYPE.NS)
          ? resolve({ name: top.name, type: TYPE.NS, class: 1 }, data, 'zone')
          : undefined;
        read?.set(top.name, Boolean(delegation?.referral));
        // Below a zone cut only the glue of its name servers belongs in the zone (RFC 5936 3.2).
        if (delegation?.referral) yield delegation.additional.filter((r) => isInZone(r.name, top.name));
        else pushChildren(top.node, top.name);
      } else if (!cut) pushChildren(top.node, top.name);
    }
  }
}

/** Records, each once, in the order first added. */
class RecordSet {
  readonly list: ResourceRecord[] = [];
  private readonly seen = new Set<string>();
  add(records: readonly ResourceRecord[]): void {
    for (const r of records) {
      const key = recordKey(r);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.list.push(r);
    }
  }
}

/** Every record of the zone but its SOA, in index order, each once. */
export function zoneRecords(data: ResolverData, zone: Zone): ResourceRecord[] {
  const set = new RecordSet();
  for (const records of zoneWalk(data, zone)) set.add(records);
  return set.list;
}

/** Names walked between two turns of the event loop: queries keep being answered during a large transfer. */
const NAMES_PER_TURN = 250;
const STABLE_ATTEMPTS = 3;

/**
 * The zone's records as of one serial, walked a slice at a time. The copy changes in place under
 * the awaits; a walk during which the zone's serial moved (or the copy was replaced) is done
 * again, and after a few such walks once without pausing.
 */
async function liveZoneRecords(
  current: () => ResolverData,
  zone: Zone,
): Promise<{ data: ResolverData; records: ResourceRecord[] }> {
  for (let attempt = 0; attempt < STABLE_ATTEMPTS; attempt++) {
    const data = current();
    const serial = data.index.serial(zone.name);
    const set = new RecordSet();
    let walked = 0;
    for (const records of zoneWalk(data, zone)) {
      set.add(records);
      if (++walked % NAMES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const now = current();
    if (now.index === data.index && now.index.serial(zone.name) === serial) return { data, records: set.list };
  }
  const data = current();
  return { data, records: zoneRecords(data, zone) };
}

/**
 * The zones of the copy as zone transfer reads them (transfer/zone-source.ts): from the records
 * the server answers with, and for the changes since a serial from etcd's history or, for a
 * hub's merged zones, from the versions this process transferred.
 */
export class ZoneRecordSource {
  private readonly data: () => ResolverData;
  private readonly history: ZoneHistory | ZoneVersions | undefined;

  constructor(data: () => ResolverData, history?: ZoneHistory | ZoneVersions) {
    this.data = data;
    this.history = history;
  }

  /** The zone whose apex is `name`: transfers start at the apex. */
  apex(name: string): Zone | undefined {
    return this.data().zones.byName(name);
  }

  serial(zone: Zone): number {
    return this.data().index.serial(zone.name);
  }

  soa(zone: Zone, serial: number): ResourceRecord {
    return soaRecord(zone, serial);
  }

  /** Every record of the zone but its SOA, and the serial they are of. */
  async records(zone: Zone): Promise<{ serial: number; records: ResourceRecord[] }> {
    const { data, records } = await liveZoneRecords(this.data, zone);
    const serial = data.index.serial(zone.name);
    if (this.history instanceof ZoneVersions) this.history.record(zone.name, serial, records);
    return { serial, records };
  }

  /** The records of the names changed since `from` (a serial is the etcd revision of the zone's state, zone-serials.ts). */
  async changesSince(zone: Zone, from: number): Promise<ZoneChanges> {
    if (this.history instanceof ZoneVersions) return this.versionsSince(this.history, zone, from);
    const serial = this.serial(zone);
    // Unless revisions passed 2^32, or the secondary's serial is not one of ours.
    if (!this.history || serial >= 2 ** 32 || from > serial)
      return { kind: 'whole', why: 'serial is not an etcd revision' };
    let old;
    try {
      old = await this.history.indexAt(zone.name, from);
    } catch (e) {
      return { kind: 'whole', why: `etcd history not read: ${(e as Error).message}` };
    }
    if (old === COMPACTED) return { kind: 'whole', why: `etcd history before revision ${from} is compacted` };
    // Read from the copy now, in one go.
    const current = this.data();
    const before: ResolverData = { index: old, zones: current.zones, lookup: current.lookup };
    const owners = changedOwners(old, current.index, zone.name);
    const recordsAt = (data: ResolverData) => {
      if (owners === 'all') return zoneRecords(data, zone);
      const set = new RecordSet();
      for (const owner of owners) set.add(ownerRecords(data, zone, owner));
      return set.list;
    };
    const after = recordsAt(current);
    const zoneSize = owners === 'all' ? after.length : (current.index.find(labelsOf(zone.name))?.size ?? 0);
    return { kind: 'changes', serial: current.index.serial(zone.name), before: recordsAt(before), after, zoneSize };
  }

  /** The difference from a version this process transferred to the zone now (recorded by the walk). */
  private async versionsSince(versions: ZoneVersions, zone: Zone, from: number): Promise<ZoneChanges> {
    const { records } = await this.records(zone);
    const since = versions.since(zone.name, from);
    if (!since) return { kind: 'whole', why: `no version at serial ${from} transferred since this process started` };
    return {
      kind: 'changes',
      serial: since.serial,
      before: since.deleted,
      after: since.added,
      zoneSize: records.length,
      ownVersion: true,
    };
  }
}
