// `etcdns plan`: prints the changes the controller would make now (per name) and exits.
// Exit code 0 when the plan is empty, 3 when it has changes, 1 on error.
import type { Subcommand } from '../cli.ts';
import { parseOrReport } from './controller-command.ts';
import { assembleController } from './controller-process.ts';
import { formatPlan } from './plan/format-plan.ts';
import { isEmptyPlan } from './plan/plan.ts';

const subcommand: Subcommand = {
  summary: 'Print the changes the controller would make to etcd, and exit',
  async run(args) {
    const options = parseOrReport('plan', args);
    if (typeof options === 'number') return options;
    const p = assembleController(options.config, { dryRun: true, leaderElection: false });
    try {
      await p.cache.start();
      if (!p.cache.synced()) {
        p.log.error('caches did not sync', { kinds: p.cache.unsynced() });
        return 1;
      }
      if ((await p.controller.syncOnce()) === 'error' || !p.controller.lastPlan) return 1;
      process.stdout.write(formatPlan(p.controller.lastPlan));
      return isEmptyPlan(p.controller.lastPlan) ? 0 : 3;
    } finally {
      await p.stop();
    }
  },
};

export default subcommand;
