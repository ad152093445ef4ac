// One DNS server process, wired in named steps: the etcd client, the record store (with its
// snapshot and history), zone transfer's setup, the dispatch that answers each message, its
// metrics, the sockets and (unless it is a worker whose primary serves HTTP) the /healthz /readyz
// /metrics edge.
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import type { Etcd3 } from 'etcd3';
import { SERVER_CONFIG_DEFAULTS, type ServerConfig } from '../../config/server-config.ts';
import { cidrMatcher } from '../../dns/cidr.ts';
import { isInZone } from '../../dns/dns-name.ts';
import { normalizePrefix, DEFAULT_PREFIX } from '../../skydns/skydns-key.ts';
import { VERSION } from '../../version.ts';
import { createEtcdClient, type EtcdCallOptions } from '../shared/etcd-client.ts';
import { observeGarbageCollection } from '../shared/gc-metrics.ts';
import { startHttpServer, type Readiness } from '../shared/http-server.ts';
import { createLogger, type Logger } from '../shared/log.ts';
import { serverStatusRoutes } from './server-routes.ts';
import { AnswerCache } from './answer/answer-cache.ts';
import { AnswerOrder } from './answer/answer-order.ts';
import { CatalogZone } from './answer/catalog-zone.ts';
import { changedNames } from './answer/answer-scope.ts';
import { Forwarder } from './answer/forwarder.ts';
import type { ResolverData } from './answer/resolver.ts';
import { ZoneRecordSource } from './answer/zone-records.ts';
import { ZoneTable, type Zone } from './answer/zones.ts';
import { withCatalog } from './catalog-source.ts';
import { createQueryHandler } from './dispatch.ts';
import { setUpUpdates } from './update-dispatch.ts';
import { QueryLog } from './query-log.ts';
import { rateLimitSettings, ResponseRateLimiter } from './rate-limit.ts';
import { ServerMetrics } from './server-metrics.ts';
import type { ServerSettings } from './server-settings.ts';
import { recordLimits } from './store/record-limits.ts';
import type { RecordIndex } from './store/record-index.ts';
import { RecordSnapshot } from './store/record-snapshot.ts';
import { RecordStore } from './store/record-store.ts';
import { ZoneHistory } from './store/zone-history.ts';
import { ZoneVersions } from './answer/zone-versions.ts';
import { settleSerials } from './store/zone-serials.ts';
import { DRAINING } from './shutdown-drain.ts';
import { ClusterHub } from './cluster-hub.ts';
import { catalogMembers, setUpTransfers, type Transfers } from './transfer/transfer-setup.ts';
import type { TransferStatus } from './transfer/transfer-status.ts';
import { STATUS_INTERVAL_MS, type WorkerStatus } from './worker-pool.ts';
import { startWireServer, type QueryHandler, type WireServer } from './wire/wire-server.ts';

/** etcd calls other than the watch stream give up after this long (the store then retries). */
const CALL_DEADLINE_MS = 5000;

const ETCD_CALLS: EtcdCallOptions = {
  dialTimeout: CALL_DEADLINE_MS,
  // A range page of large values can exceed gRPC's default 4 MiB (etcd takes 1.5 MiB values):
  // room for most such pages; the record store reads smaller pages when one is larger still.
  grpcOptions: { 'grpc.max_receive_message_length': 64 * 2 ** 20 },
  defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + CALL_DEADLINE_MS }),
};

export interface RunningServer {
  wire: WireServer;
  http: Server | undefined;
  store: RecordStore;
  metrics: ServerMetrics;
  /** SIGTERM came: readiness says no from now on, while the sockets keep answering (the drain). */
  terminating(): void;
  stop(): Promise<void>;
}

/** What the steps share: the settings, and the parts made so far. */
interface Parts {
  config: ServerConfig;
  logger: Logger;
  metrics: ServerMetrics;
  zones: ZoneTable;
  prefix: string;
  client: Etcd3;
  cache: AnswerCache;
  catalog: CatalogZone | undefined;
  /** A hub: the member clusters' copy and health (cluster-hub.ts). */
  hub: ClusterHub | undefined;
}

/** The record store (its snapshot, etcd's history), telling the cache, snapshot and secondaries of each change. */
function recordStore(p: Parts, transfers: () => Transfers<Zone>) {
  const { config, zones, prefix, client, logger, cache } = p;
  const limits = recordLimits(config.recordLimits);
  const snapshot = config.snapshotFile
    ? new RecordSnapshot({ file: config.snapshotFile, prefix, zones: zones.names, logger, limits })
    : undefined;
  // A hub's merged zone at an earlier serial is not in etcd's history (health is not): its IXFR
  // reads the versions this process transferred (answer/zone-versions.ts).
  const history = p.hub ? undefined : new ZoneHistory({ client, prefix, zones: zones.names, limits });
  const store: RecordStore = new RecordStore({
    client,
    prefix,
    zones: zones.names,
    logger,
    metrics: p.metrics.store,
    limits,
    ...(history ? { settleSerials: (index: RecordIndex) => settleSerials(index, zones.names, history) } : {}),
    onChange: (changed) => {
      const names = changed === 'all' ? 'all' : changedNames(changed);
      if (names === 'all') cache.clear();
      else cache.invalidate(names);
      // A hub's fresh copy: its serials no lower than the clusters' copy's changes.
      if (changed === 'all' && p.hub) raiseSerials(store.index, p.hub, zones.names, false);
      // Only a copy that came from etcd is saved (not one loaded from the snapshot itself), and
      // secondaries are told of etcd's data only.
      if (store.servingSnapshot) return;
      snapshot?.changed(() => ({ index: store.index, clusterId: store.clusterId }));
      transfers().notifier?.changed();
    },
    ...(snapshot ? { fallback: () => snapshot.load() } : {}),
  });
  return { store, snapshot, history };
}

/**
 * A hub's merged zones changed without a change of its view's keys: their serials move one up, or
 * (a fresh copy: `moved` false) to at least the latest etcd revision either copy has seen.
 */
function raiseSerials(index: RecordIndex, hub: ClusterHub, zones: readonly string[], moved: boolean): void {
  const latest = Math.max(index.revision, hub.store.index.revision);
  for (const zone of zones) index.raiseSerial(zone, Math.max(index.serial(zone) + (moved ? 1 : 0), latest));
}

/** The hub's member clusters, telling the cache, serials and secondaries of each change of theirs. */
function clusterHub(p: Omit<Parts, 'hub'>, view: () => RecordStore, transfers: () => Transfers<Zone>) {
  const { config, zones, client, logger, cache } = p;
  if (!config.hub) return undefined;
  const hub: ClusterHub = new ClusterHub({
    config: config.hub,
    client,
    logger,
    limits: recordLimits(config.recordLimits),
    registry: p.metrics.registry,
    onChange: (changed) => {
      // Below a cluster's prefix, the path's first label is the cluster.
      const paths = changed === 'all' ? 'all' : changed.map((path) => path.slice(1));
      if (paths !== 'all' && paths.length === 0) return;
      const names = paths === 'all' ? 'all' : changedNames(paths);
      if (names === 'all') cache.clear();
      else cache.invalidate(names);
      const touched =
        paths === 'all'
          ? zones.names
          : zones.names.filter((zone) => paths.some((path) => isInZone(nameOfPath(path), zone)));
      raiseSerials(view().index, hub, touched, true);
      transfers().notifier?.changed();
    },
    onSerialMark: (revision) => {
      const index = view().index;
      if (!zones.names.some((zone) => index.serial(zone) < revision)) return;
      for (const zone of zones.names) index.raiseSerial(zone, revision);
      cache.clear();
      transfers().notifier?.changed();
    },
  });
  return hub;
}

/** The name of a key path below a prefix (its labels, rightmost first). */
function nameOfPath(path: readonly string[]): string {
  return path.length === 0 ? '.' : `${path.toReversed().join('.')}.`;
}

/** The order of A/AAAA records the config asks for, or undefined when answers go as stored. */
function answerOrder(config: ServerConfig): AnswerOrder | undefined {
  const order = new AnswerOrder(config.answerOrder?.rotation ?? 'off', config.answerOrder?.prefer ?? []);
  return order.active ? order : undefined;
}

/** The dispatch of every message, with what it answers from and who it forwards for. */
function dispatch(p: Parts, store: RecordStore, data: () => ResolverData, transfers: Transfers<Zone>): QueryHandler {
  const { config, logger, metrics } = p;
  const rateLimit = rateLimitSettings(config);
  if (rateLimit) logger.info('response rate limiting on', { ...rateLimit });
  return createQueryHandler({
    data,
    loaded: () => store.hasCopy && (p.hub?.store.hasCopy ?? true),
    siteOf: p.hub?.usesSites ? (client: string) => p.hub!.siteOf(client) : undefined,
    cache: p.cache,
    metrics,
    forwarder: config.forward ? new Forwarder(config.forward) : undefined,
    maxUdpPayload: config.maxUdpPayload ?? SERVER_CONFIG_DEFAULTS.maxUdpPayload,
    transfer: transfers.handler,
    tsigKeys: transfers.keys,
    rateLimit: rateLimit ? new ResponseRateLimiter(rateLimit) : undefined,
    queryLog: config.queryLogEvery ? new QueryLog(config.queryLogEvery, logger) : undefined,
    allowsQuery: config.allowQueryFrom ? cidrMatcher(config.allowQueryFrom) : undefined,
    answerOrder: answerOrder(config),
    identity: {
      id: config.identity?.enabled === false ? undefined : (config.identity?.name ?? hostname()),
      version: config.identity?.version ? `etcdns ${VERSION}` : undefined,
    },
    catalog: p.catalog,
    update: setUpUpdates({ config, client: p.client, prefix: p.prefix, metrics: metrics.update, logger }),
  });
}

/** Gauges sampled when /metrics is rendered; returns what stops the GC observer. */
function sampleMetrics(p: Parts, store: RecordStore): () => void {
  const { metrics, cache } = p;
  let folded = { hits: 0, misses: 0 };
  // The soak (bench:faults) reads the V8 heap's slope here, next to process_resident_memory_bytes.
  const heapUsed = metrics.registry.gauge('etcdns_dns_heap_used_bytes', 'V8 heap in use, bytes.');
  const stopGcObserver = observeGarbageCollection(metrics.registry);
  metrics.registry.beforeRender(() => {
    heapUsed.set(process.memoryUsage().heapUsed);
    metrics.cacheHits.inc({}, cache.hits - folded.hits);
    metrics.cacheMisses.inc({}, cache.misses - folded.misses);
    folded = { hits: cache.hits, misses: cache.misses };
    metrics.cacheEntries.set(cache.size);
    metrics.cacheBytes.set(cache.bytes);
    metrics.store.records.set(store.index.entryCount);
    metrics.store.revision.set(store.index.revision);
    for (const zone of p.zones.names) metrics.store.zoneSerials.set(store.index.serial(zone), { zone });
    metrics.store.setSkipped(store.index.skippedByReason);
    metrics.store.sinceContact.set(store.secondsSinceContact());
  });
  return stopGcObserver;
}

/** The TCP connection counts of the sockets, when /metrics is rendered. */
function sampleTcp(metrics: ServerMetrics, wire: WireServer): void {
  let folded = { closedUnderPressure: 0, refused: 0 };
  metrics.registry.beforeRender(() => {
    const counts = wire.tcpCounts();
    metrics.tcpConnections.set(counts.open);
    metrics.tcpClosedUnderPressure.inc({}, counts.closedUnderPressure - folded.closedUnderPressure);
    metrics.tcpRefused.inc({}, counts.refused - folded.refused);
    folded = counts;
  });
}

/** A worker's readiness and metrics, sent to its primary (which serves HTTP for the pool). */
function reportToPrimary(p: Parts, readiness: () => Readiness, wire: WireServer): NodeJS.Timeout {
  const report = () => {
    const status: WorkerStatus = {
      type: 'etcdns-worker-status',
      readiness: readiness(),
      metrics: p.metrics.registry.render(),
      arrivals: wire.arrivals(),
    };
    process.send?.(status);
  };
  report();
  return setInterval(report, STATUS_INTERVAL_MS);
}

export async function startDnsServer(
  settings: ServerSettings,
  options: { worker?: boolean; logger?: Logger } = {},
): Promise<RunningServer> {
  const { config } = settings;
  const logger = options.logger ?? createLogger(config.logLevel ?? 'info', { component: 'dns-server' });
  const zones = new ZoneTable(config.zones);
  const p: Parts = {
    config,
    logger,
    metrics: new ServerMetrics(),
    zones,
    prefix: normalizePrefix(config.prefix ?? DEFAULT_PREFIX),
    client: createEtcdClient(settings.config.etcd, ETCD_CALLS),
    cache: new AnswerCache(),
    // Made from the config: its serial is this start's second (catalog-zone.ts), a pool's in a worker.
    catalog: config.catalog
      ? new CatalogZone(
          config.catalog.zone,
          catalogMembers(config),
          (options.worker && Number(process.env.ETCDNS_POOL_STARTED)) || Math.floor(Date.now() / 1000),
        )
      : undefined,
    hub: undefined,
  };
  const lookup = config.lookup ?? 'own';
  // Its callbacks run once started, when the view's store and the transfers exist.
  p.hub = clusterHub(
    p,
    () => store,
    () => transfers,
  );
  const { store, snapshot, history } = recordStore(p, () => transfers);
  // One object per copy of the records, not one per call (a cached negative answer asks it for the serial).
  let current: ResolverData | undefined;
  const data = (): ResolverData => {
    const hub = p.hub?.data();
    if (current?.index === store.index && current.hub === hub) return current;
    return (current = { index: store.index, zones, lookup, hub });
  };
  const records = new ZoneRecordSource(data, history ?? new ZoneVersions());
  const transfers = setUpTransfers({
    config,
    zones: p.catalog ? withCatalog(records, p.catalog) : records,
    metrics: p.metrics.transfer,
    logger,
    // One process of a pool tells the secondaries (every worker holds the same copy).
    notifies: !options.worker || process.env.ETCDNS_WORKER_SLOT === '0',
  });
  const handler = dispatch(p, store, data, transfers);
  const stopGcObserver = sampleMetrics(p, store);
  let terminating = false;
  const readiness = (): Readiness =>
    terminating ? DRAINING : withTransfers(withHub(store.readiness(), p.hub), transfers.status);

  const { host, port } = config.listen;
  // Sockets first, so a taken port fails start-up before anything else runs; on any failure
  // close what was opened, so the process can exit.
  let wire: WireServer | undefined;
  let http: Server | undefined;
  try {
    wire = await startWireServer({
      host,
      port,
      handler,
      tcpIdleMs: (config.tcpIdleSeconds ?? SERVER_CONFIG_DEFAULTS.tcpIdleSeconds) * 1000,
      maxTcpConnections: config.maxTcpConnections ?? SERVER_CONFIG_DEFAULTS.maxTcpConnections,
    });
    if (!options.worker) {
      http = await startHttpServer({
        listen: config.httpListen,
        metrics: p.metrics.registry,
        readiness,
        routes: serverStatusRoutes({
          readiness: () => store.readiness(),
          index: () => store.index,
          zones: zones.names,
          watchLag: () => p.metrics.store.watchLag.get(),
          secondsSinceContact: () => store.secondsSinceContact(),
          transfers: transfers.status,
          ...(p.hub
            ? {
                hub: () => p.hub!.summary(),
                explain: (name: string, client: string | undefined) => {
                  const zone = zones.match(name);
                  return zone && p.hub!.explain(name, zone, lookup, store.index, client);
                },
              }
            : {}),
        }),
      });
    }
  } catch (e) {
    await wire?.close();
    p.client.close();
    throw e;
  }
  sampleTcp(p.metrics, wire);
  store.start();
  p.hub?.start();
  logger.info('dns server listening', {
    listen: `${host}:${port}`,
    http: options.worker ? 'primary' : `${config.httpListen.host}:${config.httpListen.port}`,
    prefix: p.prefix,
    zones: zones.names,
    ...(p.catalog
      ? { catalog: { zone: p.catalog.zone.name, serial: p.catalog.serial, members: p.catalog.members } }
      : {}),
    lookup,
    ...(config.hub ? { hub: config.hub } : {}),
    udpReceiveBuffer: wire.udpReceiveBuffer,
  });
  const statusTimer = options.worker && process.send ? reportToPrimary(p, readiness, wire) : undefined;

  const opened = wire;
  return {
    wire: opened,
    http,
    store,
    metrics: p.metrics,
    terminating: () => {
      terminating = true;
    },
    stop: async () => {
      clearInterval(statusTimer);
      stopGcObserver();
      await opened.close();
      await transfers.notifier?.stop();
      await store.stop();
      await p.hub?.stop();
      await snapshot?.flush();
      p.client.close();
      if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A hub is ready once the clusters' copy is loaded too. */
function withHub(readiness: Readiness, hub: ClusterHub | undefined): Readiness {
  if (!hub) return readiness;
  const clusters = hub.readiness();
  return {
    ready: readiness.ready && clusters.ready,
    detail: `${readiness.detail}; member clusters: ${clusters.detail}`,
  };
}

/** The store's readiness, with what the secondaries last got when there is any. */
function withTransfers(readiness: Readiness, status: TransferStatus): Readiness {
  const transfers = status.describe();
  return transfers ? { ...readiness, detail: `${readiness.detail}; secondaries: ${transfers}` } : readiness;
}
