// Zone transfer's setup step (as a CoreDNS plugin's setup.go): the settings as the server runs
// them, per zone, who may transfer it and whom to NOTIFY, from the zone's own `transfer` or else
// the server-wide one; then the transfer handler, the NOTIFY sender and the status they share.
// Key files are read once each, at start; an unreadable or invalid one stops the start, naming
// the field.
import { canonicalName } from '../../../dns/dns-name.ts';
import type { ServerConfig } from '../../../config/server-config.ts';
import type { TransferConfig } from '../../../config/transfer-config.ts';
import type { Logger } from '../../shared/log.ts';
import { transferPolicy, type TransferPolicy } from './transfer-acl.ts';
import type { TransferMetrics } from './transfer-metrics.ts';
import { TransferStatus } from './transfer-status.ts';
import { readKeyFile } from '../tsig/key-file.ts';
import type { TsigKey } from '../tsig/tsig.ts';
import { ZoneNotifier, type NotifyTarget } from './zone-notifier.ts';
import type { TransferZone, ZoneSource } from './zone-source.ts';
import { ZoneTransfer } from './zone-transfer.ts';

export interface TransferSetup {
  /** Zones with transfers configured (others are REFUSED). */
  policies: Map<string, TransferPolicy>;
  /** Zones with secondaries to NOTIFY. */
  notify: Map<string, NotifyTarget[]>;
  /** Every key of every key file: what a signed query may be signed with. */
  keys: TsigKey[];
}

/** The zones transferred with the server-wide settings (none without them): the catalog's members. */
export function catalogMembers(config: Pick<ServerConfig, 'transfer' | 'zones'>): string[] {
  return config.transfer ? config.zones.filter((z) => !z.transfer).map((z) => canonicalName(z.name)) : [];
}

export function transferSetup(config: Pick<ServerConfig, 'transfer' | 'zones' | 'catalog'>): TransferSetup {
  const keyFiles = new Map<string, TsigKey[]>();
  const keysOf = (transfer: TransferConfig, field: string): TsigKey[] => {
    if (!transfer.keyFile) return [];
    let keys = keyFiles.get(transfer.keyFile);
    if (!keys) keyFiles.set(transfer.keyFile, (keys = readKeyFile(transfer.keyFile, field)));
    return keys;
  };
  const setup: TransferSetup = { policies: new Map(), notify: new Map(), keys: [] };
  // The catalog goes to the secondaries of the server-wide settings (the config schema requires them).
  const zones = [
    ...config.zones,
    ...(config.catalog && config.transfer ? [{ name: config.catalog.zone, transfer: undefined }] : []),
  ];
  zones.forEach((zoneConfig, i) => {
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

/** Zone transfer as one process runs it. */
export interface Transfers<Z extends TransferZone> {
  /** AXFR/IXFR requests go here; none when no zone has transfers configured (they are REFUSED). */
  handler: ZoneTransfer<Z> | undefined;
  /** Tells the secondaries of each change; none without NOTIFY targets, or in a process that leaves it to another. */
  notifier: ZoneNotifier | undefined;
  status: TransferStatus;
  /** Every key of every key file: what a signed query may be signed with. */
  keys: readonly TsigKey[];
}

export interface TransfersOptions<Z extends TransferZone> {
  config: Pick<ServerConfig, 'transfer' | 'zones' | 'catalog'>;
  zones: ZoneSource<Z>;
  metrics: TransferMetrics;
  logger: Logger;
  /** False in the workers of a pool but one: every worker holds the same copy, one tells the secondaries. */
  notifies: boolean;
}

/** The transfer wiring of one server process, from its config. */
export function setUpTransfers<Z extends TransferZone>(options: TransfersOptions<Z>): Transfers<Z> {
  const { zones, metrics, logger } = options;
  const setup = transferSetup(options.config);
  const status = new TransferStatus(metrics);
  const handler =
    setup.policies.size > 0
      ? new ZoneTransfer({ zones, policies: setup.policies, status, metrics, logger })
      : undefined;
  const soa = (name: string) => {
    const zone = zones.apex(name)!;
    return zones.soa(zone, zones.serial(zone));
  };
  const notifier =
    setup.notify.size > 0 && options.notifies
      ? new ZoneNotifier({
          targets: setup.notify,
          serial: (name) => zones.serial(zones.apex(name)!),
          soa,
          metrics,
          status,
          logger,
        })
      : undefined;
  return { handler, notifier, status, keys: setup.keys };
}
