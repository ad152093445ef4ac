// The transfer settings as the server runs them: per zone, who may transfer it and whom to NOTIFY,
// from the zone's own `transfer` or else the server-wide one. Key files are read once each, at
// start; an unreadable or invalid one stops the start, naming the field.
import { readFileSync } from 'node:fs';
import { canonicalName } from '../../dns/dns-name.ts';
import type { ServerConfig } from '../../config/server-config.ts';
import type { TransferConfig } from '../../config/transfer-config.ts';
import { transferPolicy, type TransferPolicy } from './transfer-acl.ts';
import { parseKeyFile, type TsigKey } from './tsig.ts';
import type { NotifyTarget } from './zone-notifier.ts';

export interface TransferSetup {
  /** Zones with transfers configured (others are REFUSED). */
  policies: Map<string, TransferPolicy>;
  /** Zones with secondaries to NOTIFY. */
  notify: Map<string, NotifyTarget[]>;
  /** Every key of every key file: what a signed query may be signed with. */
  keys: TsigKey[];
}

export function transferSetup(config: Pick<ServerConfig, 'transfer' | 'zones'>): TransferSetup {
  const keyFiles = new Map<string, TsigKey[]>();
  const keysOf = (transfer: TransferConfig, field: string): TsigKey[] => {
    if (!transfer.keyFile) return [];
    let keys = keyFiles.get(transfer.keyFile);
    if (!keys) keyFiles.set(transfer.keyFile, (keys = readKeyFile(transfer.keyFile, field)));
    return keys;
  };
  const setup: TransferSetup = { policies: new Map(), notify: new Map(), keys: [] };
  config.zones.forEach((zoneConfig, i) => {
    const own = zoneConfig.transfer;
    const transfer = own ?? config.transfer;
    if (!transfer) return;
    const field = own ? `zones[${i}].transfer.keyFile` : 'transfer.keyFile';
    const keys = keysOf(transfer, field);
    const zone = canonicalName(zoneConfig.name);
    setup.policies.set(zone, transferPolicy(transfer.allowCidrs, keys));
    if (transfer.notify)
      setup.notify.set(
        zone,
        transfer.notify.map((address) => ({ address, key: keys[0] })),
      );
  });
  setup.keys = [...keyFiles.values()].flat();
  return setup;
}

function readKeyFile(file: string, field: string): TsigKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${field} ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseKeyFile(text, `${field} ${file}`);
}
