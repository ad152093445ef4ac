// Zone transfers out. AXFR (RFC 5936): the zone's SOA, every record of the zone, the SOA again.
// IXFR (RFC 1995): the changes since the secondary's serial, or the whole zone when they cannot
// be had or are larger. The records come from the ZoneSource (the records the server answers
// with, zone-source.ts); this file decides who gets them (transfer-acl.ts, on the request's TSIG
// as the dispatch checked it), splits them over as many TCP messages as needed, signs each when
// the request was signed, and counts and logs what it served.
import type { Logger } from '../../shared/log.ts';
import { RCODE, TYPE } from '../wire/dns-constants.ts';
import type { ResourceRecord } from '../wire/dns-message.ts';
import { isTruncated } from '../wire/header.ts';
import { nameFromWire, type ParsedQuery } from '../wire/query-parser.ts';
import { encodeAnswer, encodeError, patchFor } from '../wire/response-encoder.ts';
import { soaSerialOffset, wireSerial } from '../wire/soa-serial.ts';
import type { Transport } from '../wire/wire-server.ts';
import { incrementalTransfer } from './incremental-transfer.ts';
import type { TsigCheck } from '../tsig/signed-query.ts';
import { tsigFailure } from '../tsig/signed-query.ts';
import { decideTransfer, type TransferDecision, type TransferPolicy } from './transfer-acl.ts';
import type { TransferMetrics } from './transfer-metrics.ts';
import type { TransferStatus } from './transfer-status.ts';
import { TsigSigner, type TsigKey } from '../tsig/tsig.ts';
import type { TransferZone, ZoneSource } from './zone-source.ts';

/** Room left in each 64 KiB message for the TSIG record. */
const MESSAGE_LIMIT = 65535 - 512;
const FIRST_CHUNK = 256;
const NO_KEYS: readonly TsigKey[] = [];

/** The answer messages: SOA, records, SOA, packed into as few messages as fit. */
function encodeTransfer(q: ParsedQuery, zone: TransferZone, msg: Buffer, records: ResourceRecord[]): Buffer[] {
  const messages: Buffer[] = [];
  const query = { ...q, name: zone.name, type: q.type, class: q.class };
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
    if ((bytes.length > MESSAGE_LIMIT || isTruncated(bytes)) && size > 1) {
      size = Math.max(1, size >> 1);
      continue;
    }
    messages.push(bytes);
    i += chunk.length;
  }
  return messages;
}

export interface ZoneTransferOptions<Z extends TransferZone> {
  zones: ZoneSource<Z>;
  /** Per zone (canonical apex): who may transfer it; a zone not here is REFUSED. */
  policies: ReadonlyMap<string, TransferPolicy>;
  status: TransferStatus;
  metrics: TransferMetrics;
  logger: Logger;
  /** Seconds since the epoch (tests move it to check BADTIME). */
  now?: () => number;
}

export type Messages = Buffer | Buffer[];

/** RFC 1982 serial arithmetic: whether `a` is the same as or newer than `b`. */
function notOlder(a: number, b: number): boolean {
  return a === b || (a > b && a - b < 2 ** 31) || (a < b && b - a > 2 ** 31);
}

/** How a transfer went, for the metrics and logs. */
type Form = 'axfr' | 'ixfr' | 'ixfr_full' | 'soa';

/** One allowed request, being answered. */
interface Request<Z> {
  msg: Buffer;
  q: ParsedQuery;
  transport: Transport;
  client: string;
  zone: Z;
  decision: Extract<TransferDecision, { kind: 'allow' }>;
  started: number;
}

export class ZoneTransfer<Z extends TransferZone> {
  private readonly zones: ZoneSource<Z>;
  private readonly policies: ReadonlyMap<string, TransferPolicy>;
  private readonly status: TransferStatus;
  private readonly metrics: TransferMetrics;
  private readonly logger: Logger;
  private readonly now: () => number;
  /** The serial whose records each secondary last got from this process, by zone and address. */
  private readonly held = new Map<string, number>();

  constructor(options: ZoneTransferOptions<Z>) {
    this.zones = options.zones;
    this.policies = options.policies;
    this.status = options.status;
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The keys a request for this zone is checked against (its TSIG is checked once, by the dispatch). */
  keysFor(q: ParsedQuery): readonly TsigKey[] {
    return this.policies.get(nameFromWire(q.wireName) ?? '')?.keys ?? NO_KEYS;
  }

  /** Answers an AXFR or IXFR request whose TSIG was checked against keysFor(q). */
  handle(
    msg: Buffer,
    q: ParsedQuery,
    transport: Transport,
    client: string,
    check: TsigCheck,
  ): Messages | Promise<Messages> {
    const name = nameFromWire(q.wireName) ?? '';
    const zone = this.zones.apex(name);
    const ixfr = q.type === TYPE.IXFR;
    // RFC 5936 4.2: AXFR runs over TCP only; IXFR over UDP gets the current SOA (RFC 1995 2).
    if (transport !== 'tcp' && !ixfr) return this.refuse(msg, q, client, name, 'AXFR over UDP');
    if (!zone)
      return this.refuse(
        msg,
        q,
        client,
        name,
        'not a zone of this server (transfers start at the apex)',
        RCODE.NOTAUTH,
      );
    const policy = this.policies.get(zone.name);
    if (!policy) return this.refuse(msg, q, client, name, 'no transfers configured for this zone');
    const decision = decideTransfer(policy, client, check);
    if (decision.kind === 'refuse') return this.refuse(msg, q, client, name, decision.reason);
    if (decision.kind === 'notauth') {
      this.metrics.transfers.inc({ outcome: 'notauth' });
      this.logger.warn('zone transfer refused', { client, zone: zone.name, reason: decision.reason });
      return tsigFailure(q, msg, decision, this.now);
    }
    const request: Request<Z> = { msg, q, transport, client, zone, decision, started: performance.now() };
    return ixfr ? this.incremental(request) : this.whole(request, 'axfr');
  }

  private refuse(
    msg: Buffer,
    q: ParsedQuery,
    client: string,
    zone: string,
    reason: string,
    rcode: number = RCODE.REFUSED,
  ): Buffer {
    this.metrics.transfers.inc({ outcome: 'refused' });
    this.logger.warn('zone transfer refused', { client, zone, reason });
    return encodeError(q, rcode, msg);
  }

  /** IXFR: the current SOA when the secondary is current (or asks over UDP), else the changes since its serial. */
  private incremental(r: Request<Z>): Messages | Promise<Messages> {
    const at = soaSerialOffset(r.msg);
    if (at < 0)
      return r.transport === 'tcp'
        ? this.whole(r, 'ixfr_full', 'no SOA of the secondary in the request')
        : this.currentSoa(r);
    const theirs = r.msg.readUInt32BE(at);
    // Up to date; or over UDP, where the current SOA tells the secondary to ask again over TCP.
    if (notOlder(theirs, wireSerial(this.zones.serial(r.zone))) || r.transport !== 'tcp') return this.currentSoa(r);
    return this.zones.changesSince(r.zone, theirs).then((changes) => {
      if (changes.kind === 'whole') return this.whole(r, 'ixfr_full', changes.why);
      if (changes.ownVersion && this.held.get(`${r.zone.name} ${r.client}`) !== theirs)
        return this.whole(r, 'ixfr_full', `serial ${theirs} not transferred to this secondary by this process`);
      const diff = incrementalTransfer(
        this.zones.soa(r.zone, theirs),
        this.zones.soa(r.zone, changes.serial),
        changes.before,
        changes.after,
        changes.zoneSize,
      );
      if (!diff) return this.whole(r, 'ixfr_full', 'the changes are larger than the zone');
      return this.send(r, 'ixfr', changes.serial, diff.records, {
        from: theirs,
        deleted: diff.deleted,
        added: diff.added,
      });
    });
  }

  private currentSoa(r: Request<Z>): Messages {
    const serial = this.zones.serial(r.zone);
    return this.send(r, 'soa', serial, [this.zones.soa(r.zone, serial)]);
  }

  private async whole(r: Request<Z>, form: 'axfr' | 'ixfr_full', why?: string): Promise<Messages> {
    const { serial, records } = await this.zones.records(r.zone);
    const soa = this.zones.soa(r.zone, serial);
    return this.send(r, form, serial, [soa, ...records, soa], why ? { why } : {});
  }

  /** `records` as messages, signed when the request was; counted and logged. */
  private send(r: Request<Z>, form: Form, serial: number, records: ResourceRecord[], detail: object = {}): Messages {
    const { zone, decision } = r;
    let messages = encodeTransfer(r.q, zone, r.msg, records);
    if (decision.key && decision.tsig) {
      const signer = new TsigSigner(decision.key, decision.tsig, this.now);
      messages = messages.map((m) => signer.sign(m));
    }
    const bytes = messages.reduce((n, m) => n + m.length, 0);
    this.metrics.transfers.inc({ outcome: 'served' });
    this.metrics.transferKinds.inc({ zone: zone.name, form });
    this.metrics.transferBytes.inc({ zone: zone.name, form }, bytes);
    this.status.transferred(zone.name, r.client, serial, form);
    if (form !== 'soa') this.held.set(`${zone.name} ${r.client}`, wireSerial(serial));
    this.logger.info('zone transferred', {
      client: r.client,
      zone: zone.name,
      form,
      transport: r.transport,
      serial: wireSerial(serial),
      ...detail,
      records: records.length,
      messages: messages.length,
      bytes,
      ms: Math.round(performance.now() - r.started),
      ...(decision.key ? { key: decision.key.name } : {}),
    });
    return messages.length === 1 ? messages[0]! : messages;
  }
}
