// Zone transfers out. AXFR (RFC 5936): the zone's SOA, every RRset the server would answer for a
// name of the zone, the SOA again. IXFR (RFC 1995): the changes since the secondary's serial,
// diffed against the zone as etcd held it at that revision (zone-history.ts), or the whole zone
// when that history is compacted. Split over as many TCP messages as needed, each signed when the
// request was (TSIG). The records are taken from the resolver itself, name by name and type by
// type, so a secondary serves exactly what this server answers.
import { labelsOf } from '../../dns/dns-name.ts';
import type { Logger } from '../shared/log.ts';
import { RCODE, TYPE } from './dns-constants.ts';
import type { ResourceRecord } from './dns-message.ts';
import { nameFromWire, type ParsedQuery } from './query-parser.ts';
import { childrenOf, type IndexNode } from './record-index.ts';
import { resolve, soaRecord, type ResolverData } from './resolver.ts';
import { encodeAnswer, encodeError, patchFor } from './response-encoder.ts';
import type { ServerMetrics, Transport } from './server-metrics.ts';
import { incrementalTransfer } from './incremental-transfer.ts';
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

function recordKey(r: ResourceRecord): string {
  return JSON.stringify(r);
}

/** The records of one name as the resolver answers them (owner = the name; CNAME chases left out). */
function recordsOf(data: ResolverData, name: string, owner: string): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (const type of DATA_TYPES) {
    const result = resolve({ name, type, class: 1 }, data);
    if (result.referral) {
      // A delegation: its NS set belongs in the zone (RFC 5936 3.2), nothing below it does.
      if (type === TYPE.NS) out.push(...result.authority.filter((r) => r.type === TYPE.NS && r.name === name));
      continue;
    }
    for (const r of result.answer) if (r.type === type && r.name === name) out.push({ ...r, name: owner });
  }
  // RFC 1034 3.6.2: a CNAME stands alone. SkyDNS answers a name host as CNAME, and also as PTR,
  // SRV and MX; a zone cannot hold the CNAME beside them (secondaries reject it), so the transfer
  // keeps what the name is for: PTR in a reverse zone, SRV at a service name (labels with "_",
  // RFC 8552), else the CNAME.
  const cname = out.filter((r) => r.type === TYPE.CNAME);
  if (cname.length === 0) return out;
  const meant = intendedType(owner);
  const kept = meant === undefined ? [] : out.filter((r) => r.type === meant);
  return kept.length > 0 ? kept : cname;
}

function intendedType(owner: string): number | undefined {
  if (/(^|\.)(in-addr|ip6)\.arpa\.$/i.test(owner)) return TYPE.PTR;
  if (labelsOf(owner).some((label) => label.startsWith('_'))) return TYPE.SRV;
  return undefined;
}

/** Every record of the zone but its SOA, in index order, each once. */
export function zoneRecords(data: ResolverData, zone: Zone): ResourceRecord[] {
  const seen = new Set<string>();
  const out: ResourceRecord[] = [];
  const add = (records: ResourceRecord[]) => {
    for (const r of records) {
      const key = recordKey(r);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(r);
      }
    }
  };
  const apex = zone.name;
  add(recordsOf(data, apex, apex));
  const below = (label: string, parent: string) => (parent === '.' ? `${label}.` : `${label}.${parent}`);
  const walk = (node: IndexNode, name: string) => {
    for (const child of childrenOf(node)) {
      if (child.size === 0) continue;
      const childName = below(child.label, name);
      // A more specific zone of ours is transferred on its own.
      if (data.zones.match(childName) !== zone) continue;
      const asked = child.label === '*' ? below(WILDCARD_PROBE, name) : childName;
      const records = recordsOf(data, asked, childName);
      add(records);
      if (
        records.some((r) => r.type === TYPE.NS) &&
        childName !== apex &&
        resolve({ name: childName, type: TYPE.NS, class: 1 }, data).referral
      )
        continue;
      walk(child, childName);
    }
  };
  const root = data.index.find(labelsOf(apex));
  if (root) walk(root, apex);
  return out;
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

/** What an IXFR is answered with, and its form for the metrics and logs. */
type Plan = { form: 'axfr' | 'ixfr_full'; why?: string } | { form: 'soa' } | { form: 'ixfr'; from: number };

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

    /** The answer to send for `plan`, records read now (the copy changes under an await). */
    const answer = (plan: Plan, before?: ResolverData): Messages => {
      const current = options.data();
      const serial = current.index.serial(zone.name);
      const soa = soaRecord(zone, serial);
      let records: ResourceRecord[];
      let form = plan.form;
      let changes: { deleted: number; added: number } | undefined;
      if (plan.form === 'soa') records = [soa];
      else {
        const after = zoneRecords(current, zone);
        const diff =
          plan.form === 'ixfr' && before
            ? incrementalTransfer(soaRecord(zone, plan.from), soa, zoneRecords(before, zone), after)
            : undefined;
        if (diff) changes = diff;
        else if (form === 'ixfr') form = 'ixfr_full';
        records = diff ? diff.records : [soa, ...after, soa];
      }
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
        ...(plan.form === 'ixfr' ? { from: plan.from } : {}),
        ...(changes ?? {}),
        ...('why' in plan && plan.why ? { why: plan.why } : {}),
        records: records.length,
        messages: messages.length,
        bytes,
        ms: Math.round(performance.now() - started),
        ...(decision.key ? { key: decision.key.name } : {}),
      });
      return messages.length === 1 ? messages[0]! : messages;
    };

    if (!ixfr) return answer({ form: 'axfr' });
    const at = soaSerialOffset(msg);
    if (at < 0)
      return transport === 'tcp'
        ? answer({ form: 'ixfr_full', why: 'no SOA of the secondary in the request' })
        : answer({ form: 'soa' });
    const theirs = msg.readUInt32BE(at);
    const serial = data.index.serial(zone.name);
    // Up to date; or over UDP, where the current SOA tells the secondary to ask again over TCP.
    if (notOlder(theirs, wireSerial(serial)) || transport !== 'tcp') return answer({ form: 'soa' });
    // A serial is the etcd revision of the zone's state (zone-serials.ts), unless revisions passed 2^32.
    if (!history || serial >= 2 ** 32 || theirs > serial)
      return answer({ form: 'ixfr_full', why: 'serial is not an etcd revision' });
    return history.indexAt(zone.name, theirs).then(
      (index) =>
        index === COMPACTED
          ? answer({ form: 'ixfr_full', why: `etcd history before revision ${theirs} is compacted` })
          : answer({ form: 'ixfr', from: theirs }, { index, zones: data.zones, lookup: data.lookup }),
      (e: unknown) => answer({ form: 'ixfr_full', why: `etcd history not read: ${(e as Error).message}` }),
    );
  };
}
