// etcdns as the primary of a set of zones with the real BIND 9 and Knot as its TSIG-signed
// secondaries (NOTIFY to both), and a wait until both serve every zone at etcdns's serial: the
// three servers a test asks the same questions of.
import { startBindSecondary, type BindSecondaryHandle } from './bind-secondary.ts';
import { dig } from './dig.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from './etcdns-server.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from './knot-secondary.ts';
import { freePort } from './ports.ts';
import { waitFor } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { transferArgs, writeKeyFile, type TsigKeySpec } from './tsig-key.ts';

export interface TransferPeersOptions {
  etcdEndpoints: string[];
  prefix: string;
  /** Canonical apexes. */
  zones: readonly string[];
  /** More flags for etcdns, e.g. ["--lookup", "subtree"]. */
  args?: string[];
}

export interface TransferPeers {
  etcdns: EtcdnsServerHandle;
  bind: BindSecondaryHandle;
  knot: KnotSecondaryHandle;
  /**
   * Waits (bounded) until BIND and Knot serve every zone at etcdns's current serial, or at the
   * serial given for it (the etcd revision of the zone's last write, so that etcdns has it too);
   * the ms it took.
   */
  synced(serials?: ReadonlyMap<string, number>): Promise<number>;
  stop(): Promise<void>;
}

const KEY: TsigKeySpec = {
  name: 'xfr.peers.test',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns transfer peers test secret').toString('base64'),
};

/** Knot asks from an address of its own: etcdns tells secondaries apart by address (a hub's IXFR). */
const KNOT_SOURCE = '127.0.0.2';

/** The serial a server answers for a zone, if it does. */
export async function serial(port: number, zone: string): Promise<number | undefined> {
  const r = await dig({ port, name: zone, type: 'SOA', timeoutSeconds: 1 });
  const soa = r.answer.find((a) => a.type === 'SOA');
  return r.status === 'NOERROR' && soa ? Number(soa.data.split(' ')[2]) : undefined;
}

export async function startTransferPeers(o: TransferPeersOptions): Promise<TransferPeers> {
  const keyFile = writeKeyFile(tempDir('transfer-peers'), KEY);
  // The secondaries' ports come first: etcdns is told to NOTIFY them.
  const [bindPort, knotPort] = [await freePort(), await freePort()];
  const etcdns = await startEtcdnsServer({
    etcdEndpoints: o.etcdEndpoints,
    zones: [...o.zones],
    prefix: o.prefix,
    args: [
      ...transferArgs([bindPort, knotPort], keyFile),
      '--transfer-allow-cidr',
      `${KNOT_SOURCE}/32`,
      ...(o.args ?? []),
    ],
  });
  const bind = await startBindSecondary({
    zone: o.zones,
    primaryPort: etcdns.port,
    key: KEY,
    port: bindPort,
    minimalResponses: true,
  });
  const knot = await startKnotSecondary({
    zone: o.zones,
    primaryPort: etcdns.port,
    key: KEY,
    port: knotPort,
    source: KNOT_SOURCE,
  });
  const synced = async (serials?: ReadonlyMap<string, number>) => {
    const started = performance.now();
    for (const zone of o.zones) {
      await waitFor(
        `${zone} on BIND and Knot at etcdns's serial`,
        async () => {
          const want = await serial(etcdns.port, zone);
          if (serials?.has(zone) && want !== serials.get(zone)) return undefined;
          const [b, k] = await Promise.all([serial(bind.port, zone), serial(knot.port, zone)]);
          return want !== undefined && b === want && k === want ? true : undefined;
        },
        30_000,
      ).catch((e: Error) => {
        throw new Error(
          `${e.message}\nnamed:\n${bind.logs().slice(-3000)}\nknotd:\n${knot.process.logs().slice(-3000)}`,
        );
      });
    }
    return Math.round(performance.now() - started);
  };
  return {
    etcdns,
    bind,
    knot,
    synced,
    stop: async () => {
      await Promise.all([bind.stop(), knot.stop()]);
      await etcdns.stop();
    },
  };
}
