// `etcdns server`: settings from flags, environment and config file; then one server process,
// or a primary with --workers N server processes.
import cluster from 'node:cluster';
import type { Subcommand } from '../shared/subcommand.ts';
import { createLogger } from '../shared/log.ts';
import { reexecWithV8Flags } from '../shared/v8-memory-flags.ts';
import { ConfigError } from '../../config/config-error.ts';
import { loadServerSettings, USAGE } from './server-settings.ts';
import { drainAfterSignal } from './shutdown-drain.ts';

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => () => resolve(signal);
    process.once('SIGTERM', on('SIGTERM'));
    process.once('SIGINT', on('SIGINT'));
    // A worker whose primary is gone has nobody serving its HTTP edge: stop too.
    if (cluster.isWorker) process.once('disconnect', on('disconnect'));
  });
}

/**
 * The young generation fixed at 2 x 8 MiB from the start: V8 otherwise doubles it toward its
 * ceiling as churn makes survivors, so RSS rises in steps for an hour; a fixed size keeps it flat,
 * and 8 loads 100,000 records as fast as 32 and answers as fast (bench/README.md, DNS server memory and
 * load: measurements).
 */
const V8_FLAGS = ['--min-semi-space-size=8', '--max-semi-space-size=8'];

async function run(args: string[]): Promise<number> {
  // As the controller: help before the settings, which need etcd and a zone.
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  reexecWithV8Flags(V8_FLAGS);
  let settings;
  try {
    settings = loadServerSettings(args, process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`etcdns server: ${e.message}\n\nRun "etcdns server --help" for the options.\n`);
    return 2;
  }
  const logger = createLogger(settings.config.logLevel ?? 'info', {
    component: 'dns-server',
    ...(cluster.isWorker ? { worker: process.env.ETCDNS_WORKER_SLOT } : {}),
  });
  // Loaded on demand: a pool's primary never loads the etcd client, sockets or records.
  if (cluster.isPrimary && (settings.config.workers ?? 1) > 1) {
    return (await import('./worker-pool.ts')).runWorkerPool(settings, logger);
  }
  const { startDnsServer } = await import('./server-process.ts');

  let server;
  try {
    server = await startDnsServer(settings, { worker: cluster.isWorker, logger });
  } catch (e) {
    logger.error('start-up failed', { error: e as Error });
    return 1;
  }
  const signal = await untilSignal();
  logger.info('stopping', { signal });
  // A pool's primary drains for all of its workers (worker-pool.ts).
  if (!cluster.isWorker) {
    server.terminating();
    const drain = await drainAfterSignal(settings.config.drain, logger, { count: server.wire.arrivals, lagMs: 0 });
    logger.info('drain over, closing the sockets', { drain });
  }
  await server.stop();
  // A worker's IPC channel to its primary would keep it alive after everything else closed.
  if (cluster.isWorker) cluster.worker?.disconnect();
  return 0;
}

export const serverCommand: Subcommand = {
  run,
};
