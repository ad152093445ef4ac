// One UPDATE, after its TSIG was checked: which key sent it, whether that key may update now, then
// read -> evaluate -> write, again from the read when a name changed meanwhile (another replica, the
// controller). Answers the rcode; logs each refusal and each applied change, counts every one.
import { canonicalName } from '../../../dns/dns-name.ts';
import { UPDATE_DEFAULTS, type UpdateConfig } from '../../../config/update-config.ts';
import type { Logger } from '../../shared/log.ts';
import { CLASS, RCODE, rcodeName } from '../wire/dns-constants.ts';
import { evaluateUpdate, namesOf } from './update-evaluation.ts';
import type { UpdateMessage } from './update-message.ts';
import { NO_KEY, type UpdateMetrics } from './update-metrics.ts';
import { UpdateRateLimit } from './update-rate-limit.ts';
import { UpdateScope } from './update-scope.ts';
import type { UpdateStore } from './update-store.ts';

/** Reads and writes of one update before it gives up (SERVFAIL): its names kept changing. */
const ATTEMPTS = 3;

export interface UpdateHandlerOptions {
  config: UpdateConfig;
  store: Pick<UpdateStore, 'read' | 'write'>;
  /** The apexes of the served zones (canonical). */
  zones: readonly string[];
  prefix: string;
  metrics: UpdateMetrics;
  logger: Logger;
  /** Seconds, for the rate limit. */
  now?: () => number;
}

export class UpdateHandler {
  private readonly options: UpdateHandlerOptions;
  private readonly scopes: Map<string, UpdateScope>;
  private readonly rateLimit: UpdateRateLimit;
  private readonly leaseSeconds: number;
  private readonly now: () => number;

  constructor(options: UpdateHandlerOptions) {
    this.options = options;
    const { keys } = options.config;
    this.scopes = new Map(keys.map((k) => [canonicalName(k.name), new UpdateScope(k)]));
    const perMinute = new Map(
      keys.map((k) => [canonicalName(k.name), k.updatesPerMinute ?? UPDATE_DEFAULTS.updatesPerMinute]),
    );
    this.rateLimit = new UpdateRateLimit((key) => perMinute.get(key)!);
    this.leaseSeconds = options.config.leaseSeconds ?? UPDATE_DEFAULTS.leaseSeconds;
    this.now = options.now ?? (() => Date.now() / 1000);
  }

  /** The rcode for an UPDATE from `client`, signed by `key` (verified; undefined: not signed). */
  async handle(message: UpdateMessage, msg: Buffer, key: string | undefined, client: string): Promise<number> {
    const { rcode, reason, changes } = await this.decide(message, msg, key);
    const fields = { key: key ?? NO_KEY, client, zone: message.zone.name, rcode: rcodeName(rcode) };
    this.options.metrics.updates.inc({ key: key ?? NO_KEY, result: rcodeName(rcode) });
    if (rcode === RCODE.NOERROR) this.options.logger.info('dns update applied', { ...fields, ...changes });
    else this.options.logger.warn('dns update refused', { ...fields, reason });
    return rcode;
  }

  /** Also the rcode of a message whose TSIG failed, for the count and the log line. */
  refused(message: { zone: { name: string } } | undefined, rcode: number, reason: string, client: string): void {
    this.options.metrics.updates.inc({ key: NO_KEY, result: rcodeName(rcode) });
    this.options.logger.warn('dns update refused', {
      key: NO_KEY,
      client,
      zone: message?.zone.name,
      rcode: rcodeName(rcode),
      reason,
    });
  }

  private async decide(
    message: UpdateMessage,
    msg: Buffer,
    key: string | undefined,
  ): Promise<{ rcode: number; reason?: string; changes?: { added: string[]; deleted: string[] } }> {
    if (key === undefined) return { rcode: RCODE.REFUSED, reason: 'not signed with an update key' };
    const scope = this.scopes.get(key);
    if (!scope) return { rcode: RCODE.REFUSED, reason: `key ${key} has no update scope` };
    // RFC 2136 3.1.2: a zone we are not authoritative for.
    if (message.zone.class !== CLASS.IN || !this.options.zones.includes(message.zone.name))
      return { rcode: RCODE.NOTAUTH, reason: `not authoritative for zone ${message.zone.name}` };
    if (!this.rateLimit.take(key, this.now()))
      return { rcode: RCODE.REFUSED, reason: `key ${key} is over its rate limit` };
    const names = namesOf(message);
    try {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const read = await this.options.store.read(names);
        const outcome = evaluateUpdate({
          message,
          msg,
          scope,
          entries: read.entries,
          prefix: this.options.prefix,
          zones: this.options.zones,
        });
        if (!('changes' in outcome)) return outcome;
        if (await this.options.store.write(names, read, outcome.changes, this.leaseSeconds))
          return {
            rcode: RCODE.NOERROR,
            changes: { added: outcome.changes.put.map((p) => p.key), deleted: outcome.changes.delete },
          };
      }
      return { rcode: RCODE.SERVFAIL, reason: `names changed during ${ATTEMPTS} attempts` };
    } catch (e) {
      return { rcode: RCODE.SERVFAIL, reason: `etcd: ${(e as Error).message}` };
    }
  }
}
