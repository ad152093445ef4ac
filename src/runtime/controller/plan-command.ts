// `etcdns plan`: prints the changes the controller would make now (per name) and exits; with
// split horizon, per view (`--view NAME` for one of them).
// Exit code 0 when the plan is empty, 3 when it has changes, 1 on error, 2 on bad arguments.
import type { Subcommand } from '../subcommand.ts';
import { orConfigError, parseOrReport } from './controller-command.ts';
import { assembleController } from './controller-process.ts';
import { formatPlan } from './plan/format-plan.ts';
import { isEmptyPlan } from './plan/plan.ts';
import { controllerViews } from './views/controller-views.ts';

/** Takes `--view NAME` / `--view=NAME` out of the controller's arguments. */
function splitViewFlag(args: string[]): { view: string | undefined; rest: string[] } | string {
  const rest: string[] = [];
  let view: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const m = /^--view(?:=(.*))?$/.exec(args[i]!);
    if (!m) rest.push(args[i]!);
    else if ((view = m[1] ?? args[++i]) === undefined) return '--view needs a view name';
  }
  return { view, rest };
}

const subcommand: Subcommand = {
  async run(args) {
    const split = splitViewFlag(args);
    if (typeof split === 'string') {
      process.stderr.write(`etcdns plan: ${split}\n`);
      return 2;
    }
    const options = parseOrReport('plan', split.rest);
    if (options === 0)
      process.stdout.write(`  ${'--view NAME'.padEnd(34)}only this view's plan (default: every view)\n`);
    if (typeof options === 'number') return options;
    const names = controllerViews(options.config).map((v) => v.name);
    if (split.view !== undefined && !names.includes(split.view)) {
      process.stderr.write(`etcdns plan: --view "${split.view}" is not a configured view (${names.join(', ')})\n`);
      return 2;
    }
    const p = orConfigError('plan', () => assembleController(options.config, { dryRun: true, leaderElection: false }));
    if (typeof p === 'number') return p;
    try {
      await p.cache.start();
      if (!p.cache.synced()) {
        p.log.error('caches did not sync', { kinds: p.cache.unsynced() });
        return 1;
      }
      if ((await p.controller.syncOnce()) === 'error' || p.controller.lastPlans.length === 0) return 1;
      const shown = p.controller.lastPlans.filter((v) => split.view === undefined || v.view === split.view);
      const headed = shown.length > 1 || split.view !== undefined;
      for (const { view, plan } of shown)
        process.stdout.write(`${headed ? `# view ${view}\n` : ''}${formatPlan(plan)}`);
      return shown.every((v) => isEmptyPlan(v.plan)) ? 0 : 3;
    } finally {
      await p.stop();
    }
  },
};

export default subcommand;
