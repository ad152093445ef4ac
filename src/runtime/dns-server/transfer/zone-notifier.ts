// NOTIFY out (RFC 1996): when a zone's serial moves, each of its secondaries is told over UDP, so
// it asks for the changes at once instead of at its next SOA refresh. Changes are gathered for a
// short delay (one NOTIFY for a burst), an unanswered NOTIFY is sent again with a doubling wait
// (RFC 1996 3.6), and a newer serial replaces a NOTIFY still waiting for its answer.
import { createSocket, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { HostPort } from '../../../config/field-rules.ts';
import type { Logger } from '../../shared/log.ts';
import type { ResourceRecord } from '../wire/dns-message.ts';
import { idOf } from '../wire/header.ts';
import { notifyMessage, notifyReply } from './notify-message.ts';
import type { TransferMetrics } from './transfer-metrics.ts';
import type { TransferStatus } from './transfer-status.ts';
import { signRequest, verifyResponse, type TsigKey } from '../tsig/tsig.ts';

export interface NotifyTarget {
  address: HostPort;
  /** Signs the NOTIFY; the answer must then be signed with it too. */
  key?: TsigKey | undefined;
}

export interface ZoneNotifierOptions {
  /** Per zone (canonical apex), the secondaries to tell. */
  targets: ReadonlyMap<string, readonly NotifyTarget[]>;
  serial: (zone: string) => number;
  soa: (zone: string) => ResourceRecord;
  metrics: TransferMetrics;
  status: TransferStatus;
  logger: Logger;
  /** How long changes are gathered before a NOTIFY goes out; default 100 ms. */
  delayMs?: number;
  /** Wait before the first resend, doubled for each next one; default 1,000 ms. */
  retryMs?: number;
  /** Tries per serial, the first included; default 5. */
  attempts?: number;
}

interface Pending {
  zone: string;
  target: NotifyTarget;
  who: string;
  serial: number;
  id: number;
  attempt: number;
  mac: Buffer | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class ZoneNotifier {
  private readonly options: ZoneNotifierOptions;
  private readonly sockets = new Map<'udp4' | 'udp6', Socket>();
  /** The serial each zone was last scheduled for. */
  private readonly scheduled = new Map<string, number>();
  private readonly delays = new Map<string, NodeJS.Timeout>();
  /** NOTIFYs waiting for their answer, by message id. */
  private readonly pending = new Map<number, Pending>();
  private stopped = false;

  constructor(options: ZoneNotifierOptions) {
    this.options = options;
  }

  /** Called after every change of the copy: zones whose serial moved get a NOTIFY after the delay. */
  changed(): void {
    if (this.stopped) return;
    for (const zone of this.options.targets.keys()) {
      const serial = this.options.serial(zone);
      if (this.scheduled.get(zone) === serial) continue;
      this.scheduled.set(zone, serial);
      if (this.delays.has(zone)) continue;
      const timer = setTimeout(() => {
        this.delays.delete(zone);
        this.notifyZone(zone);
      }, this.options.delayMs ?? 100);
      timer.unref();
      this.delays.set(zone, timer);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.delays.values()) clearTimeout(timer);
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    await Promise.all([...this.sockets.values()].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  private notifyZone(zone: string): void {
    const serial = this.options.serial(zone);
    for (const target of this.options.targets.get(zone) ?? []) {
      const who = `${target.address.host}:${target.address.port}`;
      // A newer serial replaces what is still waiting for this secondary.
      for (const [id, p] of this.pending)
        if (p.zone === zone && p.who === who) {
          clearTimeout(p.timer);
          this.pending.delete(id);
        }
      const pending: Pending = {
        zone,
        target,
        who,
        serial,
        id: this.freeId(),
        attempt: 0,
        mac: undefined,
        timer: undefined,
      };
      this.pending.set(pending.id, pending);
      this.send(pending);
    }
  }

  private freeId(): number {
    for (;;) {
      const id = randomInt(0x10000);
      if (!this.pending.has(id)) return id;
    }
  }

  private send(p: Pending): void {
    const { metrics, logger } = this.options;
    p.attempt += 1;
    let msg = notifyMessage(p.id, p.zone, this.options.soa(p.zone));
    if (p.target.key) {
      const signed = signRequest(msg, p.target.key, Math.floor(Date.now() / 1000));
      msg = signed.signed;
      p.mac = signed.mac;
    }
    const { host, port } = p.target.address;
    this.socket(isIPv6(host) ? 'udp6' : 'udp4').send(msg, port, host, (e) => {
      if (e) logger.warn('NOTIFY not sent', { zone: p.zone, secondary: p.who, error: e });
    });
    metrics.notifies.inc({ zone: p.zone, secondary: p.who, outcome: 'sent' });
    const attempts = this.options.attempts ?? 5;
    p.timer = setTimeout(
      () => {
        if (this.pending.get(p.id) !== p) return;
        if (p.attempt < attempts) return this.send(p);
        this.pending.delete(p.id);
        metrics.notifies.inc({ zone: p.zone, secondary: p.who, outcome: 'unanswered' });
        logger.warn('NOTIFY unanswered', { zone: p.zone, secondary: p.who, serial: p.serial, tries: p.attempt });
      },
      (this.options.retryMs ?? 1000) * 2 ** (p.attempt - 1),
    );
    p.timer.unref();
  }

  private socket(family: 'udp4' | 'udp6'): Socket {
    let socket = this.sockets.get(family);
    if (socket) return socket;
    socket = createSocket(family);
    socket.on('message', (msg, rinfo) => this.answered(msg, `${rinfo.address}:${rinfo.port}`));
    socket.on('error', (e) => this.options.logger.warn('NOTIFY socket error', { error: e }));
    socket.unref();
    this.sockets.set(family, socket);
    return socket;
  }

  private answered(msg: Buffer, from: string): void {
    const { metrics, logger, status } = this.options;
    if (msg.length < 2) return;
    const p = this.pending.get(idOf(msg));
    // Only the secondary asked answers for it; anything else is ignored.
    if (!p || p.who !== from.replace(/^::ffff:/, '')) return;
    const reply = notifyReply(msg, p.id);
    if (reply.kind === 'other') return;
    if (p.target.key && !verifyResponse(msg, p.target.key, p.mac!, Math.floor(Date.now() / 1000))) {
      logger.warn('NOTIFY answer not signed with the key: ignored', { zone: p.zone, secondary: p.who });
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(p.id);
    if (reply.kind === 'ack') {
      metrics.notifies.inc({ zone: p.zone, secondary: p.who, outcome: 'acked' });
      status.notifyAcked(p.zone, p.who, p.serial);
      logger.debug('NOTIFY acked', { zone: p.zone, secondary: p.who, serial: p.serial });
    } else {
      metrics.notifies.inc({ zone: p.zone, secondary: p.who, outcome: 'refused' });
      logger.warn('NOTIFY refused', { zone: p.zone, secondary: p.who, serial: p.serial, rcode: reply.rcode });
    }
  }
}
