// The records each view publishes, from the records the sources want: selection (which
// resources feed the view), zones, the explicit external target, the rewrite rules, and the
// external view's refusal of private addresses. Pure; every decision is kept for /debug/views.
import { canonicalName, isInZone } from '../../../dns/dns-name.ts';
import { EXTERNAL_TARGET_ANNOTATION, VIEWS_ANNOTATION, type ViewConfig } from '../../../config/view-config.ts';
import { resourceId, type DesiredRecord, type ObjectRef, type Problem } from '../desired-record.ts';
import { splitList } from '../sources/annotations.ts';
import { classifyTarget, type Target } from '../sources/targets.ts';
import type { ReverseZoneConfig } from '../../../config/reverse-zone-config.ts';
import type { Cidr } from '../../../dns/cidr.ts';
import { privateAddressKind } from './private-address.ts';
import { pointerRecords, PTR_ANNOTATION, reverseZonesOf } from './reverse-records.ts';
import { compileRule, evaluateRules, type CompiledRule } from './rewrite-rule.ts';
import { sourceOf, type SourceObject } from './source-object.ts';
import { annotatedViews, selectedForView } from './view-selection.ts';

export interface CompiledView {
  config: ViewConfig;
  /** Canonical zone names; empty: every name. */
  zones: string[];
  rules: CompiledRule[];
  /** Networks of the reverse zones this view publishes PTRs in (reverse-records.ts). */
  reverseZones: Cidr[];
}

export type Outcome = 'published' | 'dropped' | 'refused' | 'not-selected' | 'outside-zones';

/** What one view did with one record the sources asked for. */
export interface Decision {
  name: string;
  type: DesiredRecord['type'];
  target: string;
  resource: string;
  outcome: Outcome;
  /** The rule (or annotation) that decided; absent when no rule matched. */
  rule?: string;
  /** What the view publishes from this record. */
  published: Pick<DesiredRecord, 'type' | 'target'>[];
}

export interface ViewRecords {
  view: ViewConfig;
  records: DesiredRecord[];
  decisions: Decision[];
}

const EXPLICIT_TARGET_RULE = `annotation ${EXTERNAL_TARGET_ANNOTATION}`;
const REWRITABLE = new Set(['A', 'AAAA', 'CNAME']);

/** Compiles view configs validated by src/config/view-config.ts. */
export function compileViews(
  views: readonly ViewConfig[],
  reverseZones: readonly ReverseZoneConfig[] = [],
): CompiledView[] {
  return views.map((config) => ({
    config,
    zones: config.zones.map(canonicalName),
    rules: config.rules.map(compileRule),
    reverseZones: reverseZonesOf(reverseZones, config.name),
  }));
}

export function viewRecords(
  views: readonly CompiledView[],
  desired: readonly DesiredRecord[],
  sources: ReadonlyMap<string, SourceObject>,
): { views: ViewRecords[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const objects = new Map<string, ObjectRef>();
  for (const r of desired) objects.set(resourceId(r.object), r.object);

  const names = views.map((v) => v.config.name);
  for (const ref of objects.values()) {
    const source = sourceOf(sources, ref);
    const unknown = (annotatedViews(source) ?? []).filter((n) => !names.includes(n));
    if (unknown.length > 0) {
      problems.push({
        object: source.ref,
        reason: 'InvalidAnnotation',
        message: `annotation ${VIEWS_ANNOTATION}: ${unknown.map((n) => `"${n}"`).join(', ')} not a configured view (${names.join(', ')}); ignored`,
      });
    }
  }

  const out = views.map((view) => {
    const result: ViewRecords = { view: view.config, records: [], decisions: [] };
    const explicit = new Map<string, Target[] | undefined>();
    for (const record of desired) {
      const resource = resourceId(record.object);
      const source = sourceOf(sources, record.object);
      const decision = (outcome: Outcome, published: DesiredRecord[] = [], rule?: string): void => {
        result.decisions.push({
          name: record.name,
          type: record.type,
          target: record.target,
          resource,
          outcome,
          ...(rule !== undefined ? { rule } : {}),
          published: published.map((r) => ({ type: r.type, target: r.target })),
        });
      };
      if (!selectedForView(view.config, source)) {
        decision('not-selected');
        continue;
      }
      if (view.zones.length > 0 && !view.zones.some((z) => isInZone(record.name, z))) {
        decision('outside-zones');
        continue;
      }
      const external = view.config.exposure === 'external';
      let rule: CompiledRule | undefined;
      let rewritten: DesiredRecord[];
      let ruleName: string | undefined;
      const annotation = source.annotations[EXTERNAL_TARGET_ANNOTATION];
      if (external && annotation !== undefined && REWRITABLE.has(record.type)) {
        // The object says what the outside should see: that wins over the view's rules.
        if (!explicit.has(resource)) explicit.set(resource, explicitTargets(annotation, view, source, problems));
        const targets = explicit.get(resource);
        if (!targets) {
          decision('refused', [], EXPLICIT_TARGET_RULE);
          continue;
        }
        rewritten = targets.map((t) => ({ ...record, type: t.type, target: t.target }));
        ruleName = EXPLICIT_TARGET_RULE;
      } else {
        ({ rule, records: rewritten } = evaluateRules(view.rules, record, source));
        ruleName = rule?.rule.name;
      }
      const published: DesiredRecord[] = [];
      let refused = false;
      for (const r of rewritten) {
        const kind = external && (r.type === 'A' || r.type === 'AAAA') ? privateAddressKind(r.target) : undefined;
        if (kind && !rule?.rule.allowPrivate) {
          refused = true;
          problems.push({
            object: source.ref,
            reason: 'PrivateAddressRefused',
            name: r.name,
            message: `view "${view.config.name}" is external: ${r.target} of ${r.name} is a ${kind} address and is not published (map it with a rule, or set allowPrivate on a rule)`,
          });
          continue;
        }
        published.push(r);
      }
      result.records.push(...published);
      decision(refused ? 'refused' : published.length > 0 ? 'published' : 'dropped', published, ruleName);
    }
    // PTRs follow the addresses the view publishes (after its rewrites).
    const optedOut = (r: DesiredRecord) => sourceOf(sources, r.object).annotations[PTR_ANNOTATION] === 'false';
    result.records.push(...pointerRecords(result.records, view.reverseZones, optedOut));
    return result;
  });
  return { views: out, problems };
}

/** The external-target annotation's targets, or undefined (reported) when it is unusable. */
function explicitTargets(
  value: string,
  view: CompiledView,
  source: SourceObject,
  problems: Problem[],
): Target[] | undefined {
  const targets: Target[] = [];
  const items = splitList(value);
  for (const item of items) {
    const c = classifyTarget(item);
    if (!c.ok) {
      problems.push({
        object: source.ref,
        reason: 'InvalidAnnotation',
        message: `annotation ${EXTERNAL_TARGET_ANNOTATION}: ${c.error}; nothing is published for it in view "${view.config.name}"`,
      });
      return undefined;
    }
    targets.push(c.target);
  }
  if (targets.length === 0) {
    problems.push({
      object: source.ref,
      reason: 'InvalidAnnotation',
      message: `annotation ${EXTERNAL_TARGET_ANNOTATION} is empty; nothing is published for it in view "${view.config.name}"`,
    });
    return undefined;
  }
  return targets;
}
