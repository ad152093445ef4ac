// One DNS server process: etcd client, record store, answer cache, query handler, sockets, and
// (unless it is a worker whose primary serves HTTP) the /healthz /readyz /metrics edge.
import type { Server } from 'node:http';
import { normalizePrefix, DEFAULT_PREFIX } from '../../skydns/skydns-key.ts';
import { etcdClientOptions } from '../shared/etcd-client.ts';
import { startHttpServer, type Readiness } from '../shared/http-server.ts';
import { createLogger, type Logger } from '../shared/log.ts';
import { observeGarbageCollection } from '../shared/gc-metrics.ts';
import { serverStatusRoutes } from '../status-page/server-routes.ts';
import { Etcd3, type IOptions } from 'etcd3';
import { AnswerCache } from './answer-cache.ts';
import { changedNames } from './answer-scope.ts';
import { withQueryLog } from './query-log.ts';
import { rateLimitSettings, ResponseRateLimiter, truncated } from './rate-limit.ts';
import { Forwarder } from './forwarder.ts';
import { transferSetup } from './transfer-setup.ts';
import { TransferStatus } from './transfer-status.ts';
import { createTransferHandler } from './zone-transfer.ts';
import { ZoneHistory } from './zone-history.ts';
import { ZoneNotifier } from './zone-notifier.ts';
import { settleSerials } from './zone-serials.ts';
import { createQueryHandler } from './query-handler.ts';
import { recordLimits } from './record-limits.ts';
import { RecordSnapshot } from './record-snapshot.ts';
import { RecordStore } from './record-store.ts';
import { soaRecord, type ResolverData } from './resolver.ts';
import { ServerMetrics } from './server-metrics.ts';
import type { ServerSettings } from './server-settings.ts';
import type { WorkerStatus } from './worker-pool.ts';
import { startWireServer, type WireServer } from './wire-server.ts';
import { ZoneTable } from './zones.ts';

const STATUS_INTERVAL_MS = 1000;
/** etcd calls other than the watch stream give up after this long (the store then retries). */
const CALL_DEADLINE_MS = 5000;

export function etcdOptions(settings: ServerSettings): IOptions {
  const options: IOptions = {
    ...etcdClientOptions(settings.config.etcd),
    dialTimeout: CALL_DEADLINE_MS,
    // A range page of large values can exceed gRPC's default 4 MiB (etcd takes 1.5 MiB values):
    // room for most such pages; the record store reads smaller pages when one is larger still.
    grpcOptions: { 'grpc.max_receive_message_length': 64 * 2 ** 20 },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + CALL_DEADLINE_MS }),
  };
  return options;
}

export interface RunningServer {
  wire: WireServer;
  http: Server | undefined;
  store: RecordStore;
  metrics: ServerMetrics;
  stop(): Promise<void>;
}

export async function startDnsServer(
  settings: ServerSettings,
  options: { worker?: boolean; logger?: Logger } = {},
): Promise<RunningServer> {
  const { config } = settings;
  const logger = options.logger ?? createLogger(config.logLevel ?? 'info', { component: 'dns-server' });
  const metrics = new ServerMetrics();
  const zones = new ZoneTable(config.zones);
  const prefix = normalizePrefix(config.prefix ?? DEFAULT_PREFIX);
  const client = new Etcd3(etcdOptions(settings));
  const cache = new AnswerCache();
  const limits = recordLimits(config.recordLimits);
  const snapshot = config.snapshotFile
    ? new RecordSnapshot({ file: config.snapshotFile, prefix, zones: zones.names, logger, limits })
    : undefined;
  const history = new ZoneHistory({ client, prefix, zones: zones.names, limits });
  const transfers = transferSetup(config);
  const transferStatus = new TransferStatus(metrics);
  const lookup = config.lookup ?? 'own';
  const data = (): ResolverData => ({ index: store.index, zones, lookup });
  // One process of a pool tells the secondaries (every worker holds the same copy).
  const notifier =
    transfers.notify.size > 0 && (!options.worker || process.env.ETCDNS_WORKER_SLOT === '0')
      ? new ZoneNotifier({
          targets: transfers.notify,
          serial: (zone) => store.index.serial(zone),
          soa: (zone) =>
            soaRecord(
              zones.zones.find((z) => z.name === zone)!,
              store.index.serial(zone),
            ),
          metrics,
          status: transferStatus,
          logger,
        })
      : undefined;
  const store: RecordStore = new RecordStore({
    client,
    prefix,
    zones: zones.names,
    logger,
    metrics,
    limits,
    settleSerials: (index) => settleSerials(index, zones.names, history),
    onChange: (changed) => {
      const names = changed === 'all' ? 'all' : changedNames(changed);
      if (names === 'all') cache.clear();
      else cache.invalidate(names);
      // Only a copy that came from etcd is saved (not one loaded from the snapshot itself).
      if (!store.servingSnapshot) snapshot?.changed(() => ({ index: store.index, clusterId: store.clusterId }));
      // Secondaries are told of etcd's data only, not of a snapshot's.
      if (!store.servingSnapshot) notifier?.changed();
    },
    ...(snapshot ? { fallback: () => snapshot.load() } : {}),
  });
  const answering = createQueryHandler({
    data,
    loaded: () => store.state !== 'loading',
    cache,
    metrics,
    forwarder: config.forward ? new Forwarder(config.forward) : undefined,
    maxUdpPayload: config.maxUdpPayload ?? 4096,
    transfer:
      transfers.policies.size > 0
        ? createTransferHandler({
            data,
            policies: transfers.policies,
            history,
            status: transferStatus,
            metrics,
            logger,
          })
        : undefined,
    tsigKeys: transfers.keys,
  });
  const handler = config.queryLogEvery ? withQueryLog(answering, config.queryLogEvery, logger) : answering;

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
    metrics.records.set(store.index.entryCount);
    metrics.revision.set(store.index.revision);
    for (const zone of zones.names) metrics.zoneSerials.set(store.index.serial(zone), { zone });
    metrics.setSkipped(store.index.skippedByReason);
    metrics.sinceContact.set(store.secondsSinceContact());
  });

  const rateLimit = rateLimitSettings(config);
  const limiter = rateLimit ? new ResponseRateLimiter(rateLimit) : undefined;
  if (rateLimit) logger.info('response rate limiting on', { ...rateLimit });

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
      tcpIdleMs: (config.tcpIdleSeconds ?? 10) * 1000,
      ...(limiter ? { udpReplyFilter: rateLimitFilter(limiter, metrics) } : {}),
    });
    if (!options.worker) {
      http = await startHttpServer({
        listen: config.httpListen,
        metrics: metrics.registry,
        readiness: () => withTransfers(store.readiness(), transferStatus),
        routes: serverStatusRoutes({
          readiness: () => store.readiness(),
          index: () => store.index,
          zones: zones.names,
          watchLag: () => metrics.watchLag.get(),
          secondsSinceContact: () => store.secondsSinceContact(),
          transfers: transferStatus,
        }),
      });
    }
  } catch (e) {
    await wire?.close();
    client.close();
    throw e;
  }
  store.start();
  logger.info('dns server listening', {
    listen: `${host}:${port}`,
    http: options.worker ? 'primary' : `${config.httpListen.host}:${config.httpListen.port}`,
    prefix,
    zones: zones.names,
    lookup,
    udpReceiveBuffer: wire.udpReceiveBuffer,
  });

  let statusTimer: NodeJS.Timeout | undefined;
  if (options.worker && process.send) {
    const report = () => {
      const status: WorkerStatus = {
        type: 'etcdns-worker-status',
        readiness: withTransfers(store.readiness(), transferStatus),
        metrics: metrics.registry.render(),
      };
      process.send?.(status);
    };
    report();
    statusTimer = setInterval(report, STATUS_INTERVAL_MS);
  }

  const opened = wire;
  return {
    wire: opened,
    http,
    store,
    metrics,
    stop: async () => {
      clearInterval(statusTimer);
      stopGcObserver();
      await opened.close();
      await notifier?.stop();
      await store.stop();
      await snapshot?.flush();
      client.close();
      if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The limiter's verdict applied to a UDP reply, counted. */
function rateLimitFilter(limiter: ResponseRateLimiter, metrics: ServerMetrics) {
  return (reply: Buffer, client: string): Buffer | undefined => {
    const verdict = limiter.check(client, reply, performance.now() / 1000);
    if (verdict === 'send') return reply;
    metrics.rateLimited.inc({ action: verdict === 'slip' ? 'slipped' : 'dropped' });
    return verdict === 'slip' ? truncated(reply) : undefined;
  };
}

/** The store's readiness, with what the secondaries last got when there is any. */
function withTransfers(readiness: Readiness, status: TransferStatus): Readiness {
  const transfers = status.describe();
  return transfers ? { ...readiness, detail: `${readiness.detail}; secondaries: ${transfers}` } : readiness;
}
