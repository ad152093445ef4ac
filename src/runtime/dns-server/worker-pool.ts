// --workers N: the primary forks N server processes that share the DNS sockets (node:cluster),
// restarts any that dies, and serves HTTP for all of them. Each worker loads and watches etcd
// itself, so serve-stale holds per worker; the pool is ready when every worker is.
import cluster, { type Worker } from 'node:cluster';
import { startHttpServer } from '../shared/http-server.ts';
import type { Logger } from '../shared/log.ts';
import { Registry } from '../shared/metrics.ts';
import { poolStatusRoutes } from './server-routes.ts';
import { mergeMetricPages } from './metrics-merge.ts';
import type { ServerSettings } from './server-settings.ts';
import type { Readiness } from '../shared/http-server.ts';
import { DRAINING, drainAfterSignal } from './shutdown-drain.ts';

/** What a worker reports to its primary, which serves HTTP for all of them. */
export interface WorkerStatus {
  type: 'etcdns-worker-status';
  readiness: Readiness;
  metrics: string;
  /** Its sockets' arrivals (wire-server.ts), which the primary's drain watches. */
  arrivals: number;
}

/** How often a worker reports. */
export const STATUS_INTERVAL_MS = 1000;
/** A worker that has not reported for this long counts as not ready. */
const STATUS_TIMEOUT_MS = 5000;
/** A worker that keeps failing (say, its port is taken) is restarted at this pace, not in a loop. */
const RESTART_DELAY_MS = 1000;

interface Seen {
  status: WorkerStatus | undefined;
  at: number;
}

/** A registry whose page is the merged pages of the workers, and the primary's process metrics. */
class PoolRegistry extends Registry {
  private readonly pages: () => Map<string, string>;
  constructor(pages: () => Map<string, string>) {
    super();
    this.pages = pages;
  }
  override render(): string {
    return mergeMetricPages(new Map([['primary', super.render()], ...this.pages()]));
  }
}

export async function runWorkerPool(settings: ServerSettings, logger: Logger): Promise<number> {
  const count = settings.config.workers ?? 1;
  const seen = new Map<number, Seen>();
  let stopping = false;

  // The pool's start: every worker's catalog serial, a worker restarted later too (catalog-zone.ts).
  const started = String(Math.floor(Date.now() / 1000));
  const fork = (slot: number): void => {
    const worker = cluster.fork({ ETCDNS_WORKER_SLOT: String(slot), ETCDNS_POOL_STARTED: started });
    seen.set(slot, { status: undefined, at: 0 });
    worker.on('message', (msg: WorkerStatus) => {
      if (msg?.type === 'etcdns-worker-status') seen.set(slot, { status: msg, at: Date.now() });
    });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      logger.error('worker exited, restarting it', { slot, code, signal, inMs: RESTART_DELAY_MS });
      seen.set(slot, { status: undefined, at: 0 });
      setTimeout(() => !stopping && fork(slot), RESTART_DELAY_MS);
    });
  };
  for (let slot = 0; slot < count; slot++) fork(slot);

  const readiness = () => {
    if (stopping) return DRAINING;
    const now = Date.now();
    const parts: string[] = [];
    let ready = true;
    for (const [slot, s] of [...seen].sort(([a], [b]) => a - b)) {
      const fresh = s.status && now - s.at < STATUS_TIMEOUT_MS;
      if (!fresh || !s.status!.readiness.ready) ready = false;
      parts.push(`worker ${slot}: ${fresh ? s.status!.readiness.detail : 'no recent status'}`);
    }
    return { ready, detail: parts.join('; ') };
  };
  const pages = () =>
    new Map([...seen].filter(([, s]) => s.status).map(([slot, s]) => [String(slot), s.status!.metrics]));
  const http = await startHttpServer({
    listen: settings.config.httpListen,
    metrics: new PoolRegistry(pages),
    readiness,
    routes: poolStatusRoutes(readiness, count),
  });
  logger.info('worker pool started', { workers: count });

  await new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  // A worker's count is as old as its last report: the drain waits that much longer for quiet.
  const arrivals = () => [...seen.values()].reduce((sum, s) => sum + (s.status?.arrivals ?? 0), 0);
  const drain = await drainAfterSignal(settings.config.drain, logger, {
    count: arrivals,
    lagMs: STATUS_INTERVAL_MS,
  });
  logger.info('drain over, closing the sockets', { drain });
  const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  await Promise.all(
    alive.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.once('exit', () => resolve());
          w.kill('SIGTERM');
        }),
    ),
  );
  await new Promise<void>((resolve) => http.close(() => resolve()));
  return 0;
}
