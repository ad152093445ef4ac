// AXFR out (RFC 5936): the zone's SOA, every RRset the server would answer for a name of the
// zone, the SOA again; split over as many TCP messages as needed, each signed when the request
// was (TSIG). The records are taken from the resolver itself, name by name and type by type, so
// a secondary serves exactly what this server answers.
import { labelsOf } from '../../dns/dns-name.ts';
import type { Logger } from '../shared/log.ts';
import { RCODE, TYPE } from './dns-constants.ts';
import type { ResourceRecord } from './dns-message.ts';
import { nameFromWire, type ParsedQuery } from './query-parser.ts';
import { childrenOf, type IndexNode } from './record-index.ts';
import { resolve, soaRecord, type ResolverData } from './resolver.ts';
import { encodeAnswer, encodeError, patchFor } from './response-encoder.ts';
import type { ServerMetrics, Transport } from './server-metrics.ts';
import { decideTransfer, type TransferPolicy } from './transfer-acl.ts';
import { serverTime, TSIG_ERROR, TsigSigner, unsignedTsig } from './tsig.ts';
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
  // RFC 1034 3.6.2: a CNAME stands alone. SkyDNS also answers SRV/MX for a name host; a zone
  // cannot hold both (secondaries reject it), so the transfer carries the CNAME only.
  const cname = out.filter((r) => r.type === TYPE.CNAME);
  return cname.length > 0 ? cname : out;
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
  policy: TransferPolicy;
  metrics: ServerMetrics;
  logger: Logger;
  /** Seconds since the epoch (tests move it to check BADTIME). */
  now?: () => number;
}

export type TransferHandler = (msg: Buffer, q: ParsedQuery, transport: Transport, client: string) => Buffer | Buffer[];

export function createTransferHandler(options: ZoneTransferOptions): TransferHandler {
  const { policy, metrics, logger } = options;
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
    // RFC 5936 4.2: AXFR runs over TCP only (and IXFR here is answered with the full zone over TCP).
    if (transport !== 'tcp') return refuse('transfer over UDP');
    if (!zone) return refuse('not a zone of this server (transfers start at the apex)', RCODE.NOTAUTH);
    const decision = decideTransfer(policy, client, msg, now());
    if (decision.kind === 'refuse') return refuse(decision.reason);
    if (decision.kind === 'notauth') {
      metrics.transfers.inc({ outcome: 'notauth' });
      logger.warn('zone transfer refused', { client, zone: zone.name, reason: decision.reason });
      const bare = encodeError(q, RCODE.NOTAUTH, msg);
      if (decision.error === TSIG_ERROR.BADTIME && decision.key)
        return new TsigSigner(decision.key, decision.tsig, now).sign(bare, decision.error, serverTime(now()));
      return unsignedTsig(bare, decision.tsig, decision.error);
    }
    const started = performance.now();
    const soa = soaRecord(zone, data.index.serial(zone.name));
    const records = [soa, ...zoneRecords(data, zone), soa];
    let messages = encodeTransfer(q, zone, msg, records);
    if (decision.key && decision.tsig) {
      const signer = new TsigSigner(decision.key, decision.tsig, now);
      messages = messages.map((m) => signer.sign(m));
    }
    const bytes = messages.reduce((n, m) => n + m.length, 0);
    metrics.transfers.inc({ outcome: 'served' });
    metrics.transferBytes.inc({}, bytes);
    logger.info('zone transferred', {
      client,
      zone: zone.name,
      serial: soa.type === TYPE.SOA ? soa.serial : 0,
      records: records.length,
      messages: messages.length,
      bytes,
      ms: Math.round(performance.now() - started),
      ...(decision.key ? { key: decision.key.name } : {}),
    });
    return messages;
  };
}
