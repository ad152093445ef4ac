// The views a controller writes: its configured views, or the one default view at its prefix
// (today's behaviour), and what /debug/views tells about a name in each of them.
import { canonicalName } from '../../../dns/dns-name.ts';
import type { ControllerConfig } from '../../../config/controller-config.ts';
import { DEFAULT_VIEW, withViewDefaults, type ViewConfig } from '../../../config/view-config.ts';
import { DEFAULT_PREFIX, normalizePrefix } from '../../shared/skydns-key.ts';
import { resourceId } from '../desired-record.ts';
import type { Plan } from '../plan/plan.ts';
import type { Decision, ViewRecords } from './view-records.ts';

export function controllerViews(config: Pick<ControllerConfig, 'prefix' | 'views'>): ViewConfig[] {
  if (config.views && config.views.length > 0) return withViewDefaults(config.views);
  return [{ ...DEFAULT_VIEW, prefix: normalizePrefix(config.prefix ?? DEFAULT_PREFIX) }];
}

export interface ViewOfName {
  view: string;
  prefix: string;
  exposure: ViewConfig['exposure'];
  /** The records the view publishes for the name (after rules, merge and ownership checks). */
  answers: { type: string; target: string; ttl?: number; resource: string }[];
  /** How the view treated each record the sources asked for at the name. */
  decisions: Omit<Decision, 'name'>[];
}

/** What each view answers for `name`, and why, from the last sync's results. */
export function viewsOfName(name: string, synced: readonly { records: ViewRecords; plan: Plan }[]): ViewOfName[] {
  const wanted = canonicalName(name.trim());
  return synced.map(({ records, plan }) => ({
    view: records.view.name,
    prefix: records.view.prefix,
    exposure: records.view.exposure,
    answers: plan.records
      .filter((r) => r.name === wanted)
      .map((r) => ({
        type: r.type,
        target: r.target,
        ...(r.ttl !== undefined ? { ttl: r.ttl } : {}),
        resource: resourceId(r.object),
      })),
    decisions: records.decisions.filter((d) => d.name === wanted).map(({ name: _name, ...rest }) => rest),
  }));
}
