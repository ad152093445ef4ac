// `etcdns controller`: runs the controller until SIGTERM (or one sync with --once).
import type { Subcommand } from '../shared/subcommand.ts';
import { startHttpServer } from '../shared/http-server.ts';
import { reexecWithV8Flags } from '../shared/v8-memory-flags.ts';
import { controllerStatusRoutes } from './controller-routes.ts';
import type { ControllerProcess } from './controller-process.ts';
import { ConfigError, controllerUsage, parseControllerOptions, type CommandOptions } from './controller-options.ts';

/**
 * The controller's speed budget is generous (10,000 Services written in well under a second, the
 * target is 5 s) and its memory budget is not: a small young generation and V8's memory-saving
 * mode keep 10,000 Services, synced every few seconds, near 160 MiB instead of 210-235 (README.md,
 * "Memory and speed at scale"). V8's memory reducer is off: it started full collections a few
 * seconds after each quieter moment, which at 50,000 Services held a change back by 100-200 ms;
 * the full collection after each full load (controller.ts) returns that load's memory instead.
 */
const V8_FLAGS = ['--max-semi-space-size=4', '--optimize-for-size', '--no-memory-reducer'];

export function parseOrReport(command: 'controller' | 'plan', args: string[]): CommandOptions | number {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${controllerUsage(command)}\n`);
    return 0;
  }
  return orConfigError(command, () => parseControllerOptions(args, process.env, command));
}

/** Runs `make`; a ConfigError (a bad flag, value or kubeconfig) becomes one line naming it and exit code 2. */
export function orConfigError<T>(command: string, make: () => T): T | number {
  try {
    return make();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`etcdns ${command}: ${err.message}\n`);
    return 2;
  }
}

/**
 * `--once`: one sync, and its exit code: 1 when anything it should have written was not (etcd
 * failed, or names changed concurrently and were left as they are), else 0.
 */
export async function syncOnceAndStop(p: ControllerProcess): Promise<number> {
  await p.cache.start();
  const outcome = p.cache.synced() ? await p.controller.syncOnce() : 'error';
  await p.stop();
  if (!p.cache.synced()) p.log.error('caches did not sync', { kinds: p.cache.unsynced() });
  return outcome === 'error' || outcome === 'conflicted' ? 1 : 0;
}

const subcommand: Subcommand = {
  async run(args) {
    const options = parseOrReport('controller', args);
    if (typeof options === 'number') return options;
    reexecWithV8Flags(V8_FLAGS);
    // Loaded after the re-execution: the Kubernetes and etcd clients are loaded once, in the new process.
    const { assembleController, discoverSourceKinds } = await import('./controller-process.ts');
    const { config } = options;
    const undiscovered = await discoverSourceKinds(config).catch((err: unknown) =>
      orConfigError('controller', () => {
        throw err;
      }),
    );
    if (typeof undiscovered === 'number') return undiscovered;
    const p = orConfigError('controller', () =>
      assembleController(config, { dryRun: options.dryRun, leaderElection: !options.once }),
    );
    if (typeof p === 'number') return p;
    p.log.info('starting', {
      prefix: config.prefix,
      sources: config.sources,
      policy: config.policy,
      dryRun: options.dryRun,
      leaderElection: config.leaderElection?.enabled ?? false,
    });

    if (options.once) return syncOnceAndStop(p);

    const http = await startHttpServer({
      listen: config.httpListen,
      metrics: p.metrics.registry,
      readiness: () => p.controller.readiness(),
      routes: {
        // The records a name gets in each view after the last sync, and which rule decided.
        ...controllerStatusRoutes(() => p.controller.status(), p.identity, config.resyncSeconds!),
        '/debug/views': (_req, url) => {
          const name = url.searchParams.get('name');
          if (!name) return { status: 400, body: 'usage: /debug/views?name=www.example.org\n' };
          const body = { name, views: p.controller.viewsOfName(name) };
          return { status: 200, body: `${JSON.stringify(body, null, 2)}\n`, type: 'application/json' };
        },
      },
    });
    void p.cache.start();
    p.elector?.start();
    p.controller.start();
    await new Promise<void>((resolve) => {
      process.once('SIGTERM', resolve);
      process.once('SIGINT', resolve);
    });
    p.log.info('stopping');
    await p.stop();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    return 0;
  },
};

export default subcommand;
