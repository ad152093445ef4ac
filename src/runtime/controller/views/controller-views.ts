// The views a controller writes: its configured views, or the one default view at its prefix
// (today's behaviour), and the shape of what /debug/views tells about a name in each of them.
import type { ControllerConfig } from '../../../config/controller-config.ts';
import { DEFAULT_VIEW, withViewDefaults, type ViewConfig } from '../../../config/view-config.ts';
import { DEFAULT_PREFIX, normalizePrefix } from '../../../skydns/skydns-key.ts';
import type { Decision } from './view-records.ts';

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
