// Checks views as written in config (controller config file, DnsStackProps.views) and fills
// their defaults. Every problem names the field. Shared by the controller's loader and the
// constructs' validation, so a view that synthesizes is a view the controller runs with.
import { dnsNameProblem } from '../../shared/dns-name.ts';
import type { ViewConfig } from '../../shared/config/view-config.ts';
import { normalizePrefix } from '../../shared/skydns-key.ts';
import { compileRule, isStringMap } from './rewrite-rule.ts';

/** A view as users write it: everything but name and prefix has a default. */
export type ViewInput = Pick<ViewConfig, 'name' | 'prefix'> & Partial<ViewConfig>;

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PREFIX = /^(?:\/[A-Za-z0-9._-]+)+$/;
const EXPOSURES = ['internal', 'external'];
const MODES = ['all', 'opt-in'];

/** Problems of a list of views ("views[1].selection.mode: ..."); empty when they are usable. */
export function viewProblems(views: unknown, path = 'views'): string[] {
  if (!Array.isArray(views) || views.length === 0) return [`${path}: must list at least one view`];
  const problems: string[] = [];
  const seenNames = new Map<string, number>();
  const prefixes: (string | undefined)[] = [];
  views.forEach((raw: unknown, i) => {
    const at = `${path}[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${at}: must be an object with name and prefix`);
      return;
    }
    const v = raw as Partial<ViewConfig>;
    if (typeof v.name !== 'string' || !NAME.test(v.name))
      problems.push(`${at}.name: must be a DNS label such as "internal" or "external" (got ${JSON.stringify(v.name)})`);
    else if (seenNames.has(v.name))
      problems.push(`${at}.name: "${v.name}" is already the name of ${path}[${seenNames.get(v.name)}]`);
    else seenNames.set(v.name, i);

    const prefixOk = typeof v.prefix === 'string' && PREFIX.test(normalizePrefix(v.prefix));
    if (!prefixOk)
      problems.push(
        `${at}.prefix: must be an etcd key prefix such as "/skydns-external" (got ${JSON.stringify(v.prefix)})`,
      );
    prefixes.push(prefixOk ? v.prefix : undefined);

    if (v.zones !== undefined) {
      if (!Array.isArray(v.zones)) problems.push(`${at}.zones: must be a list of zone names`);
      else
        v.zones.forEach((z: unknown, j) => {
          const problem = typeof z === 'string' ? dnsNameProblem(z) : 'is not a string';
          if (problem) problems.push(`${at}.zones[${j}]: ${JSON.stringify(z)} ${problem}`);
        });
    }
    problems.push(...viewSettingsProblems(v, at));
  });
  return [...problems, ...prefixOverlapProblems(prefixes, path)];
}

/** Each view's prefix must be its own: one inside another's would make that view read, and delete, the other's entries. */
export function prefixOverlapProblems(prefixes: readonly (string | undefined)[], path: string): string[] {
  const problems: string[] = [];
  const seen: [string, number][] = [];
  prefixes.forEach((raw, i) => {
    if (raw === undefined) return;
    const prefix = normalizePrefix(raw);
    const clash = seen.find(([p]) => p === prefix || p.startsWith(`${prefix}/`) || prefix.startsWith(`${p}/`));
    if (clash)
      problems.push(
        `${path}[${i}].prefix: "${prefix}" overlaps "${clash[0]}" of ${path}[${clash[1]}]; each view needs its own prefix`,
      );
    else seen.push([prefix, i]);
  });
  return problems;
}

/** Problems of a view's exposure, selection and rules (the fields the constructs pass through as they are). */
export function viewSettingsProblems(v: Partial<ViewConfig>, at: string): string[] {
  const problems: string[] = [];
  if (v.exposure !== undefined && !EXPOSURES.includes(v.exposure))
    problems.push(`${at}.exposure: ${JSON.stringify(v.exposure)} is not one of ${EXPOSURES.join(', ')}`);
  const s = v.selection;
  if (s !== undefined) {
    if (s === null || typeof s !== 'object' || !MODES.includes(s.mode))
      problems.push(`${at}.selection.mode: ${JSON.stringify(s?.mode)} is not one of ${MODES.join(', ')}`);
    else {
      if (s.mode === 'all' && v.exposure === 'external')
        problems.push(
          `${at}.selection.mode: an external view publishes only resources opted in; use "opt-in" (with labels, ingressClasses or the etcdns.io/views annotation)`,
        );
      if (s.labels !== undefined && !isStringMap(s.labels))
        problems.push(`${at}.selection.labels: must map label names to values`);
      if (
        s.ingressClasses !== undefined &&
        (!Array.isArray(s.ingressClasses) || s.ingressClasses.some((c) => typeof c !== 'string'))
      )
        problems.push(`${at}.selection.ingressClasses: must be a list of class names`);
    }
  }
  if (v.rules !== undefined) {
    if (!Array.isArray(v.rules)) problems.push(`${at}.rules: must be a list of rules`);
    else
      v.rules.forEach((rule, r) => {
        const c = compileRule(rule, `${at}.rules[${r}]`);
        if (!c.ok) problems.push(...c.errors);
      });
  }
  return problems;
}

/** Views with defaults filled in: all zones, internal, selection by exposure (external: opt-in), no rules. */
export function withViewDefaults(views: readonly ViewInput[]): ViewConfig[] {
  return views.map((v) => {
    const exposure = v.exposure ?? 'internal';
    return {
      name: v.name,
      prefix: normalizePrefix(v.prefix),
      zones: v.zones ?? [],
      exposure,
      selection: v.selection ?? { mode: exposure === 'external' ? 'opt-in' : 'all' },
      rules: v.rules ?? [],
    };
  });
}
