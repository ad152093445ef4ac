// Where the churn run's controller writes and what the DNS server answers from (churn.ts): one
// cluster (the controller writes /skydns, the server answers it), or a hub of member clusters
// (issue 34). In the hub, the controller is spoke c0 (`--cluster c0`, its own lease key) and the
// server's `hub` config names c0..c<n-1>. Spokes c1..c<real> are real controllers (`real`: each
// publishing its own Services, names svc-N.cK.bench.example.org); the others are their data and
// leases only: c0's records as its controller wrote them, copied under each spoke's prefix with
// its own names (svc-1.bench.example.org of c0 is svc-1.c3.bench.example.org of c3), and each
// spoke's lease key on an etcd lease kept alive, as a live spoke's controller holds it. What a
// hub sees of a spoke is its keys, and a kube-apiserver and controller per spoke would not fit
// beside the measured one on this 2-core machine.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lease } from 'etcd3';
import { CLUSTERS_PREFIX, clusterLeaseKey, clusterPrefix } from '../../src/skydns/cluster-prefix.ts';
import { nameToKey, DEFAULT_PREFIX } from '../../src/skydns/skydns-key.ts';
import type { EtcdHandle } from '../../test/support/etcd.ts';
import type { EtcdnsServerHandle } from '../../test/support/etcdns-server.ts';
import { waitFor } from '../../test/support/process.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { loadIntoEtcd } from '../dns/etcd-load.ts';
import { answerPoller } from './answer-poller.ts';

export interface Topology {
  /** For the table: "single cluster", "hub of 10". */
  label: string;
  /** The controller's flags for this layout. */
  controllerArgs: readonly string[];
  /** The key prefix below which the controller's records of `zone` are. */
  recordsPrefix(zone: string): string;
  /** CoreDNS's etcd plugin reads one prefix: it answers as the server only in one cluster. */
  coredns: boolean;
  /**
   * Once every record of the controller is in etcd, before the DNS server starts: writes what
   * else the server reads, and gives the server's flags and how to stop what was started.
   */
  prepare(etcd: EtcdHandle, zone: string, probe: string): Promise<{ serverArgs: string[]; stop(): Promise<void> }>;
  /** The prefixes the DNS server reads (for the count of keys it holds). */
  serverPrefixes: readonly string[];
  /** Once the server is ready: fails unless it answers from what prepare wrote, as configured. */
  check(server: EtcdnsServerHandle, zone: string, timeoutMs: number): Promise<void>;
}

export const singleCluster: Topology = {
  label: 'single cluster',
  controllerArgs: [],
  recordsPrefix: (zone) => `${nameToKey(zone, DEFAULT_PREFIX)}/`,
  coredns: true,
  prepare: async () => ({ serverArgs: [], stop: async () => {} }),
  serverPrefixes: [`${DEFAULT_PREFIX}/`],
  check: async () => {},
};

/** What the check reads of the hub's /status.json. */
interface StatusJson {
  hub?: { clusters: Array<{ cluster: string; counts: boolean }> };
}

/** The spokes' names: c0 (the controller's) to c<count-1>. */
const spokeName = (i: number) => `c${i}`;
/** The lease TTL a spoke's controller holds by default (--cluster-lease-seconds). */
const LEASE_SECONDS = 10;

/** Spokes run by a real controller each: c1..c<count>. */
export interface RealSpokes {
  count: number;
  /** Starts spoke `cluster`'s controller on the hub's etcd. */
  start(cluster: string, etcdEndpoints: string[]): Promise<{ stop(): Promise<void> }>;
  /** How many records each publishes. */
  records: number;
  timeoutMs: number;
}

/** The zone of spoke `cluster`'s own names (not c0's): svc-N.<cluster>.<zone>. */
export const spokeZone = (cluster: string, zone: string) => `${cluster}.${zone}`;

export function hubOfSpokes(count: number, real?: RealSpokes): Topology {
  const measured = spokeName(0);
  const zoneKey = (cluster: string, zone: string) => nameToKey(zone, clusterPrefix(cluster));
  const realCount = real?.count ?? 0;
  return {
    label: `hub of ${count}${realCount ? ` (${realCount + 1} real)` : ''}`,
    controllerArgs: ['--cluster', measured],
    recordsPrefix: (zone) => `${zoneKey(measured, zone)}/`,
    coredns: false,
    async prepare(etcd, zone, probe) {
      const client = etcd.client();
      const from = `${zoneKey(measured, zone)}/`;
      // Only the measured spoke publishes the probe: its answer must be exactly the new address.
      const own = Object.entries(await client.getAll().prefix(from).strings()).filter(
        ([key]) => !key.startsWith(`${from}${probe}/`),
      );
      const leases: Lease[] = [];
      const controllers = await Promise.all(
        Array.from({ length: realCount }, (_, i) => real!.start(spokeName(i + 1), etcd.endpoints)),
      );
      for (let i = 1; i <= realCount; i++) {
        const prefix = `${zoneKey(spokeName(i), spokeZone(spokeName(i), zone))}/`;
        await waitFor(
          `spoke ${spokeName(i)}'s records`,
          async () => ((await client.getAll().prefix(prefix).count()) >= real!.records ? true : undefined),
          real!.timeoutMs,
          200,
        );
      }
      for (let i = realCount + 1; i < count; i++) {
        const cluster = spokeName(i);
        const to = `${zoneKey(cluster, spokeZone(cluster, zone))}/`;
        await loadIntoEtcd(
          client,
          own.map(([key, value]) => [to + key.slice(from.length), value] as const),
        );
        const lease = client.lease(LEASE_SECONDS);
        await lease.put(clusterLeaseKey(cluster)).value(JSON.stringify({ holder: `bench-${cluster}` }));
        leases.push(lease);
      }
      const config = join(tempDir('bench-hub'), 'config.json');
      // Claims as a fleet has them: each spoke its own suffix; c0 publishes the zone's names, so it claims the zone.
      const clusters = Array.from({ length: count }, (_, i) => ({
        name: spokeName(i),
        suffixes: [i === 0 ? zone : spokeZone(spokeName(i), zone)],
      }));
      writeFileSync(config, JSON.stringify({ hub: { clusters } }));
      return {
        serverArgs: ['--config', config],
        async stop() {
          for (const lease of leases) lease.release();
          for (const c of controllers) await c.stop();
        },
      };
    },
    serverPrefixes: [`${DEFAULT_PREFIX}/`, `${CLUSTERS_PREFIX}/`],
    async check(server, zone, timeoutMs) {
      await waitFor(
        `the hub counting all ${count} spokes`,
        async () => {
          const hub = (JSON.parse((await server.http('/status.json')).body) as StatusJson).hub;
          return hub?.clusters.length === count && hub.clusters.every((c) => c.counts) ? true : undefined;
        },
        timeoutMs,
        200,
      );
      // Each other spoke's names answer (within its claims, merged in), real or copied.
      const poll = answerPoller(server.port);
      try {
        for (let i = 1; i < count; i++) {
          const name = `svc-0.${spokeZone(spokeName(i), zone)}`;
          // A few tries: an answer later than the poller's 200 ms counts as none.
          let answered = false;
          for (let t = 0; t < 5 && !answered; t++) answered = (await poll.addresses(name)).length > 0;
          if (!answered) throw new Error(`the hub does not answer ${name}`);
        }
      } finally {
        poll.close();
      }
    },
  };
}
