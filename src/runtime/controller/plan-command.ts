// `etcdns plan`: prints the changes the controller would make now (per name) and exits; with
// split horizon, per view (`--view NAME` for one of them).
// Exit code 0 when the plan is empty, 3 when it has changes, 1 on error, 2 on bad arguments.
import type { Subcommand } from '../shared/subcommand.ts';
import { orConfigError, parseOrReport } from './controller-command.ts';
import { assembleController, discoverSourceKinds } from './controller-process.ts';
import { formatPlan } from './plan/format-plan.ts';
import { isEmptyPlan } from './plan/plan.ts';
import { controllerViews } from './views/controller-views.ts';

const subcommand: Subcommand = {
  async run(args) {
    const options = parseOrReport('plan', args);
    if (typeof options === 'number') return options;
    const names = controllerViews(options.config).map((v) => v.name);
    if (options.view !== undefined && !names.includes(options.view)) {
      process.stderr.write(`etcdns plan: --view "${options.view}" is not a configured view (${names.join(', ')})\n`);
      return 2;
    }
    const undiscovered = await discoverSourceKinds(options.config).catch((err: unknown) =>
      orConfigError('plan', () => {
        throw err;
      }),
    );
    if (typeof undiscovered === 'number') return undiscovered;
    const p = orConfigError('plan', () => assembleController(options.config, { dryRun: true, leaderElection: false }));
    if (typeof p === 'number') return p;
    try {
      await p.cache.start();
      if (!p.cache.synced()) {
        p.log.error('caches did not sync', { kinds: p.cache.unsynced() });
        return 1;
      }
      if ((await p.controller.syncOnce()) === 'error' || p.controller.lastPlans.length === 0) return 1;
      const shown = p.controller.lastPlans.filter((v) => options.view === undefined || v.view === options.view);
      const headed = shown.length > 1 || options.view !== undefined;
      for (const { view, plan } of shown)
        process.stdout.write(`${headed ? `# view ${view}\n` : ''}${formatPlan(plan)}`);
      return shown.every((v) => isEmptyPlan(v.plan)) ? 0 : 3;
    } finally {
      await p.stop();
    }
  },
};

export default subcommand;
