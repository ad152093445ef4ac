// Zone transfers out. AXFR (RFC 5936): the zone's SOA, every RRset the server would answer for a
// name of the zone, the SOA again. IXFR (RFC 1995): the changes since the secondary's serial,
// diffed against the zone as etcd held it at that revision (zone-history.ts), or the whole zone
// when that history is compacted. Split over as many TCP messages as needed, each signed when the
// request was (TSIG). The records are taken from the resolver itself, name by name and type by
// type, so a secondary serves exactly what this server answers.
import { isInZone, labelsOf } from '../../dns/dns-name.ts';
import type { Logger } from '../shared/log.ts';
import { RCODE, TYPE } from './dns-constants.ts';
import type { ResourceRecord } from './dns-message.ts';
import { nameFromWire, type ParsedQuery } from './query-parser.ts';
import { childrenOf, type IndexNode, type RecordIndex } from './record-index.ts';
import { changedOwners } from './changed-owners.ts';
import { resolve, soaRecord, type ResolverData } from './resolver.ts';
import { encodeAnswer, encodeError, patchFor } from './response-encoder.ts';
import type { ServerMetrics, Transport } from './server-metrics.ts';
import { incrementalTransfer, recordKey } from './incremental-transfer.ts';
import { soaSerialOffset, wireSerial } from './soa-serial.ts';
import { decideTransfer, type TransferPolicy } from './transfer-acl.ts';
import type { TransferStatus } from './transfer-status.ts';
import { tsigFailure } from './signed-query.ts';
import { TsigSigner } from './tsig.ts';
import { COMPACTED, type ZoneHistory } from './zone-history.ts';
import type { Zone } from './zones.ts';

/** The types a name is asked for: every type the resolver answers from records (not SOA, ANY). */
const DATA_TYPES = [TYPE.NS, TYPE.A, TYPE.AAAA, TYPE.CNAME, TYPE.PTR, TYPE.MX, TYPE.TXT, TYPE.SRV];
/** A label no record is stored under: asking for it below a "*" node makes the wildcard answer. */
const WILDCARD_PROBE = 'etcdns--wildcard--probe';
/** Room left in each 64 KiB message for the TSIG record. */
const MESSAGE_LIMIT = 65535 - 512;
const FIRST_CHUNK = 256;

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
      // A delegation: its NS set belongs in the zone (RFC 5936 3.2), nothing below it does.
      if (type === TYPE.NS) out.push(...result.authority.filter((r) => r.type === TYPE.NS && r.name === name));
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

/** Each name's records, in index order (depth first), stopping below a delegation. */
function* zoneWalk(data: ResolverData, zone: Zone): Generator<ResourceRecord[]> {
  const apex = zone.name;
  yield recordsOf(data, apex, apex);
  const root = data.index.find(labelsOf(apex));
  if (!root) return;
  const below = (label: string, parent: string) => (parent === '.' ? `${label}.` : `${label}.${parent}`);
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
    const records = ownerRecords(data, zone, top.name);
    yield records;
    const delegation = records.some((r) => r.type === TYPE.NS)
      ? resolve({ name: top.name, type: TYPE.NS, class: 1 }, data, 'zone')
      : undefined;
    // Below a zone cut only the glue of its name servers belongs in the zone (RFC 5936 3.2).
    if (delegation?.referral) yield delegation.additional.filter((r) => isInZone(r.name, top.name));
    else pushChildren(top.node, top.name);
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

/** The answer messages: SOA, records, SOA, packed into as few messages as fit. */
function encodeTransfer(q: ParsedQuery, zone: Zone, msg: Buffer, records: ResourceRecord[]): Buffer[] {
  const messages: Buffer[] = [];
  const query = { ...q, name: zone.name };
  const encode = (chunk: ResourceRecord[]) =>
    patchFor(
      encodeAnswer(
        query,
        { rcode: RCODE.NOERROR, authoritative: true, answer: chunk, authority: [], additional: [] },
        65535,
      ),
      msg,
      q.questionEnd,
    );
  let i = 0;
  let size = FIRST_CHUNK;
  while (i < records.length) {
    const chunk = records.slice(i, i + size);
    const bytes = encode(chunk);
    // Too big (or truncated by the encoder): halve the chunk and try again.
    if ((bytes.length > MESSAGE_LIMIT || bytes[2]! & 0x02) && size > 1) {
      size = Math.max(1, size >> 1);
      continue;
    }
    messages.push(bytes);
    i += chunk.length;
  }
  return messages;
}

export interface ZoneTransferOptions {
  data: () => ResolverData;
  /** Per zone (canonical apex): who may transfer it; a zone not here is REFUSED. */
  policies: ReadonlyMap<string, TransferPolicy>;
  /** Earlier states of a zone, for IXFR; without it IXFR gets the whole zone. */
  history?: ZoneHistory | undefined;
  status: TransferStatus;
  metrics: ServerMetrics;
  logger: Logger;
  /** Seconds since the epoch (tests move it to check BADTIME). */
  now?: () => number;
}

type Messages = Buffer | Buffer[];
export type TransferHandler = (
  msg: Buffer,
  q: ParsedQuery,
  transport: Transport,
  client: string,
) => Messages | Promise<Messages>;

/** RFC 1982 serial arithmetic: whether `a` is the same as or newer than `b`. */
function notOlder(a: number, b: number): boolean {
  return a === b || (a > b && a - b < 2 ** 31) || (a < b && b - a > 2 ** 31);
}

/** How a transfer went, for the metrics and logs. */
type Form = 'axfr' | 'ixfr' | 'ixfr_full' | 'soa';

export function createTransferHandler(options: ZoneTransferOptions): TransferHandler {
  const { metrics, logger, history, status } = options;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  return (msg, q, transport, client) => {
    const data = options.data();
    const name = nameFromWire(q.wireName) ?? '';
    const zone = data.zones.zones.find((z) => z.name === name);
    const refuse = (reason: string, rcode: number = RCODE.REFUSED) => {
      metrics.transfers.inc({ outcome: 'refused' });
      logger.warn('zone transfer refused', { client, zone: name, reason });
      return encodeError(q, rcode, msg);
    };
    const ixfr = q.type === TYPE.IXFR;
    // RFC 5936 4.2: AXFR runs over TCP only; IXFR over UDP gets the current SOA (RFC 1995 2).
    if (transport !== 'tcp' && !ixfr) return refuse('AXFR over UDP');
    if (!zone) return refuse('not a zone of this server (transfers start at the apex)', RCODE.NOTAUTH);
    const policy = options.policies.get(zone.name);
    if (!policy) return refuse('no transfers configured for this zone');
    const decision = decideTransfer(policy, client, msg, now());
    if (decision.kind === 'refuse') return refuse(decision.reason);
    if (decision.kind === 'notauth') {
      metrics.transfers.inc({ outcome: 'notauth' });
      logger.warn('zone transfer refused', { client, zone: zone.name, reason: decision.reason });
      return tsigFailure(q, msg, decision, now);
    }
    const started = performance.now();

    /** `records` as messages, signed when the request was; counted and logged. */
    const send = (form: Form, serial: number, records: ResourceRecord[], detail: object = {}): Messages => {
      let messages = encodeTransfer(q, zone, msg, records);
      if (decision.key && decision.tsig) {
        const signer = new TsigSigner(decision.key, decision.tsig, now);
        messages = messages.map((m) => signer.sign(m));
      }
      const bytes = messages.reduce((n, m) => n + m.length, 0);
      metrics.transfers.inc({ outcome: 'served' });
      metrics.transferKinds.inc({ zone: zone.name, form });
      metrics.transferBytes.inc({ zone: zone.name, form }, bytes);
      status.transferred(zone.name, client, serial, form);
      logger.info('zone transferred', {
        client,
        zone: zone.name,
        form,
        transport,
        serial: wireSerial(serial),
        ...detail,
        records: records.length,
        messages: messages.length,
        bytes,
        ms: Math.round(performance.now() - started),
        ...(decision.key ? { key: decision.key.name } : {}),
      });
      return messages.length === 1 ? messages[0]! : messages;
    };
    const currentSoa = (): Messages => {
      const serial = options.data().index.serial(zone.name);
      return send('soa', serial, [soaRecord(zone, serial)]);
    };
    const whole = async (form: 'axfr' | 'ixfr_full', why?: string): Promise<Messages> => {
      const { data: current, records } = await liveZoneRecords(options.data, zone);
      const serial = current.index.serial(zone.name);
      const soa = soaRecord(zone, serial);
      return send(form, serial, [soa, ...records, soa], why ? { why } : {});
    };
    /** The changes since `from`, whose state etcd gave back as `old`; read from the copy now, in one go. */
    const incremental = (from: number, old: RecordIndex): Messages | Promise<Messages> => {
      const current = options.data();
      const serial = current.index.serial(zone.name);
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
      const diff = incrementalTransfer(
        soaRecord(zone, from),
        soaRecord(zone, serial),
        recordsAt(before),
        after,
        zoneSize,
      );
      if (!diff) return whole('ixfr_full', 'the changes are larger than the zone');
      return send('ixfr', serial, diff.records, { from, deleted: diff.deleted, added: diff.added });
    };

    if (!ixfr) return whole('axfr');
    const at = soaSerialOffset(msg);
    if (at < 0)
      return transport === 'tcp' ? whole('ixfr_full', 'no SOA of the secondary in the request') : currentSoa();
    const theirs = msg.readUInt32BE(at);
    const serial = data.index.serial(zone.name);
    // Up to date; or over UDP, where the current SOA tells the secondary to ask again over TCP.
    if (notOlder(theirs, wireSerial(serial)) || transport !== 'tcp') return currentSoa();
    // A serial is the etcd revision of the zone's state (zone-serials.ts), unless revisions passed 2^32.
    if (!history || serial >= 2 ** 32 || theirs > serial) return whole('ixfr_full', 'serial is not an etcd revision');
    return history.indexAt(zone.name, theirs).then(
      (old) =>
        old === COMPACTED
          ? whole('ixfr_full', `etcd history before revision ${theirs} is compacted`)
          : incremental(theirs, old),
      (e: unknown) => whole('ixfr_full', `etcd history not read: ${(e as Error).message}`),
    );
  };
}
