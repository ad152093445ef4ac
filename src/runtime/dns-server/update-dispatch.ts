// The pass of an UPDATE message (RFC 2136), beside dispatch.ts's for queries: parse (FORMERR), check
// the TSIG against the update keys (NOTAUTH as for any signed request, RFC 8945), let the update room
// decide and write, answer its rcode with the zone section echoed, signed with the request's key.
import type { Etcd3 } from 'etcd3';
import type { ServerConfig } from '../../config/server-config.ts';
import { canonicalName } from '../../dns/dns-name.ts';
import type { Logger } from '../shared/log.ts';
import { checkTsig, refusedBySignature, signAnswer } from './tsig/signed-query.ts';
import { readKeyFile } from './tsig/key-file.ts';
import type { TsigKey } from './tsig/tsig.ts';
import { UpdateHandler } from './update/update-handler.ts';
import { parseUpdate } from './update/update-message.ts';
import type { UpdateMetrics } from './update/update-metrics.ts';
import { UpdateStore } from './update/update-store.ts';
import { RCODE } from './wire/dns-constants.ts';
import { rcodeOf } from './wire/header.ts';
import { encodeError } from './wire/response-encoder.ts';

const now = () => Math.floor(Date.now() / 1000);

export type UpdateDispatch = (msg: Buffer, client: string) => Promise<Buffer>;

export function createUpdateDispatch(handler: UpdateHandler, keys: readonly TsigKey[]): UpdateDispatch {
  return async (msg, client) => {
    const parsed = parseUpdate(msg);
    if (parsed.kind === 'error') {
      handler.refused(undefined, parsed.rcode, parsed.reason, client);
      return encodeError(parsed.header, parsed.rcode, msg);
    }
    const { message } = parsed;
    const check = checkTsig(msg, message.tsigStart, keys, now());
    const refused = refusedBySignature(message.header, msg, check, now);
    if (refused) {
      handler.refused(
        message,
        rcodeOf(refused),
        check.kind === 'failed' ? `TSIG error ${check.error}` : 'malformed TSIG',
        client,
      );
      return refused;
    }
    const rcode = await handler
      .handle(message, msg, check.kind === 'ok' ? check.key.name : undefined, client)
      .catch(() => RCODE.SERVFAIL);
    return signAnswer(encodeError(message.header, rcode, msg), check, now);
  };
}

/**
 * The setup step: the update keys read once from their file (each listed key must be in it, or
 * the start fails naming the field), the handler writing through `client`. None without `update`.
 */
export function setUpUpdates(options: {
  config: Pick<ServerConfig, 'update' | 'zones'>;
  client: Etcd3;
  prefix: string;
  metrics: UpdateMetrics;
  logger: Logger;
}): UpdateDispatch | undefined {
  const { config, client, prefix, metrics, logger } = options;
  const update = config.update;
  if (!update) return undefined;
  const keys = readKeyFile(update.keyFile, 'update.keyFile');
  update.keys.forEach((k, i) => {
    if (!keys.some((key) => key.name === canonicalName(k.name)))
      throw new Error(`update.keys[${i}].name: key "${k.name}" is not in update.keyFile ${update.keyFile}`);
  });
  const handler = new UpdateHandler({
    config: update,
    store: new UpdateStore(client, prefix),
    zones: config.zones.map((z) => canonicalName(z.name)),
    prefix,
    metrics,
    logger,
  });
  return createUpdateDispatch(handler, keys);
}
